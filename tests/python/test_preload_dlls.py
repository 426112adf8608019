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


def test_nvidia_library_paths_of_both_wheel_layouts():
    paths = ort._get_nvidia_dll_paths
    cuda12 = paths(is_windows=False, build_cuda_version="12.4", cudnn=False)
    assert ("nvidia", "cublas", "lib", "libcublas.so.12") in cuda12
    assert ("nvidia", "cuda_nvrtc", "lib", "libnvrtc.so.12") in cuda12
    assert ("nvidia", "cufft", "lib", "libcufft.so.11") in cuda12
    assert ("nvidia", "cuda_runtime", "bin", "cudart64_12.dll") in paths(
        is_windows=True, build_cuda_version="12.4", cudnn=False)
    cuda13 = paths(is_windows=False, build_cuda_version="13.2", cudnn=False)
    assert ("nvidia", "cu13", "lib", "libcufft.so.12") in cuda13
    assert all(p[:3] == ("nvidia", "cu13", "lib") for p in cuda13)
    assert ("nvidia", "cu13", "bin", "arm64", "cublas64_13.dll") in paths(
        is_windows=True, build_cuda_version="13.2", cudnn=False, arch="arm64")
    assert paths(is_windows=False, build_cuda_version="13.2", cuda=False) == [
        ("nvidia", "cudnn", "lib", "libcudnn.so.9")]
    assert paths(is_windows=False, build_cuda_version="12.4", cuda=False, cudnn=False) == []
