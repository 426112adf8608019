"""scripts/install_python.sh builds the wheel and installs it so that `import
tessera` works for /usr/bin/python3 from any folder (tried here with a scratch
site folder, not the system one)."""

import os
import subprocess

import tessera

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def test_install_script_makes_the_package_importable_from_anywhere(tmp_path):
    site_dir = tmp_path / "site-packages"
    build_dir = os.path.relpath(
        os.path.dirname(os.path.dirname(os.path.dirname(tessera.__file__))), ROOT)
    env = dict(os.environ, TESSERA_SITE_DIR=str(site_dir), TESSERA_BUILD_DIR=build_dir)
    env.pop("PYTHONPATH", None)
    done = subprocess.run(["bash", os.path.join(ROOT, "scripts", "install_python.sh")], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "CPUExecutionProvider" in done.stdout
    installed = site_dir / "tessera"
    assert (installed / "__init__.py").is_file()
    assert any(p.name.startswith("_C.") for p in installed.iterdir())
    assert list(site_dir.glob("tessera-*.dist-info"))
    # A fresh interpreter elsewhere, without PYTHONPATH, imports the installed copy.
    # The scratch folder goes first: a copy the README's set-up installed
    # system-wide must not answer for it.
    code = ("import sys; sys.path.insert(0, %r); import tessera; "
            "print(tessera.__file__, tessera.get_available_providers())" % str(site_dir))
    out = subprocess.run(["/usr/bin/python3", "-c", code], env=env, cwd=str(tmp_path),
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(str(installed)) and "CPUExecutionProvider" in out.stdout
