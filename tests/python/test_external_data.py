"""External data an application supplies (onnxruntime's
add_external_initializers and add_external_initializers_from_files_in_memory)
and models symlinked together with their data from a blob store."""

import os

import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort

CPU = ["CPUExecutionProvider"]


def pad_model_with_external_pads(path, location="pads_absent.bin"):
    """Y = Pad(X, pads) with 'pads' (int64 [4]) stored in `location`, a file
    that is not written."""
    pads = TensorProto(name="pads", data_type=TensorProto.INT64, dims=[4])
    pads.data_location = TensorProto.EXTERNAL
    entry = pads.external_data.add()
    entry.key, entry.value = "location", location
    graph = helper.make_graph(
        [helper.make_node("Pad", ["X", "pads"], ["Y"], mode="constant")], "pad",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)], initializer=[pads])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return str(path)


X = np.array([[1.0, 2.0]], dtype=np.float32)


def test_handed_in_initializer_replaces_data_whose_file_is_absent(tmp_path):
    path = pad_model_with_external_pads(tmp_path / "pad.onnx")
    so = ort.SessionOptions()
    so.add_external_initializers(
        ["pads"], [ort.OrtValue.ortvalue_from_numpy(np.array([0, 1, 0, 2], np.int64))])
    sess = ort.InferenceSession(path, sess_options=so, providers=CPU)
    np.testing.assert_array_equal(sess.run(None, {"X": X})[0], [[0, 1, 2, 0, 0]])


def test_absent_file_without_handed_in_data_is_an_error(tmp_path):
    path = pad_model_with_external_pads(tmp_path / "pad.onnx")
    with pytest.raises(Exception, match="pads_absent.bin"):
        ort.InferenceSession(path, providers=CPU)


def test_handed_in_initializer_of_another_shape_is_refused(tmp_path):
    path = pad_model_with_external_pads(tmp_path / "pad.onnx")
    so = ort.SessionOptions()
    so.add_external_initializers(
        ["pads"], [ort.OrtValue.ortvalue_from_numpy(np.array([0, 1], np.int64))])
    with pytest.raises(Exception, match=r"initializer 'pads' is int64\[4\] in the model but "
                                        r"the tensor handed in for it is int64\[2\]"):
        ort.InferenceSession(path, sess_options=so, providers=CPU)


@pytest.mark.parametrize("from_bytes", [False, True])
def test_data_files_handed_in_memory(tmp_path, from_bytes):
    path = pad_model_with_external_pads(tmp_path / "pad.onnx")
    data = np.array([1, 0, 0, 1], dtype=np.int64).tobytes()
    so = ort.SessionOptions()
    so.add_external_initializers_from_files_in_memory(["pads_absent.bin"], [data], [len(data)])
    model = open(path, "rb").read() if from_bytes else path
    sess = ort.InferenceSession(model, sess_options=so, providers=CPU)
    np.testing.assert_array_equal(sess.run(None, {"X": X})[0], [[0, 0, 0], [1, 2, 0]])


def test_data_file_in_memory_shorter_than_the_tensor_is_refused(tmp_path):
    path = pad_model_with_external_pads(tmp_path / "pad.onnx")
    data = np.array([1, 0, 0, 1], dtype=np.int64).tobytes()
    so = ort.SessionOptions()
    so.add_external_initializers_from_files_in_memory(["pads_absent.bin"], [data], [16])
    with pytest.raises(Exception, match="holds 16 bytes from offset 0, the dims need 32"):
        ort.InferenceSession(path, sess_options=so, providers=CPU)


def test_files_in_memory_arguments_must_match(tmp_path):
    so = ort.SessionOptions()
    with pytest.raises(Exception, match="1 names, 2 buffers and 1 lengths"):
        so.add_external_initializers_from_files_in_memory(["a"], [b"x", b"y"], [1])
    with pytest.raises(Exception, match="'a' is given length 5 but its buffer holds 1 bytes"):
        so.add_external_initializers_from_files_in_memory(["a"], [b"x"], [5])


def add_model_with_external_constant(path, location="data.bin"):
    """output = input + c, c a Constant whose float [4] value is in `location`."""
    value = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=[4])
    value.data_location = TensorProto.EXTERNAL
    entry = value.external_data.add()
    entry.key, entry.value = "location", location
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["c_out"], value=value),
         helper.make_node("Add", ["input", "c_out"], ["output"])], "add",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with open(path, "wb") as f:
        f.write(model.SerializeToString())


@pytest.mark.parametrize("data_sub", ["", "sub"])
def test_model_and_data_symlinked_from_one_store(tmp_path, data_sub):
    blobs = tmp_path / "blobs"
    (blobs / data_sub).mkdir(parents=True, exist_ok=True)
    snapshot = tmp_path / "snapshots" / "v1"
    snapshot.mkdir(parents=True)
    add_model_with_external_constant(blobs / "model_blob")
    (blobs / data_sub / "data_blob").write_bytes(np.array([1, 2, 3, 4], np.float32).tobytes())
    os.symlink(blobs / "model_blob", snapshot / "model.onnx")
    os.symlink(blobs / data_sub / "data_blob", snapshot / "data.bin")
    sess = ort.InferenceSession(str(snapshot / "model.onnx"), providers=CPU)
    np.testing.assert_array_equal(sess.run(None, {"input": np.ones(4, np.float32)})[0],
                                  [2, 3, 4, 5])


def test_symlinked_data_outside_both_folders_is_refused(tmp_path):
    (tmp_path / "model").mkdir()
    (tmp_path / "data").mkdir()
    snapshot = tmp_path / "snapshots" / "v1"
    snapshot.mkdir(parents=True)
    add_model_with_external_constant(tmp_path / "model" / "model_blob")
    (tmp_path / "data" / "data_blob").write_bytes(np.zeros(4, np.float32).tobytes())
    os.symlink(tmp_path / "model" / "model_blob", snapshot / "model.onnx")
    os.symlink(tmp_path / "data" / "data_blob", snapshot / "data.bin")
    with pytest.raises(Exception, match="External data path validation failed for tensor 'c'"):
        ort.InferenceSession(str(snapshot / "model.onnx"), providers=CPU)
