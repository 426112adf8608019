"""get_build_info() in onnxruntime's form ("ORT Build Info: git-branch=...,
build type=..."), followed by the providers this build
has and those available on this machine."""

from . import _C


def get_build_info():
    return ("ORT Build Info: git-branch=tessera-%s, build type=%s, "
            "providers built: %s, providers available: %s" % (
                _C.__version__, _C.__build_type__ or "unknown",
                ", ".join(_C.get_registered_providers()),
                ", ".join(_C.get_available_providers())))
