"""Builds the `tessera` wheel: the CMake build's package folder
(build/python/tessera: the pure-Python layer, the native extension tessera._C
and the datasets' example models) packed as a platform wheel. Set
TESSERA_BUILD_DIR to use another CMake build folder; a missing one is
configured (Release, Ninja) and only the Python target is built."""

import os
import re
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD_DIR = os.path.join(HERE, os.environ.get("TESSERA_BUILD_DIR", "build"))


def version():
    with open(os.path.join(HERE, "CMakeLists.txt")) as f:
        return re.search(r"project\(tessera VERSION ([0-9.]+)", f.read()).group(1)


class BuildWithCMake(build_py):
    """Builds the tessera_python target, then copies its package folder."""

    def run(self):
        if not os.path.exists(os.path.join(BUILD_DIR, "build.ninja")):
            subprocess.check_call(["cmake", "-S", HERE, "-B", BUILD_DIR, "-G", "Ninja",
                                   "-DCMAKE_BUILD_TYPE=Release",
                                   "-DPython3_EXECUTABLE=" + sys.executable])
        subprocess.check_call(["ninja", "-C", BUILD_DIR, "tessera_python"])
        source = os.path.join(BUILD_DIR, "python", "tessera")
        target = os.path.join(self.build_lib, "tessera")
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


class BinaryDistribution(Distribution):
    """The wheel carries a native extension: tag it for this platform and Python."""

    def has_ext_modules(self):
        return True


setup(
    name="tessera",
    version=version(),
    description="Tessera: an ONNX inference runtime with onnxruntime's Python API",
    # Listed so the build runs build_py, which copies the built package (above).
    packages=["tessera"],
    package_dir={"tessera": "python/tessera"},
    python_requires=">=3.9",
    install_requires=["numpy"],
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    options={"build": {"build_base": os.path.join("build", "wheel")}},
    zip_safe=False,
)
