"""preload_dlls: onnxruntime's helper that loads the CUDA, cuDNN (and on
Windows MSVC) libraries of its GPU package from pip's nvidia-* packages
before the first CUDA session.

Tessera's CUDA provider links the system's CUDA libraries (Debian's) into the
extension, so the dynamic loader has loaded them with `import tessera` and
there is nothing left to load; a build without the CUDA provider has none to
load, as onnxruntime's CPU package has none (its preload_dlls then returns
without doing anything). What is kept is onnxruntime's check of `directory`."""

import os
import platform

from . import _C


def preload_dlls(cuda=True, cudnn=True, msvc=True, directory=None):
    """Loads nothing (see the module's note); raises RuntimeError, as
    onnxruntime does, when `directory` names a folder that does not exist
    (relative paths are taken from this package's folder)."""
    del msvc  # MSVC runtime libraries exist on Windows only
    if platform.system() not in ("Windows", "Linux"):
        return
    if (cuda or cudnn) and "CUDAExecutionProvider" not in _C.get_registered_providers():
        # onnxruntime's CPU package returns here: it has no CUDA version.
        return
    base = directory or ".."
    if not os.path.isabs(base):
        base = os.path.join(os.path.dirname(__file__), base)
    if not os.path.isdir(os.path.normpath(base)):
        raise RuntimeError(f"Invalid parameter of directory={directory}. The directory does not exist!")


def _get_nvidia_dll_paths(is_windows, cuda=True, cudnn=True, build_cuda_version="12.8", arch=None):
    """The libraries onnxruntime's GPU package preloads from pip's nvidia-*
    packages, as path parts relative to site-packages (Tessera loads none of
    them; scripts that check those folders use this list). CUDA 12 wheels keep
    one package per library (nvidia/cublas/lib/...); CUDA 13 wheels gather them
    in nvidia/cu13, flat on Linux and under bin/<arch> on Windows. cuDNN 9 has
    its own package in both."""
    major = int(str(build_cuda_version).split(".")[0])
    cufft = major - 1  # cuFFT's soname is one behind CUDA's major version
    paths = []
    if cuda:
        if is_windows:
            names = [f"cublasLt64_{major}.dll", f"cublas64_{major}.dll", f"cufft64_{cufft}.dll",
                     f"cudart64_{major}.dll", "curand64_10.dll"]
        else:
            names = [f"libcublasLt.so.{major}", f"libcublas.so.{major}", f"libnvrtc.so.{major}",
                     "libcurand.so.10", f"libcufft.so.{cufft}", f"libcudart.so.{major}"]
        if major >= 13:
            if is_windows:
                machine = arch or {"amd64": "x86_64"}.get(platform.machine().lower(),
                                                          platform.machine().lower())
                paths += [("nvidia", f"cu{major}", "bin", machine, n) for n in names]
            else:
                paths += [("nvidia", f"cu{major}", "lib", n) for n in names]
        else:
            folder = "bin" if is_windows else "lib"
            package = {"cublasLt": "cublas", "cublas": "cublas", "cufft": "cufft",
                       "cudart": "cuda_runtime", "curand": "curand", "nvrtc": "cuda_nvrtc"}
            for n in names:
                stem = n.split(".")[0].split("64_")[0]
                stem = stem[3:] if stem.startswith("lib") else stem
                paths.append(("nvidia", package[stem], folder, n))
    if cudnn:
        if is_windows:
            paths += [("nvidia", "cudnn", "bin", n) for n in (
                "cudnn64_9.dll", "cudnn_graph64_9.dll", "cudnn_ops64_9.dll",
                "cudnn_cnn64_9.dll", "cudnn_adv64_9.dll", "cudnn_heuristic64_9.dll",
                "cudnn_engines_precompiled64_9.dll", "cudnn_engines_runtime_compiled64_9.dll")]
        else:
            paths.append(("nvidia", "cudnn", "lib", "libcudnn.so.9"))
    return paths
