"""Module-level names: providers, device, version, logger, enums, exceptions."""

import pytest

import tessera
import tessera as ort
from tessera.capi import onnxruntime_pybind11_state as state

ERRORS = ["Fail", "InvalidArgument", "NoSuchFile", "NoModel", "EngineError", "RuntimeException",
          "InvalidProtobuf", "ModelLoaded", "NotImplemented", "InvalidGraph", "EPFail"]


def test_available_providers_has_cpu_first_class():
    available = ort.get_available_providers()
    assert isinstance(available, list)
    assert "CPUExecutionProvider" in available


def test_all_providers_is_a_superset_with_onnxruntime_names():
    all_providers = ort.get_all_providers()
    assert set(ort.get_available_providers()) <= set(all_providers)
    for name in ("CUDAExecutionProvider", "TensorrtExecutionProvider", "CPUExecutionProvider"):
        assert name in all_providers
    assert len(all_providers) == len(set(all_providers))


def test_device_and_version():
    assert ort.get_device() == "CPU"
    assert ort.get_version_string() == ort.__version__
    assert ort.__version__.count(".") == 2
    assert ort.get_version_string() in ort.get_build_info()


def test_logger_severity_and_verbosity():
    ort.set_default_logger_severity(3)
    assert tessera._C.get_default_logger_severity() == 3
    ort.set_default_logger_severity(2)
    assert tessera._C.get_default_logger_severity() == 2
    ort.set_default_logger_verbosity(1)
    assert tessera._C.get_default_logger_verbosity() == 1
    with pytest.raises(ort.InvalidArgument, match="severity"):
        ort.set_default_logger_severity(7)


def test_graph_optimization_levels_have_onnxruntime_values():
    level = ort.GraphOptimizationLevel
    assert int(level.ORT_DISABLE_ALL) == 0
    assert int(level.ORT_ENABLE_BASIC) == 1
    assert int(level.ORT_ENABLE_EXTENDED) == 2
    assert int(level.ORT_ENABLE_ALL) == 99


def test_execution_mode_and_mem_type():
    assert int(ort.ExecutionMode.ORT_SEQUENTIAL) == 0
    assert int(ort.ExecutionMode.ORT_PARALLEL) == 1
    assert ort.OrtMemType.CPU_INPUT == -2
    assert ort.OrtMemType.CPU_OUTPUT == -1
    assert ort.OrtMemType.CPU == -1
    assert ort.OrtMemType.DEFAULT == 0


@pytest.mark.parametrize("name", ERRORS)
def test_exception_classes_share_one_base(name):
    cls = getattr(ort, name)
    assert issubclass(cls, ort.TesseraError)
    assert issubclass(cls, RuntimeError)
    assert cls.__name__ == name
    assert getattr(state, name) is cls
    assert getattr(tessera.capi._pybind_state, name) is cls
    assert len({getattr(ort, n) for n in ERRORS}) == len(ERRORS)


def test_star_import_does_not_shadow_builtins():
    namespace = {}
    exec("from tessera import *", namespace)
    assert "NotImplemented" not in namespace
    assert "InferenceSession" in namespace


def test_telemetry_switches_exist():
    ort.disable_telemetry_events()
    ort.enable_telemetry_events()
