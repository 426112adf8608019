"""The wheel (pyproject.toml + setup.py): `pip wheel --no-build-isolation
--no-deps .` packs the built package, native extension and example models
included, and `pip install --no-index` of it into a fresh virtualenv makes
`import tessera` work from a clean folder, offline."""

import glob
import os
import subprocess
import sys
import zipfile

import tessera

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _env():
    build_dir = os.path.relpath(
        os.path.dirname(os.path.dirname(os.path.dirname(tessera.__file__))), ROOT)
    env = dict(os.environ, TESSERA_BUILD_DIR=build_dir, PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    return env


def test_wheel_builds_and_installs_offline(tmp_path):
    env = _env()
    wheels = tmp_path / "wheels"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
         "--no-cache-dir", "-w", str(wheels), ROOT],
        env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    wheel, = glob.glob(str(wheels / "tessera-*.whl"))
    assert "-cp3" in os.path.basename(wheel) and "linux" in os.path.basename(wheel)
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("tessera/_C.") and n.endswith(".so") for n in names)
    for name in ["tessera/__init__.py", "tessera/backend/backend.py",
                 "tessera/capi/onnxruntime_inference_collection.py",
                 "tessera/datasets/sigmoid.onnx", "tessera/datasets/mul_1.onnx"]:
        assert name in names, name

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, env=env, timeout=300)
    python = str(venv / "bin" / "python")
    # --ignore-installed: a copy the README's set-up installed system-wide
    # (which the venv sees) must not count as this wheel being installed.
    done = subprocess.run([python, "-m", "pip", "install", "--no-index", "--ignore-installed",
                           "--no-deps", wheel], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr

    clean = tmp_path / "elsewhere"
    clean.mkdir()
    code = ("import tessera, numpy as np; "
            "from tessera.datasets import get_example; "
            "s = tessera.InferenceSession(get_example('mul_1.onnx')); "
            "print(tessera.__file__); print(s.run(None, {'X': np.ones((3, 2), np.float32)})[0]"
            ".sum())")
    out = subprocess.run([python, "-c", code], env=env, cwd=str(clean), capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    location, total = out.stdout.split()
    assert location.startswith(str(venv)) and float(total) == 21.0
