"""InferenceSession: loading, running, metadata, providers, profiling."""

import json
import os
import pathlib
import sys

import numpy as np
import pytest

import tessera as ort

X = np.arange(6, dtype=np.float32).reshape(2, 3)
Y = np.full((2, 3), 10, dtype=np.float32)
W = np.array([1, 2, 3], dtype=np.float32)


def test_run_all_outputs(session):
    out = session.run(None, {"x": X, "y": Y})
    assert len(out) == 2
    np.testing.assert_array_equal(out[0], X + Y)
    np.testing.assert_array_equal(out[1], X * W)
    assert out[0].dtype == np.float32 and out[0].shape == (2, 3)


def test_run_selected_outputs_in_requested_order(session):
    prod, total = session.run(["prod", "sum"], {"x": X, "y": Y})
    np.testing.assert_array_equal(prod, X * W)
    np.testing.assert_array_equal(total, X + Y)
    assert len(session.run([], {"x": X, "y": Y})) == 2  # empty list means all, like None


def test_outputs_are_independent_writable_arrays(session):
    a = session.run(["sum"], {"x": X, "y": Y})[0]
    a[...] = -1
    b = session.run(["sum"], {"x": X, "y": Y})[0]
    np.testing.assert_array_equal(b, X + Y)


def test_plain_python_feeds_take_the_input_type(session):
    out = session.run(["sum"], {"x": [[1, 2, 3]], "y": [[1.5, 1.5, 1.5]]})[0]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[2.5, 3.5, 4.5]])


def test_overridable_initializer_can_be_fed(session):
    prod = session.run(["prod"], {"x": X, "y": Y, "w": np.array([0, 1, 0], np.float32)})[0]
    np.testing.assert_array_equal(prod, X * [0, 1, 0])


def test_inputs_outputs_and_overridable_initializers(session):
    inputs = session.get_inputs()
    assert [i.name for i in inputs] == ["x", "y"]
    assert inputs[0].shape == ["N", 3]
    assert inputs[0].type == "tensor(float)"
    outputs = session.get_outputs()
    assert [o.name for o in outputs] == ["sum", "prod"]
    assert outputs[1].type == "tensor(float)"
    assert outputs[1].shape == ["N", 3]
    over = session.get_overridable_initializers()
    assert [(o.name, o.shape, o.type) for o in over] == [("w", [3], "tensor(float)")]
    assert "name='x'" in str(inputs[0]) and "tensor(float)" in repr(inputs[0])


def test_unknown_dims_are_none(tmp_path):
    from onnx import TensorProto, helper

    from conftest import make_model, save
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 2])
    path = save(make_model([helper.make_node("Neg", ["x"], ["y"])], [x], [y]),
                tmp_path / "neg.onnx")
    s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert s.get_inputs()[0].shape == [None, 2]


def test_modelmeta(session):
    meta = session.get_modelmeta()
    assert meta.producer_name == "tessera-tests"
    assert meta.producer_version == "1.2"
    assert meta.graph_name == "add_mul"
    assert meta.graph_description == "the graph"
    assert meta.domain == "ai.tessera.test"
    assert meta.description == "adds and multiplies"
    assert meta.version == 7
    assert meta.custom_metadata_map == {"author": "tests", "purpose": "metadata"}


def test_load_from_bytes_and_pathlib(add_mul_model):
    data = pathlib.Path(add_mul_model).read_bytes()
    for source in (data, bytearray(data), pathlib.Path(add_mul_model)):
        s = ort.InferenceSession(source, providers=["CPUExecutionProvider"])
        np.testing.assert_array_equal(s.run(["sum"], {"x": X, "y": Y})[0], X + Y)


def test_default_providers_is_cpu(add_mul_model):
    s = ort.InferenceSession(add_mul_model)
    assert s.get_providers() == ["CPUExecutionProvider"]


def test_providers_forms(add_mul_model):
    for providers, options in ((["CPUExecutionProvider"], None),
                               ([("CPUExecutionProvider", {})], None),
                               (["CPUExecutionProvider"], [{}]),
                               ("CPUExecutionProvider", None)):
        s = ort.InferenceSession(add_mul_model, providers=providers, provider_options=options)
        assert s.get_providers() == ["CPUExecutionProvider"]
        # The provider's options in effect: its defaults.
        assert s.get_provider_options() == {
            "CPUExecutionProvider": {"matmul_nbits_float_weights": "0"}}
    with pytest.raises(ValueError, match="same length"):
        ort.InferenceSession(add_mul_model, providers=["CPUExecutionProvider"],
                             provider_options=[{}, {}])
    with pytest.raises(ValueError, match="name or a"):
        ort.InferenceSession(add_mul_model, providers=[42])


def test_unavailable_onnxruntime_provider_falls_back_with_a_warning(add_mul_model):
    # An onnxruntime provider this machine cannot run: not built, or (CUDA)
    # built for a GPU that is not there.
    name = next(n for n in ("CUDAExecutionProvider", "ROCMExecutionProvider")
                if n not in ort.get_available_providers())
    with pytest.warns(RuntimeWarning, match=name):
        s = ort.InferenceSession(add_mul_model,
                                 providers=[(name, {"device_id": 0}), "CPUExecutionProvider"])
    assert s.get_providers() == ["CPUExecutionProvider"]


def test_unavailable_provider_with_error_on_failure_raises(add_mul_model):
    name = next(n for n in ("CUDAExecutionProvider", "ROCMExecutionProvider")
                if n not in ort.get_available_providers())
    with pytest.raises(Exception, match=name):
        ort.InferenceSession(add_mul_model,
                             providers=[(name, {"error_on_failure": 1}), "CPUExecutionProvider"])


def test_set_providers_recreates(session):
    session.set_providers(["CPUExecutionProvider"], [{}])
    assert session.get_providers() == ["CPUExecutionProvider"]
    np.testing.assert_array_equal(session.run(["sum"], {"x": X, "y": Y})[0], X + Y)


def test_session_options_are_applied(add_mul_model, tmp_path):
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 2
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    used = s.get_session_options()
    assert used is not so  # a snapshot, like onnxruntime's
    assert used.graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    assert used.intra_op_num_threads == 2
    assert os.path.getsize(so.optimized_model_filepath) > 0
    again = ort.InferenceSession(so.optimized_model_filepath, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(again.run(["sum"], {"x": X, "y": Y})[0], X + Y)


def test_free_dimension_override_by_name(add_mul_model):
    so = ort.SessionOptions()
    so.add_free_dimension_override_by_name("N", 2)
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    assert s.get_inputs()[0].shape == [2, 3]
    np.testing.assert_array_equal(s.run(["sum"], {"x": X, "y": Y})[0], X + Y)
    with pytest.raises(ort.InvalidArgument, match="expects shape"):
        s.run(["sum"], {"x": X[:1], "y": Y[:1]})


def test_add_initializer_overrides_the_graph_initializer(add_mul_model):
    so = ort.SessionOptions()
    w = np.array([5, 6, 7], dtype=np.float32)
    so.add_initializer("w", ort.OrtValue.ortvalue_from_numpy(w))
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(s.run(["prod"], {"x": X, "y": Y})[0], X * w)


def test_add_initializer_checks_name_and_type(add_mul_model):
    so = ort.SessionOptions()
    so.add_initializer("nope", ort.OrtValue.ortvalue_from_numpy(W))
    with pytest.raises(ort.InvalidArgument, match="'nope' is not an initializer"):
        ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    so = ort.SessionOptions()
    so.add_initializer("w", ort.OrtValue.ortvalue_from_numpy(np.zeros(3, np.int64)))
    with pytest.raises(ort.InvalidArgument, match="'w' is float\\[3\\]"):
        ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])


def test_profiling_writes_a_chrome_trace(add_mul_model, tmp_path):
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    s = ort.InferenceSession(add_mul_model, so, providers=["CPUExecutionProvider"])
    start = s.get_profiling_start_time_ns()
    assert start > 1_600_000_000 * 10**9  # nanoseconds since the epoch
    s.run(None, {"x": X, "y": Y})
    path = s.end_profiling()
    assert path.startswith(str(tmp_path / "prof")) and path.endswith(".json")
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    assert any("add" in json.dumps(e) for e in events)


def test_end_profiling_without_profiling_is_empty(session):
    assert session.end_profiling() == ""


def test_run_options_are_accepted(session):
    ro = ort.RunOptions()
    ro.logid = "run-1"
    ro.log_severity_level = 3
    ro.add_run_config_entry("key", "value")
    out = session.run(["sum"], {"x": X, "y": Y}, ro)[0]
    np.testing.assert_array_equal(out, X + Y)


def test_terminate_stops_the_run(session):
    ro = ort.RunOptions()
    ro.terminate = True
    with pytest.raises(ort.Fail, match="terminated"):
        session.run(None, {"x": X, "y": Y}, ro)
    ro.terminate = False
    assert len(session.run(None, {"x": X, "y": Y}, ro)) == 2


def test_run_with_ort_values(session):
    feeds = {"x": ort.OrtValue.ortvalue_from_numpy(X), "y": ort.OrtValue.ortvalue_from_numpy(Y)}
    out = session.run_with_ort_values(["sum"], feeds)
    assert len(out) == 1 and isinstance(out[0], ort.OrtValue)
    np.testing.assert_array_equal(out[0].numpy(), X + Y)
    mixed = session.run(None, {"x": feeds["x"], "y": Y})  # OrtValues also work in run()
    np.testing.assert_array_equal(mixed[1], X * W)


def test_node_assignments_name_the_provider(session):
    assignments = session.get_node_assignments()
    assert {a[1] for a in assignments} == {"Add", "Mul"}
    assert all(a[3] == "CPUExecutionProvider" for a in assignments)


def test_run_capture_is_off_without_a_provider_asking(session):
    x = np.ones((2, 3), dtype=np.float32)
    feeds = {i.name: x for i in session.get_inputs()}
    session.run(None, feeds)
    session.run(None, feeds)
    capture = session.get_run_capture()
    assert capture == {"status": "off", "warmups": 0, "captures": 0, "replays": 0,
                       "failures": 0, "uncaptured": 0}


def test_outputs_never_alias_feeds_or_weights(identity, tmp_path):
    from onnx import TensorProto, helper, numpy_helper

    from conftest import make_model, save
    s = ort.InferenceSession(identity(TensorProto.FLOAT, [4]), providers=["CPUExecutionProvider"])
    x = np.arange(4, dtype=np.float32)
    y = s.run(None, {"x": x})[0]
    assert not np.shares_memory(x, y)
    y[:] = -1
    assert x.tolist() == [0, 1, 2, 3]

    c = numpy_helper.from_array(np.array([1, 2], np.int64), "c")
    model = make_model([helper.make_node("Identity", ["c"], ["out"])], [],
                       [helper.make_tensor_value_info("out", TensorProto.INT64, [2])],
                       initializers=[c])
    s = ort.InferenceSession(save(model, tmp_path / "const.onnx"),
                             providers=["CPUExecutionProvider"])
    out = s.run(None, {})[0]
    out[:] = 0
    assert s.run(None, {})[0].tolist() == [1, 2]


def test_free_dimension_override_by_denotation(tmp_path):
    from conftest import make_model, save
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])
    x.type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"  # no dim_param: only the denotation
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], [x], [y])
    path = save(model, tmp_path / "denoted.onnx")
    so = ort.SessionOptions()
    so.add_free_dimension_override_by_denotation("DATA_BATCH", 2)
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    assert s.get_inputs()[0].shape == [2, 3]
    np.testing.assert_array_equal(s.run(None, {"x": -X})[0], np.zeros_like(X))
    with pytest.raises(ort.InvalidArgument, match="expects shape"):
        s.run(None, {"x": X[:1]})
    from_bytes = ort.InferenceSession(open(path, "rb").read(), so,
                                      providers=["CPUExecutionProvider"])
    assert from_bytes.get_inputs()[0].shape == [2, 3]
    plain = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    assert plain.get_inputs()[0].shape == [None, 3]


def test_free_dimension_override_by_denotation_needs_no_onnx_package(tmp_path, monkeypatch):
    """The native reader reads Dimension.denotation: the override works with
    the onnx package unimportable, on a dim with both a dim_param and a
    denotation, leaves a fixed dim of an overridden denotation as it is, and
    applies to models given as bytes too."""
    from conftest import make_model, save
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    x.type.tensor_type.shape.dim[0].denotation = "DATA_BATCH"
    x.type.tensor_type.shape.dim[1].denotation = "DATA_CHANNEL"
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
    path = save(make_model([helper.make_node("Relu", ["x"], ["y"])], [x], [y]),
                tmp_path / "denoted_param.onnx")
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError):
        import onnx  # noqa: F401
    so = ort.SessionOptions()
    so.add_free_dimension_override_by_denotation("DATA_BATCH", 4)
    so.add_free_dimension_override_by_denotation("DATA_CHANNEL", 9)
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    assert s.get_inputs()[0].shape == [4, 3]
    out = s.run(None, {"x": np.ones((4, 3), np.float32)})[0]
    assert out.shape == (4, 3)
    with pytest.raises(ort.InvalidArgument, match="expects shape"):
        s.run(None, {"x": np.ones((2, 3), np.float32)})
    from_bytes = ort.InferenceSession(open(path, "rb").read(), so, providers=["CPUExecutionProvider"])
    assert from_bytes.get_inputs()[0].shape == [4, 3]
