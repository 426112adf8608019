"""preload_dlls, onnxruntime's helper for its GPU package's CUDA libraries:
there with onnxruntime's signature, loading nothing (Tessera's providers link
their libraries), and checking `directory` as onnxruntime does."""
import inspect

import pytest

import tessera
import tessera as ort


def _has_cuda():
    return "CUDAExecutionProvider" in tessera._C.get_registered_providers()


def test_signature_is_onnxruntimes():
    params = inspect.signature(ort.preload_dlls).parameters
    assert list(params) == ["cuda", "cudnn", "msvc", "directory"]
    assert [p.default for p in params.values()] == [True, True, True, None]
    assert "preload_dlls" in ort.__all__


def test_loads_nothing_and_returns_none(capsys):
    assert ort.preload_dlls() is None
    assert ort.preload_dlls(cuda=False, cudnn=False) is None
    assert ort.preload_dlls(cuda=False, cudnn=False, directory="") is None
    assert capsys.readouterr().out == ""


def test_missing_directory_is_refused_when_it_would_be_searched(tmp_path):
    missing = str(tmp_path / "no_such_folder")
    with pytest.raises(RuntimeError, match=r"Invalid parameter of directory=.*no_such_folder\. "
                                           r"The directory does not exist!"):
        ort.preload_dlls(cuda=False, cudnn=False, directory=missing)
    if _has_cuda():
        with pytest.raises(RuntimeError, match="The directory does not exist"):
            ort.preload_dlls(directory=missing)
    else:
        # Without the CUDA provider there is nothing to look for, as in
        # onnxruntime's CPU package.
        assert ort.preload_dlls(directory=missing) is None
    assert ort.preload_dlls(cuda=False, cudnn=False, directory=str(tmp_path)) is None
