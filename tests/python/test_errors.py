"""Errors arrive as onnxruntime's exception classes, carrying the C++ message."""

import numpy as np
import pytest

import tessera as ort


def test_wrong_input_name(session):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ort.InvalidArgument, match="'nope' is not an input of the model") as e:
        session.run(None, {"x": x, "y": x, "nope": x})
    assert "x, y" in str(e.value)  # the message lists the real inputs


def test_wrong_dtype(session):
    with pytest.raises(ort.InvalidArgument, match="input 'x' expects") as e:
        session.run(None, {"x": np.ones((2, 3), np.float64), "y": np.ones((2, 3), np.float32)})
    assert "double" in str(e.value)


def test_missing_input(session):
    # onnxruntime's check, in Python before the run (the runtime's own check
    # says the same to the C API: "input 'y' ... was not fed").
    with pytest.raises(ValueError, match=r"Required inputs \(\['y'\]\) are missing"):
        session.run(None, {"x": np.ones((2, 3), np.float32)})


def test_wrong_output_name(session):
    feed = {"x": np.ones((1, 3), np.float32), "y": np.ones((1, 3), np.float32)}
    with pytest.raises(ort.InvalidArgument, match="'out' is not an output of the model"):
        session.run(["out"], feed)


def test_missing_file(tmp_path):
    missing = str(tmp_path / "missing.onnx")
    with pytest.raises(ort.NoSuchFile) as e:
        ort.InferenceSession(missing, providers=["CPUExecutionProvider"])
    assert "missing.onnx" in str(e.value)


def test_unknown_provider(add_mul_model):
    with pytest.raises(ort.InvalidArgument,
                       match="Unknown Provider Type: MadeUpExecutionProvider") as e:
        ort.InferenceSession(add_mul_model, providers=["MadeUpExecutionProvider"])
    assert "CPUExecutionProvider" in str(e.value)  # lists what this build has


def test_bad_provider_option(add_mul_model):
    with pytest.raises(ort.InvalidArgument):
        ort.InferenceSession(add_mul_model,
                             providers=[("CPUExecutionProvider", {"no_such_option": 1})])


def test_malformed_model_bytes():
    with pytest.raises((ort.InvalidProtobuf, ort.InvalidGraph)):
        ort.InferenceSession(b"\x0a\xff\xff\xff\xff\x0f garbage", providers=["CPUExecutionProvider"])


def test_unsupported_load_type():
    with pytest.raises(TypeError, match="Unable to load from type 'int'"):
        ort.InferenceSession(42)


def test_errors_are_catchable_as_runtime_error(session):
    with pytest.raises(RuntimeError):
        x = np.ones((1, 3), np.float32)
        session.run(None, {"x": x, "y": x, "nope": x})
