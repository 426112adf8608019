"""Compiled-model and device compatibility queries (issue #36): the
"ep_compatibility_info.<EP>" metadata of a model, a compiled model's fit
for a set of devices, hardware devices and why a provider declines one."""

import numpy as np
import pytest
from onnx import TensorProto, helper

import tessera as ort
from tessera.capi import onnxruntime_pybind11_state as C

from conftest import make_model, save


def _model(props=None):
    model = make_model([helper.make_node("Relu", ["x"], ["y"])],
                       [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                       [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    if props:
        helper.set_model_props(model, props)
    return model


def test_compatibility_info_from_model_file_and_bytes(tmp_path):
    model = _model({"ep_compatibility_info.SomeEP": "v3;driver=7", "other": "x"})
    path = save(model, tmp_path / "m.onnx")
    assert C.get_compatibility_info_from_model(path, "SomeEP") == "v3;driver=7"
    assert ort.get_compatibility_info_from_model(tmp_path / "m.onnx", "OtherEP") is None
    data = model.SerializeToString()
    assert C.get_compatibility_info_from_model_bytes(data, "SomeEP") == "v3;driver=7"
    assert C.get_compatibility_info_from_model_bytes(_model().SerializeToString(), "SomeEP") is None


def test_compatibility_info_bad_arguments(tmp_path):
    with pytest.raises(ort.InvalidArgument, match="ep_type must be a non-empty"):
        C.get_compatibility_info_from_model_bytes(b"abc", "")
    with pytest.raises(ort.InvalidArgument, match="model bytes are empty"):
        C.get_compatibility_info_from_model_bytes(b"", "EP")
    with pytest.raises(RuntimeError):
        C.get_compatibility_info_from_model_bytes(b"not a model at all", "EP")
    with pytest.raises(ort.InvalidArgument, match="model_path must not be empty"):
        C.get_compatibility_info_from_model("", "EP")
    with pytest.raises(ort.NoSuchFile):
        C.get_compatibility_info_from_model(str(tmp_path / "missing.onnx"), "EP")


def test_model_compatibility_for_ep_devices():
    cpu = [d for d in C.get_ep_devices() if d.ep_name == "CPUExecutionProvider"]
    assert cpu
    got = C.get_model_compatibility_for_ep_devices(cpu[:1], "anything")
    assert got == ort.OrtCompiledModelCompatibility.EP_NOT_APPLICABLE
    with pytest.raises(ort.InvalidArgument, match="at least one OrtEpDevice"):
        C.get_model_compatibility_for_ep_devices([], "info")
    with pytest.raises(TypeError, match="compatibility_info must be a str"):
        C.get_model_compatibility_for_ep_devices(cpu, None)
    others = [d for d in C.get_ep_devices() if d.ep_name != "CPUExecutionProvider"]
    if others:
        with pytest.raises(ort.InvalidArgument, match="one execution provider"):
            C.get_model_compatibility_for_ep_devices(cpu[:1] + others[:1], "info")


def test_hardware_devices_and_incompatibility_details():
    devices = ort.get_hardware_devices()
    cpus = [d for d in devices if d.type == ort.OrtHardwareDeviceType.CPU]
    assert cpus and cpus[0].vendor
    details = C.get_hardware_device_ep_incompatibility_details("CPUExecutionProvider", cpus[0])
    assert details == {"reasons_bitmask": 0, "notes": "", "error_code": 0}
    with pytest.raises(ort.InvalidArgument, match="non-empty provider name"):
        C.get_hardware_device_ep_incompatibility_details("", cpus[0])
    with pytest.raises(ort.InvalidArgument, match="Unknown execution provider 'NoSuchEP'"):
        C.get_hardware_device_ep_incompatibility_details("NoSuchEP", cpus[0])
    reason = C.OrtDeviceEpIncompatibilityReason
    assert (int(reason.NONE), int(reason.DRIVER_INCOMPATIBLE), int(reason.DEVICE_INCOMPATIBLE),
            int(reason.MISSING_DEPENDENCY), int(reason.UNKNOWN)) == (0, 1, 2, 4, 0x80000000)
    assert np.uint32(reason.UNKNOWN) == 0x80000000


def test_a_device_the_provider_does_not_serve_is_reported():
    class OtherDevice:
        type = ort.OrtHardwareDeviceType.GPU
        vendor_id = 0x1234
        device_id = 9

    details = C.get_hardware_device_ep_incompatibility_details("CPUExecutionProvider",
                                                               OtherDevice())
    assert details["reasons_bitmask"] == int(C.OrtDeviceEpIncompatibilityReason.DEVICE_INCOMPATIBLE)
    assert "CPUExecutionProvider does not run on" in details["notes"]
