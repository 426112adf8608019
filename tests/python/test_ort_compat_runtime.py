"""Runtime behaviour onnxruntime programs rely on (issue #36): each
provider's options in effect, optimized models with external initializers,
and profile events with every trace field."""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import tessera as ort

from conftest import make_model, save

CPU = ["CPUExecutionProvider"]


def test_provider_options_include_defaults(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    assert sess.get_provider_options() == {
        "CPUExecutionProvider": {"matmul_nbits_float_weights": "0"}}
    sess.set_providers([("CPUExecutionProvider", {"matmul_nbits_float_weights": True})])
    assert sess.get_provider_options()["CPUExecutionProvider"] == {
        "matmul_nbits_float_weights": "1"}
    if "DnnlExecutionProvider" in ort.get_available_providers():
        sess.set_providers([("DnnlExecutionProvider", {"num_threads": 2})])
        assert sess.get_provider_options()["DnnlExecutionProvider"] == {
            "num_threads": "2", "enable_bf16": "0", "conv_post_ops": "separate"}


def test_optimized_model_external_initializers(tmp_path):
    big = numpy_helper.from_array(np.arange(512, dtype=np.float32), "big")  # 2048 bytes
    small = numpy_helper.from_array(np.arange(4, dtype=np.float32), "small")  # 16 bytes
    model = make_model(
        [helper.make_node("Add", ["x", "big"], ["a"]),
         helper.make_node("Slice", ["a", "starts", "ends"], ["b"]),
         helper.make_node("Add", ["b", "small"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [512])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        initializers=[big, small, numpy_helper.from_array(np.array([0], np.int64), "starts"),
                      numpy_helper.from_array(np.array([4], np.int64), "ends")])
    path = save(model, tmp_path / "m.onnx")
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.optimized_model_filepath = str(tmp_path / "opt.onnx")
    so.add_session_config_entry("session.optimized_model_external_initializers_file_name",
                                "opt.data")
    so.add_session_config_entry(
        "session.optimized_model_external_initializers_min_size_in_bytes", "100")
    ort.InferenceSession(path, so, providers=CPU)
    assert os.path.getsize(tmp_path / "opt.data") >= 2048
    saved = onnx.load(str(tmp_path / "opt.onnx"), load_external_data=False)
    where = {t.name: t.data_location for t in saved.graph.initializer}
    assert where["big"] == TensorProto.EXTERNAL and where["small"] == TensorProto.DEFAULT
    location = {e.key: e.value for e in next(t for t in saved.graph.initializer
                                             if t.name == "big").external_data}
    assert location["location"] == "opt.data" and location["length"] == "2048"
    x = np.ones(512, np.float32)
    sess = ort.InferenceSession(str(tmp_path / "opt.onnx"), providers=CPU)
    np.testing.assert_array_equal(sess.run(None, {"x": x})[0], [1, 3, 5, 7])
    full = onnx.load(str(tmp_path / "opt.onnx"))  # onnx reads the external file too
    big_back = next(t for t in full.graph.initializer if t.name == "big")
    np.testing.assert_array_equal(numpy_helper.to_array(big_back), np.arange(512))


def test_every_profile_event_has_the_trace_fields(add_mul_model, tmp_path):
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    sess = ort.InferenceSession(add_mul_model, so, providers=CPU)
    x = np.ones((2, 3), np.float32)
    sess.run(None, {"x": x, "y": x})
    with open(sess.end_profiling()) as f:
        events = json.load(f)
    assert events
    for e in events:
        assert {"pid", "tid", "dur", "ts", "ph", "name", "args"} <= set(e), e
    assert {e["pid"] for e in events} == {os.getpid()}
    # onnxruntime writes complete events only; counters are opt-in.
    assert {e["ph"] for e in events} == {"X"}


def test_memory_counters_in_the_profile_on_request(add_mul_model, tmp_path):
    so = ort.SessionOptions()
    so.enable_profiling = True
    so.profile_file_prefix = str(tmp_path / "prof")
    so.add_session_config_entry("session.profile_memory_counters", "1")
    sess = ort.InferenceSession(add_mul_model, so, providers=CPU)
    x = np.ones((2, 3), np.float32)
    sess.run(None, {"x": x, "y": x})
    with open(sess.end_profiling()) as f:
        events = json.load(f)
    counters = [e for e in events if e["ph"] == "C"]
    assert [e["name"] for e in counters] == ["memory CPUExecutionProvider"]
    assert {"in_use", "peak", "reserved", "num_allocs"} <= set(counters[0]["args"])
