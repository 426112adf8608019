"""Session and process settings as onnxruntime's programs use them (issue #36):
devices and memory infos, shared allocators, global thread pools, options
read from the model (ORT_LOAD_CONFIG_FROM_MODEL), graph assignment info, the
backend's keyword allowlists and the PEP 561 marker."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort
from tessera import _session
from tessera import backend

from conftest import make_model, save

CPU = ["CPUExecutionProvider"]


def test_device_vendor_ids():
    assert int(ort.OrtDeviceVendorId.NVIDIA) == 0x10DE
    assert ort.OrtDevice.make("cpu", 0).device_vendor_id() == ort.OrtDeviceVendorId.NONE
    assert ort.OrtDevice.make("cuda", 0).device_vendor_id() == ort.OrtDeviceVendorId.NVIDIA
    assert ort.OrtDevice.make("dml", 0).device_vendor_id() == ort.OrtDeviceVendorId.MICROSOFT
    assert ort.OrtDevice.make("gpu", 1, ort.OrtDeviceVendorId.AMD).device_vendor_id() == 0x1002


def test_memory_info_device_fields():
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                             ort.OrtMemType.DEFAULT)
    assert info.device_mem_type == ort.OrtDeviceMemoryType.DEFAULT
    assert info.device_vendor_id == 0
    v2 = ort.OrtMemoryInfo.create_v2("Npu", ort.OrtMemoryInfoDeviceType.NPU, 0x5143, 1,
                                     ort.OrtDeviceMemoryType.HOST_ACCESSIBLE, 256,
                                     ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR)
    assert (v2.name, v2.device_id, v2.device_vendor_id, v2.alignment) == ("Npu", 1, 0x5143, 256)
    assert v2.device_mem_type == ort.OrtDeviceMemoryType.HOST_ACCESSIBLE
    assert v2.mem_type == ort.OrtMemType.DEFAULT
    assert int(ort.OrtMemoryInfoDeviceType.FPGA) == 2 and int(ort.OrtMemoryInfoDeviceType.NPU) == 3


def test_session_memory_infos_and_ep_devices(session):
    infos = session.get_input_memory_infos()
    assert len(infos) == len(session.get_inputs()) == 2
    for info in infos:
        assert info.name == "Cpu" and info.device_mem_type == ort.OrtDeviceMemoryType.DEFAULT
    outs = session.get_output_memory_infos()
    assert len(outs) == 2 and all(o.name == "Cpu" for o in outs)
    devices = session.get_input_epdevices()
    assert len(devices) == 2
    assert all(d is None or d.ep_name == "CPUExecutionProvider" for d in devices)


def test_registered_allocator_is_shared_by_sessions_that_ask(tmp_path):
    # In a child process: the arena stays registered for the rest of the process.
    code = textwrap.dedent("""
        import numpy as np
        from onnx import TensorProto, helper
        import tessera as ort
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 256])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 256])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
        info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                                 ort.OrtMemType.DEFAULT)
        ort.create_and_register_allocator(info, ort.OrtArenaCfg({"max_mem": 4096}))
        x = np.ones((256, 256), np.float32)
        for flag in ("0", "1"):
            so = ort.SessionOptions()
            so.add_session_config_entry("session.use_env_allocators", flag)
            try:
                ort.InferenceSession(m, so, providers=["CPUExecutionProvider"]).run(None, {"x": x})
                print(flag, "ran")
            except RuntimeError as e:
                print(flag, "failed:", e)
    """)
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "0 ran"
    assert lines[1].startswith("1 failed:") and "exceeds the memory limit" in lines[1]


def test_create_and_register_allocator_checks_its_arguments():
    with pytest.raises(TypeError, match="must be an OrtMemoryInfo"):
        ort.create_and_register_allocator("Cpu", None)
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                             ort.OrtMemType.DEFAULT)
    with pytest.raises(TypeError, match="must be an OrtArenaCfg"):
        ort.create_and_register_allocator(info, {"max_mem": 1})


def _threads():
    return len(os.listdir("/proc/self/task"))


def test_global_thread_pools_are_shared_by_sessions_without_their_own(monkeypatch,
                                                                       add_mul_model):
    monkeypatch.setattr(_session, "_global_thread_pools", False)
    ort.set_global_thread_pool_sizes(2, 1)
    own = ort.SessionOptions()
    with pytest.raises(RuntimeError,
                       match="use_per_session_threads must be false when using a global thread"):
        ort.InferenceSession(add_mul_model, own, providers=CPU)
    shared = ort.SessionOptions()
    shared.use_per_session_threads = False
    assert shared.use_per_session_threads is False
    before = _threads()
    sessions = [ort.InferenceSession(add_mul_model, shared, providers=CPU) for _ in range(4)]
    # Four sessions on the global pools start no threads of their own.
    assert _threads() == before
    x = np.ones((1, 3), np.float32)
    for sess in sessions:
        np.testing.assert_array_equal(sess.run(["sum"], {"x": x, "y": x})[0], [[2, 2, 2]])
    monkeypatch.setattr(_session, "_global_thread_pools", False)
    own.intra_op_num_threads = 2
    owning = [ort.InferenceSession(add_mul_model, own, providers=CPU) for _ in range(4)]
    # A session with its own two-thread pool has one worker besides the caller.
    assert _threads() == before + len(owning)
    with pytest.raises(ort.InvalidArgument, match="thread pool sizes must be >= 0"):
        ort.set_global_thread_pool_sizes(-1, 0)


def _model_with_config(tmp_path, config):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    helper.set_model_props(model, {"ort_config": config, "other": "kept"})
    return save(model, tmp_path / "configured.onnx")


def test_session_options_from_the_model(monkeypatch, tmp_path):
    path = _model_with_config(tmp_path, json.dumps({"session_options": {
        "intra_op_num_threads": 3, "inter_op_num_threads": 4, "graph_optimization_level": 1,
        "execution_mode": 1, "unknown_key": 7}}))
    mine = ort.SessionOptions()
    mine.logid = "mine"
    # Without the variable, the model's config is ignored.
    monkeypatch.delenv("ORT_LOAD_CONFIG_FROM_MODEL", raising=False)
    plain = ort.InferenceSession(path, mine, providers=CPU).get_session_options()
    assert plain.intra_op_num_threads == 0
    monkeypatch.setenv("ORT_LOAD_CONFIG_FROM_MODEL", "1")
    sess = ort.InferenceSession(path, mine, providers=CPU)
    got = sess.get_session_options()
    assert (got.intra_op_num_threads, got.inter_op_num_threads) == (3, 4)
    assert got.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    assert got.execution_mode == ort.ExecutionMode.ORT_PARALLEL
    assert got.logid == "mine"  # what the model does not set stays the caller's
    assert mine.intra_op_num_threads == 0  # the caller's object is not changed
    np.testing.assert_array_equal(sess.run(None, {"x": np.array([-1, 2], np.float32)})[0], [0, 2])


def test_bad_model_config_is_reported(monkeypatch, tmp_path):
    monkeypatch.setenv("ORT_LOAD_CONFIG_FROM_MODEL", "1")
    bad_value = _model_with_config(tmp_path, '{"session_options": {"execution_mode": 5}}')
    with pytest.raises(ort.InvalidArgument, match="Unsupported execution_mode value in ORT config"):
        ort.InferenceSession(bad_value, providers=CPU)
    not_int = _model_with_config(tmp_path, '{"session_options": {"intra_op_num_threads": "2"}}')
    with pytest.raises(ort.InvalidArgument, match="intra_op_num_threads option in the model file "
                                                  "must be an integer"):
        ort.InferenceSession(not_int, providers=CPU)
    not_json = _model_with_config(tmp_path, "{oops")
    with pytest.raises(ort.Fail, match="cannot be parsed"):
        ort.InferenceSession(not_json, providers=CPU)


def test_graph_assignment_info(add_mul_model):
    so = ort.SessionOptions()
    so.add_session_config_entry("session.record_ep_graph_assignment_info", "1")
    sess = ort.InferenceSession(add_mul_model, so, providers=CPU)
    parts = sess.get_provider_graph_assignment_info()
    assert [p.ep_name for p in parts] == ["CPUExecutionProvider"] * 2
    ids = sorted("%s:%s/%s" % (n.domain, n.op_type, n.name) for p in parts for n in p.get_nodes())
    assert ids == [":Add/add", ":Mul/mul"]
    plain = ort.InferenceSession(add_mul_model, providers=CPU)
    with pytest.raises(ort.Fail, match="'session.record_ep_graph_assignment_info' must be set"):
        plain.get_provider_graph_assignment_info()


def test_backend_keywords_are_allowlisted(add_mul_model, tmp_path):
    target = tmp_path / "written.onnx"
    with pytest.raises(RuntimeError, match="'optimized_model_filepath' is not permitted"):
        backend.prepare(add_mul_model, optimized_model_filepath=str(target))
    assert not target.exists()
    with pytest.raises(RuntimeError, match="'enable_profiling' is not permitted"):
        backend.prepare(add_mul_model, enable_profiling=True)
    rep = backend.prepare(add_mul_model, intra_op_num_threads=1, not_an_option=3)
    x = np.ones((1, 3), np.float32)
    with pytest.raises(RuntimeError, match="RunOptions attribute 'terminate' is not permitted"):
        rep.run([x, x], terminate=True)
    out = rep.run([x, x], logid="ok", also_not_an_option=1)
    np.testing.assert_array_equal(out[0], [[2, 2, 2]])


def test_package_has_the_pep561_marker():
    assert os.path.isfile(os.path.join(os.path.dirname(ort.__file__), "py.typed"))
