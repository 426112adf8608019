"""LoRA adapters (onnxruntime's AdapterFormat, LoraAdapter and
RunOptions.add_active_adapter): the adapter file written and read back, a
file laid out the way other FlatBuffers writers lay it out, and runs whose
active adapters feed the model's LoRA parameters."""

import struct

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import tessera as ort

CPU = ["CPUExecutionProvider"]
W = np.arange(9, dtype=np.float32).reshape(3, 3)


def lora_model(path):
    """y = x @ W + (x @ A) @ B; A [3, r] and B [r, 3] are inputs whose
    defaults are empty (rank 0), so the base model is y = x @ W."""
    a = numpy_helper.from_array(np.zeros((3, 0), np.float32), "lora_a")
    b = numpy_helper.from_array(np.zeros((0, 3), np.float32), "lora_b")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["base"]),
         helper.make_node("MatMul", ["x", "lora_a"], ["xa"]),
         helper.make_node("MatMul", ["xa", "lora_b"], ["delta"]),
         helper.make_node("Add", ["base", "delta"], ["y"])], "lora",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("lora_a", TensorProto.FLOAT, [3, "r"]),
         helper.make_tensor_value_info("lora_b", TensorProto.FLOAT, ["r", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        initializer=[numpy_helper.from_array(W, "W"), a, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return str(path)


def write_adapter(path, params, adapter_version=1, model_version=1):
    fmt = ort.AdapterFormat()
    fmt.set_adapter_version(adapter_version)
    fmt.set_model_version(model_version)
    fmt.set_parameters({k: ort.OrtValue.ortvalue_from_numpy(v) for k, v in params.items()})
    fmt.export_adapter(str(path))
    return str(path)


X = np.array([[1, 0, 2], [0, 1, 1]], dtype=np.float32)
A = np.array([[1], [2], [3]], dtype=np.float32)
B = np.array([[1, -1, 2]], dtype=np.float32)


def test_export_then_read_round_trips(tmp_path):
    f32 = np.arange(10, dtype=np.float32).reshape(5, 2)
    i64 = np.arange(10, dtype=np.int64).reshape(2, 5) - 4
    f16 = np.array([0.5, -2.0, 65504.0], dtype=np.float16)
    path = write_adapter(tmp_path / "a.onnx_adapter", {"p1": f32, "p2": i64, "p3": f16},
                         adapter_version=3, model_version=7)
    back = ort.AdapterFormat.read_adapter(path)
    assert (back.get_format_version(), back.get_adapter_version(), back.get_model_version()) == (
        1, 3, 7)
    params = back.get_parameters()
    assert sorted(params) == ["p1", "p2", "p3"]
    for name, expected in (("p1", f32), ("p2", i64), ("p3", f16)):
        assert params[name].is_tensor()
        assert params[name].shape() == list(expected.shape)
        assert params[name].numpy().dtype == expected.dtype
        np.testing.assert_array_equal(params[name].numpy(), expected)
    raw = open(path, "rb").read()
    assert raw[4:8] == b"TORT"  # the schema's file identifier


def build_adapter_bytes(params, format_version=1, adapter_version=5, model_version=6,
                        identifier=b"TORT"):
    """An adapter file laid out unlike Tessera's writer: the vtable (shared by
    the root and every parameter table) comes after all tables, so every
    soffset is negative, and the raw data precede the dims."""
    out = bytearray()
    out += struct.pack("<I", 0) + identifier          # root offset, identifier
    root = len(out)
    out += b"\0" * 20                                  # root table
    vec = len(out)
    out += struct.pack("<I", len(params)) + b"\0" * 4 * len(params)
    tables = []
    for _ in params:
        tables.append(len(out))
        out += b"\0" * 20
    vtable = len(out)
    out += struct.pack("<6H", 12, 20, 4, 8, 12, 16)
    payload = []
    for (name, arr), t in zip(params, tables):
        while (len(out) + 4) % 8:
            out.append(0)
        raw_at = len(out)
        out += struct.pack("<I", arr.nbytes) + arr.tobytes()
        while (len(out) + 4) % 8:
            out.append(0)
        dims_at = len(out)
        out += struct.pack("<I", arr.ndim) + struct.pack("<%dq" % arr.ndim, *arr.shape)
        while len(out) % 4:
            out.append(0)
        name_at = len(out)
        out += struct.pack("<I", len(name)) + name.encode() + b"\0"
        payload.append((t, name_at, dims_at, raw_at, arr))
    while len(out) % 8:
        out.append(0)
    struct.pack_into("<I", out, 0, root)
    struct.pack_into("<iiiiI", out, root, root - vtable, format_version, adapter_version,
                     model_version, vec - (root + 16))
    for i, (t, name_at, dims_at, raw_at, arr) in enumerate(payload):
        slot = vec + 4 + 4 * i
        struct.pack_into("<I", out, slot, t - slot)
        dtype = {np.float32: 1, np.int64: 7, np.int32: 6}[arr.dtype.type]
        struct.pack_into("<iIIiI", out, t, t - vtable, name_at - (t + 4), dims_at - (t + 8),
                         dtype, raw_at - (t + 16))
    return bytes(out)


def test_reads_a_buffer_laid_out_by_another_writer(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(3, 2)
    n = np.array([7, -8], dtype=np.int64)
    path = tmp_path / "other.onnx_adapter"
    path.write_bytes(build_adapter_bytes([("lora_a", a), ("n", n)]))
    back = ort.AdapterFormat.read_adapter(str(path))
    assert (back.get_adapter_version(), back.get_model_version()) == (5, 6)
    params = back.get_parameters()
    np.testing.assert_array_equal(params["lora_a"].numpy(), a)
    np.testing.assert_array_equal(params["n"].numpy(), n)


@pytest.mark.parametrize("mutate, message", [
    (lambda b: b[:10], "not a valid LoRA adapter"),
    (lambda b: b[:4] + b"XXXX" + b[8:], 'the file identifier is not "TORT"'),
    (lambda b: b[:3] + b"\x7f" + b[4:], "root points past the end"),
])
def test_malformed_adapters_are_refused(tmp_path, mutate, message):
    good = build_adapter_bytes([("p", np.ones(2, np.float32))])
    path = tmp_path / "bad.onnx_adapter"
    path.write_bytes(mutate(good))
    with pytest.raises(Exception, match=message):
        ort.AdapterFormat.read_adapter(str(path))
    with pytest.raises(Exception, match=message):
        ort.LoraAdapter.create_from_array(mutate(good))


def test_unknown_format_version_is_refused(tmp_path):
    data = build_adapter_bytes([("p", np.ones(2, np.float32))], format_version=2)
    with pytest.raises(Exception, match="LoRA adapter format version 2 is not supported"):
        ort.LoraAdapter.create_from_array(data)


def test_active_adapter_feeds_the_lora_parameters(tmp_path):
    model = lora_model(tmp_path / "lora.onnx")
    path = write_adapter(tmp_path / "a.onnx_adapter", {"lora_a": A, "lora_b": B})
    sess = ort.InferenceSession(model, providers=CPU)
    np.testing.assert_allclose(sess.run(None, {"x": X})[0], X @ W)
    adapter = ort.LoraAdapter()
    adapter.Load(path)
    ro = ort.RunOptions()
    ro.add_active_adapter(adapter)
    np.testing.assert_allclose(sess.run(None, {"x": X}, ro)[0], X @ W + (X @ A) @ B)
    # From bytes too, and the base model again without the adapter.
    ro2 = ort.RunOptions()
    ro2.add_active_adapter(ort.LoraAdapter.create_from_array(open(path, "rb").read()))
    np.testing.assert_allclose(sess.run(None, {"x": X}, ro2)[0], X @ W + (X @ A) @ B)
    np.testing.assert_allclose(sess.run(None, {"x": X})[0], X @ W)


def test_several_adapters_active_in_one_run(tmp_path):
    model = lora_model(tmp_path / "lora.onnx")
    a2 = np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32)
    b2 = np.array([[1, 1, 1], [0, 2, 0]], dtype=np.float32)
    ro = ort.RunOptions()
    ro.add_active_adapter(ort.LoraAdapter.create_from_file(
        write_adapter(tmp_path / "a.onnx_adapter", {"lora_a": a2})))
    ro.add_active_adapter(ort.LoraAdapter.create_from_file(
        write_adapter(tmp_path / "b.onnx_adapter", {"lora_b": b2})))
    sess = ort.InferenceSession(model, providers=CPU)
    np.testing.assert_allclose(sess.run(None, {"x": X}, ro)[0], X @ W + (X @ a2) @ b2)


def test_adapter_applies_to_io_binding_runs(tmp_path):
    model = lora_model(tmp_path / "lora.onnx")
    path = write_adapter(tmp_path / "a.onnx_adapter", {"lora_a": A, "lora_b": B})
    sess = ort.InferenceSession(model, providers=CPU)
    binding = sess.io_binding()
    binding.bind_cpu_input("x", X)
    binding.bind_output("y")
    ro = ort.RunOptions()
    ro.add_active_adapter(ort.LoraAdapter.create_from_file(path))
    sess.run_with_iobinding(binding, ro)
    np.testing.assert_allclose(binding.copy_outputs_to_cpu()[0], X @ W + (X @ A) @ B)


def test_adapter_conflicts_are_errors(tmp_path):
    model = lora_model(tmp_path / "lora.onnx")
    sess = ort.InferenceSession(model, providers=CPU)
    ro = ort.RunOptions()
    ro.add_active_adapter(ort.LoraAdapter.create_from_file(
        write_adapter(tmp_path / "a.onnx_adapter", {"lora_a": A, "lora_b": B})))
    with pytest.raises(Exception, match="LoRA adapter parameter 'lora_a' is also fed"):
        sess.run(None, {"x": X, "lora_a": A}, ro)
    stray = ort.RunOptions()
    stray.add_active_adapter(ort.LoraAdapter.create_from_file(
        write_adapter(tmp_path / "s.onnx_adapter", {"not_there": A})))
    with pytest.raises(Exception, match="LoRA adapter parameter 'not_there' is not an input"):
        sess.run(None, {"x": X}, stray)
    with pytest.raises(Exception, match="the LoraAdapter has not been loaded"):
        ort.RunOptions().add_active_adapter(ort.LoraAdapter())


def test_string_parameters_cannot_be_written(tmp_path):
    fmt = ort.AdapterFormat()
    fmt.set_parameters({"s": ort.OrtValue.ortvalue_from_numpy(np.array(["a"], dtype=object))})
    with pytest.raises(Exception, match="adapter files hold numeric tensors"):
        fmt.export_adapter(str(tmp_path / "s.onnx_adapter"))
