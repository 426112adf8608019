"""Names onnxruntime programs import (issue #36, item 1): OrtValueVector,
capi._pybind_state, OrtDevice, SessionIOBinding, tessera.backend,
tessera.datasets, check_and_normalize_provider_args, the memory classes and
enums, and the sparse / LoRA classes."""

import os
import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import tessera as ort
from tessera.capi import _pybind_state as C
from tessera.capi.onnxruntime_inference_collection import check_and_normalize_provider_args

from conftest import make_model, save

CPU = ["CPUExecutionProvider"]


# -- OrtValueVector and the runs that use it ---------------------------------------


def test_ortvaluevector_holds_ortvalues():
    v = C.OrtValueVector()
    a = ort.OrtValue.ortvalue_from_numpy(np.arange(3, dtype=np.float32))
    v.push_back(a)
    v.push_back(np.array([True, False]).view(np.uint8), True)  # a DLPack producer, as bool
    assert len(v) == 2
    assert v[0] is a
    assert v.element_type_at(0) == TensorProto.FLOAT
    assert v.element_type_at(1) == TensorProto.BOOL
    assert v.bool_tensor_indices() == [1]
    assert [x.data_type() for x in v] == ["tensor(float)", "tensor(bool)"]
    np.testing.assert_array_equal(np.from_dlpack(ort.OrtValue.from_dlpack(v.dlpack_at(0))),
                                  [0, 1, 2])


def test_run_with_ortvaluevector(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    x = np.ones((2, 3), np.float32)
    feeds = ort.OrtValueVector()
    feeds.push_back(ort.OrtValue.ortvalue_from_numpy(x))
    feeds.push_back(ort.OrtValue.ortvalue_from_numpy(2 * x))
    fetches = ort.OrtValueVector()
    fetches.push_back(ort.OrtValue.ortvalue_from_numpy(x))  # replaced by the run
    cpu = C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0)
    sess.run_with_ortvaluevector(ort.RunOptions(), ["x", "y"], feeds, ["prod", "sum"], fetches,
                                 [cpu, cpu])
    assert len(fetches) == 2
    np.testing.assert_array_equal(fetches[0].numpy(), x * [1, 2, 3])
    np.testing.assert_array_equal(fetches[1].numpy(), 3 * x)


def test_run_with_ort_values_returns_a_list_of_ortvalues(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    x = ort.OrtValue.ortvalue_from_numpy(np.ones((1, 3), np.float32))
    out = sess.run_with_ort_values(["sum"], {"x": x, "y": x})
    assert type(out) is list and isinstance(out[0], ort.OrtValue)
    np.testing.assert_array_equal(out[0].numpy(), [[2, 2, 2]])


# -- capi ------------------------------------------------------------------------


def test_pybind_state_exposes_the_usual_names():
    for name in ["InferenceSession", "SessionOptions", "RunOptions", "OrtValue", "OrtValueVector",
                 "OrtDevice", "SessionIOBinding", "SparseTensor", "OrtMemoryInfo", "OrtArenaCfg",
                 "OrtAllocatorType", "OrtMemType", "OrtSparseFormat", "ModelMetadata", "NodeArg",
                 "GraphOptimizationLevel", "ExecutionMode", "get_available_providers",
                 "get_all_providers", "get_device", "get_build_info", "set_default_logger_severity",
                 "is_dlpack_uint8_tensor", "InvalidArgument", "NotImplemented", "Fail",
                 "AdapterFormat", "LoraAdapter", "OrtCompiledModelCompatibility"]:
        assert hasattr(C, name), name
    from tessera.capi.onnxruntime_pybind11_state import OrtDevice, OrtValueVector  # noqa: F401


def test_ortdevice():
    d = C.OrtDevice(C.OrtDevice.cuda(), C.OrtDevice.default_memory(), 3)
    assert (d.device_type(), d.device_mem_type(), d.device_id()) == (1, 0, 3)
    assert (C.OrtDevice.cpu(), C.OrtDevice.fpga(), C.OrtDevice.npu()) == (0, 2, 3)
    v = C.OrtDevice(C.OrtDevice.gpu(), C.OrtDevice.default_memory(), 0x10DE, 1)
    assert (v.device_vendor_id(), v.device_id()) == (0x10DE, 1)
    made = ort.OrtDevice.make("cpu", 0)
    assert made.device_type() == C.OrtDevice.cpu()
    assert made._get_c_device() == C.OrtDevice(0, 0, 0)
    with pytest.raises(Exception, match="Unsupported device type: tpu"):
        ort.OrtDevice.make("tpu", 0)


def test_session_iobinding(add_mul_model):
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    b = C.SessionIOBinding(sess._sess)
    x = np.ones((2, 3), np.float32)
    b.bind_input("x", ort.OrtValue.ortvalue_from_numpy(x))
    b.bind_input("y", x)
    b.bind_output("sum", C.OrtDevice(C.OrtDevice.cpu(), C.OrtDevice.default_memory(), 0))
    sess.run_with_iobinding(b)
    out = b.get_outputs()
    assert isinstance(out, C.OrtValueVector) and len(out) == 1
    np.testing.assert_array_equal(out[0].numpy(), 2 * x)
    np.testing.assert_array_equal(b.copy_outputs_to_cpu()[0], 2 * x)


def test_check_and_normalize_provider_args():
    avail = ["CPUExecutionProvider"]
    assert check_and_normalize_provider_args(None, None, avail) == ([], [])
    names, opts = check_and_normalize_provider_args(
        ["CPUExecutionProvider", ("CPUExecutionProvider", {"a": 1})], None, avail)
    assert names == ["CPUExecutionProvider"] and opts == [{}]  # the duplicate is dropped
    names, opts = check_and_normalize_provider_args([("X", {1: True})], None, avail)
    assert names == ["X"] and opts == [{"1": "True"}]
    names, opts = check_and_normalize_provider_args(["A", "B"], [{"k": 2}, {}], avail)
    assert (names, opts) == (["A", "B"], [{"k": "2"}, {}])
    with pytest.warns(UserWarning, match="Specified provider 'X' is not in available provider "
                                         "names.Available providers: 'CPUExecutionProvider'"):
        check_and_normalize_provider_args(["X"], None, avail)
    with pytest.warns(UserWarning, match="Duplicate provider 'A' encountered, ignoring."):
        check_and_normalize_provider_args(["A", "A"], None, ["A"])
    cases = [
        (("A",), 5, "'provider_options' should be a sequence."),
        ({"A"}, None, "'providers' should be a sequence."),
        (["A"], [{}, {}], "'providers' and 'provider_options' should be the same length if both "
                          "are given."),
        ([("A", {})], [{}], "Only string values for 'providers' are supported if "
                            "'provider_options' is given."),
        (["A"], ["x"], "'provider_options' values must be dicts."),
        ([("A", "x")], None, r"'providers' values must be either strings or \(string, dict\) "
                             "tuples."),
    ]
    for providers, options, message in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match=message):
                check_and_normalize_provider_args(providers, options, ["A"])


# -- backend and datasets --------------------------------------------------------------


def test_backend_prepare_and_run(add_mul_model):
    import tessera.backend as backend

    assert backend.supports_device("CPU")
    assert not backend.supports_device("CUDA")
    model = onnx.load(add_mul_model)
    x = np.ones((2, 3), np.float32)
    rep = backend.prepare(model, "CPU")
    total, prod = rep.run([x, 3 * x])
    np.testing.assert_array_equal(total, 4 * x)
    np.testing.assert_array_equal(prod, x * [1, 2, 3])
    out = backend.run(add_mul_model, [x, x])  # run = run_model, from a path
    np.testing.assert_array_equal(out[0], 2 * x)
    rep2 = backend.prepare(ort.InferenceSession(add_mul_model, providers=CPU))
    with pytest.raises(RuntimeError, match="Model expect 2 inputs"):
        rep2.run(x)
    with pytest.raises(RuntimeError, match="Incompatible device expected 'CUDA', got 'CPU'"):
        backend.prepare(add_mul_model, "CUDA")


def test_backend_run_model_with_one_input(tmp_path):
    import tessera.backend as backend

    model = make_model([helper.make_node("Neg", ["x"], ["y"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    out = backend.run_model(model, np.array([1, -2], np.float32))
    np.testing.assert_array_equal(out[0], [-1, 2])
    save(model, tmp_path / "neg.onnx")
    assert backend.is_compatible(model, "CPU")


def test_datasets_get_example():
    from tessera.datasets import get_example

    path = get_example("sigmoid.onnx")
    assert os.path.isabs(path) and path.endswith("sigmoid.onnx")
    sess = ort.InferenceSession(path, providers=CPU)
    x = np.zeros((3, 4, 5), np.float32)
    np.testing.assert_allclose(sess.run(None, {sess.get_inputs()[0].name: x})[0], 0.5 + x)
    sess = ort.InferenceSession(get_example("mul_1.onnx"), providers=CPU)
    y, = sess.run(None, {"X": np.ones((3, 2), np.float32)})
    np.testing.assert_array_equal(y, [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(FileNotFoundError, match="Unable to find example 'nope.onnx'"):
        get_example("nope.onnx")


# -- memory classes and enums ----------------------------------------------------------


def test_enums_have_onnxruntimes_values():
    assert int(ort.OrtAllocatorType.ORT_DEVICE_ALLOCATOR) == 0
    assert int(ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR) == 1
    assert int(ort.OrtAllocatorType.INVALID) == -1
    assert int(ort.OrtMemType.CPU_INPUT) == -2 and int(ort.OrtMemType.DEFAULT) == 0
    assert int(ort.OrtSparseFormat.ORT_SPARSE_COO) == 1
    assert int(ort.OrtSparseFormat.ORT_SPARSE_CSRC) == 2
    assert int(ort.OrtSparseFormat.ORT_SPARSE_BLOCK_SPARSE) == 4
    assert int(ort.OrtCompiledModelCompatibility.EP_NOT_APPLICABLE) == 0
    assert int(ort.OrtCompiledModelCompatibility.EP_UNSUPPORTED) == 3


def test_memory_info_and_arena_cfg():
    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0,
                             ort.OrtMemType.DEFAULT)
    assert (info.name, info.device_id, info.mem_type) == ("Cpu", 0, ort.OrtMemType.DEFAULT)
    assert info.allocator_type == ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR
    cfg = ort.OrtArenaCfg(0, -1, -1, -1)
    assert (cfg.max_mem, cfg.arena_extend_strategy) == (0, -1)
    cfg = ort.OrtArenaCfg({"max_mem": 1 << 20, "initial_chunk_size_bytes": 4096})
    assert (cfg.max_mem, cfg.initial_chunk_size_bytes) == (1 << 20, 4096)
    with pytest.raises(RuntimeError, match="Invalid OrtArenaCfg option: bogus"):
        ort.OrtArenaCfg({"bogus": 1})


# -- sparse tensors and LoRA -----------------------------------------------------------


def test_sparse_tensor_builds_and_reads(add_mul_model):
    coo = ort.SparseTensor.sparse_coo_from_numpy(
        [2, 3], np.array([1.0, 2.0], np.float32), np.array([0, 4], np.int64),
        ort.OrtDevice.make("cpu", 0))
    assert coo.format() == ort.OrtSparseFormat.ORT_SPARSE_COO
    assert coo.dense_shape() == [2, 3] and coo.data_type() == "sparse_tensor(float)"
    np.testing.assert_array_equal(coo.as_coo_view().indices(), [0, 4])
    np.testing.assert_array_equal(coo.values(), [1, 2])
    with pytest.raises(ort.InvalidArgument, match="does not contain CSR"):
        coo.as_csrc_view()
    csr = ort.SparseTensor.sparse_csr_from_numpy([2, 2], np.array([5], np.int64), [1], [0, 1, 1])
    np.testing.assert_array_equal(csr.as_csrc_view().outer(), [0, 1, 1])
    with pytest.raises(ort.InvalidArgument, match="does not contain BlockSparse format"):
        csr.as_blocksparse_view()
    with pytest.raises(ort.NotImplemented, match="a SparseTensor on a device"):
        coo.to_cuda(ort.OrtDevice.make("cuda", 0))
    sess = ort.InferenceSession(add_mul_model, providers=CPU)
    with pytest.raises(ort.InvalidArgument, match="input 'x' expects tensor\\(float\\)"):
        sess.run(None, {"x": coo, "y": np.ones((2, 3), np.float32)})
