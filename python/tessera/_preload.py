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
