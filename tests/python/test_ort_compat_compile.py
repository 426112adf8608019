"""ModelCompiler, onnxruntime's ahead-of-time compile API (issue #36): with
no provider that compiles ahead of time, the compiled model is the model at
the compiler's optimization level, written to a file, bytes or a stream,
with the flags and initializer placement onnxruntime has."""

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import tessera as ort
from tessera.capi.onnxruntime_pybind11_state import Fail, ModelRequiresCompilation

from conftest import make_model, save

CPU = ["CPUExecutionProvider"]


@pytest.fixture
def weighted_model(tmp_path):
    """y = x * w + b: w float [64] (256 bytes), b float [4] (16 bytes)."""
    w = numpy_helper.from_array(np.arange(64, dtype=np.float32), "w")
    b = numpy_helper.from_array(np.ones(4, dtype=np.float32), "b")
    model = make_model(
        [helper.make_node("Mul", ["x", "w"], ["t"], name="mul"),
         helper.make_node("ReduceSum", ["t"], ["s"], name="sum", keepdims=1),
         helper.make_node("Add", ["s", "b"], ["y"], name="add")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        initializers=[w, b])
    return save(model, tmp_path / "weighted.onnx")


def _run(path_or_bytes):
    sess = ort.InferenceSession(path_or_bytes, providers=CPU)
    return sess.run(None, {"x": np.ones(64, np.float32)})[0]


def test_compile_to_file_bytes_and_stream(weighted_model, tmp_path):
    expected = _run(weighted_model)
    compiler = ort.ModelCompiler(ort.SessionOptions(), weighted_model,
                                 embed_compiled_data_into_model=True)
    out = tmp_path / "compiled.onnx"
    compiler.compile_to_file(str(out))
    np.testing.assert_allclose(_run(str(out)), expected)
    with open(weighted_model, "rb") as f:
        from_bytes = ort.ModelCompiler(ort.SessionOptions(), f.read())
    data = from_bytes.compile_to_bytes()
    assert isinstance(data, bytes) and data
    np.testing.assert_allclose(_run(data), expected)
    chunks = []
    compiler.compile_to_stream(chunks.append)
    np.testing.assert_allclose(_run(b"".join(chunks)), expected)
    compiler.compile_to_file()  # beside the input, named <input>_ctx.onnx
    assert os.path.exists(os.path.splitext(weighted_model)[0] + "_ctx.onnx")


def test_compile_flags(weighted_model, tmp_path):
    out = tmp_path / "once.onnx"
    compiler = ort.ModelCompiler(ort.SessionOptions(), weighted_model,
                                 flags=ort.OrtCompileApiFlags.ERROR_IF_OUTPUT_FILE_EXISTS)
    compiler.compile_to_file(str(out))
    with pytest.raises(Fail, match="exists already"):
        compiler.compile_to_file(str(out))
    nothing = ort.ModelCompiler(ort.SessionOptions(), weighted_model,
                                flags=ort.OrtCompileApiFlags.ERROR_IF_NO_NODES_COMPILED)
    target = tmp_path / "never.onnx"
    with pytest.raises(Fail, match="Unable to compile any nodes"):
        nothing.compile_to_file(str(target))
    assert not target.exists()


def test_compile_optimization_level_defaults_to_none(tmp_path):
    # Two Identity nodes: kept without optimization, removed at ORT_ENABLE_BASIC.
    path = save(make_model(
        [helper.make_node("Identity", ["x"], ["a"], name="id1"),
         helper.make_node("Identity", ["a"], ["b"], name="id2"),
         helper.make_node("Relu", ["b"], ["y"], name="relu")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]), tmp_path / "ids.onnx")
    plain, basic = tmp_path / "plain.onnx", tmp_path / "basic.onnx"
    ort.ModelCompiler(ort.SessionOptions(), path).compile_to_file(str(plain))
    ort.ModelCompiler(ort.SessionOptions(), path,
                      graph_optimization_level=ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
                      ).compile_to_file(str(basic))
    assert [n.op_type for n in onnx.load(str(plain)).graph.node].count("Identity") == 2
    assert [n.op_type for n in onnx.load(str(basic)).graph.node].count("Identity") == 0


def test_stream_errors_carry_the_callers_message(weighted_model):
    def refuse(_buffer):
        raise ValueError("disk on fire")

    with pytest.raises(Fail, match="disk on fire"):
        ort.ModelCompiler(ort.SessionOptions(), weighted_model).compile_to_stream(refuse)


def test_external_initializers_file(weighted_model, tmp_path):
    out = tmp_path / "ext.onnx"
    ort.ModelCompiler(ort.SessionOptions(), weighted_model,
                      external_initializers_file_path="weights.bin",
                      external_initializers_size_threshold=128).compile_to_file(str(out))
    assert (tmp_path / "weights.bin").exists()
    model = onnx.load(str(out), load_external_data=False)
    where = {t.name: t.data_location for t in model.graph.initializer}
    assert where == {"w": TensorProto.EXTERNAL, "b": TensorProto.DEFAULT}
    np.testing.assert_allclose(_run(str(out)), _run(weighted_model))


def test_initializer_location_function(weighted_model, tmp_path):
    out, blob = tmp_path / "placed.onnx", tmp_path / "placed.bin"
    seen = {}
    with open(blob, "wb") as f:
        def place(name, value, external_info):
            seen[name] = (value.tensor_size_in_bytes(), external_info)
            if value.tensor_size_in_bytes() < 64:
                return None
            offset = f.tell()
            f.write(value.numpy().tobytes())
            return ort.OrtExternalInitializerInfo(str(blob), offset,
                                                  value.tensor_size_in_bytes())

        ort.ModelCompiler(ort.SessionOptions(), weighted_model,
                          get_initializer_location_func=place).compile_to_file(str(out))
    assert seen == {"w": (256, None), "b": (16, None)}
    model = onnx.load(str(out), load_external_data=False)
    w = next(t for t in model.graph.initializer if t.name == "w")
    assert w.data_location == TensorProto.EXTERNAL
    assert {e.key: e.value for e in w.external_data} == {
        "location": "placed.bin", "offset": "0", "length": "256"}
    np.testing.assert_allclose(_run(str(out)), _run(weighted_model))


def test_compiler_arguments_are_checked(weighted_model):
    with pytest.raises(ValueError, match="Input model path is empty"):
        ort.ModelCompiler(ort.SessionOptions(), "")
    with pytest.raises(ValueError, match="Input model bytes array is empty"):
        ort.ModelCompiler(ort.SessionOptions(), b"")
    with pytest.raises(TypeError, match="Unable to load from type"):
        ort.ModelCompiler(ort.SessionOptions(), 42)
    with pytest.raises(ValueError, match="both `external_initializers_file_path` and "):
        ort.ModelCompiler(ort.SessionOptions(), weighted_model,
                          external_initializers_file_path="x.bin",
                          get_initializer_location_func=lambda *a: None)
    with pytest.raises(ort.InvalidArgument, match="needs an output path"):
        ort.ModelCompiler(ort.SessionOptions(), b"model").compile_to_file()
    assert issubclass(ModelRequiresCompilation, RuntimeError)
    info = ort.OrtExternalInitializerInfo("a.bin", 8, 16)
    assert (info.filepath, info.file_offset, info.byte_size) == ("a.bin", 8, 16)


def test_initializer_read_only_inside_a_subgraph_is_kept(tmp_path):
    # `data` and `axes` are read by the If's branches alone, never by a node of
    # the main graph; the compiled model must still carry them.
    def branch(out):
        return helper.make_graph(
            [helper.make_node("Unsqueeze", ["data", "axes"], [out])], out, [],
            [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 4])])

    model = make_model(
        [helper.make_node("If", ["cond"], ["y"], then_branch=branch("then_y"),
                          else_branch=branch("else_y"))],
        [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        initializers=[numpy_helper.from_array(np.array([0], np.int64), "axes"),
                      numpy_helper.from_array(np.array([10, 20, 30, 40], np.float32), "data"),
                      numpy_helper.from_array(np.array(True), "cond")])
    path = save(model, tmp_path / "outer_scope.onnx")
    compiled = ort.ModelCompiler(ort.SessionOptions(), path).compile_to_bytes()
    assert {"axes", "data"} <= {t.name for t in onnx.load_from_string(compiled).graph.initializer}
    (y,) = ort.InferenceSession(compiled, providers=CPU).run(None, {})
    np.testing.assert_array_equal(y, [[10, 20, 30, 40]])
