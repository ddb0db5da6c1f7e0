"""Installed like the app: `cmake --install` puts the package where Debian's python3 reads it:
lib/python3/dist-packages under a prefix ending in /usr (as the .deb stages its files: cpack
installs into .../usr), lib/python3.X/dist-packages under any other; the installed copy imports
and answers from there alone."""
import os
import pathlib
import subprocess
import sys

import pytest

BUILD = os.environ.get("SCALEX_BUILD_DIR")


def install(prefix):
    if not BUILD:
        pytest.fail("SCALEX_BUILD_DIR names no build (run the tests through ctest)")
    # The module's component alone: the program's files are checked by packaging.install.
    r = subprocess.run(["cmake", "--install", BUILD, "--component", "python", "--prefix", str(prefix)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def files_under(root):
    return sorted(str(p.relative_to(root)) for p in pathlib.Path(root).rglob("*") if p.is_file())


@pytest.mark.parametrize("prefix,site", [("stage/usr", "lib/python3/dist-packages"),
                                         ("local", f"lib/python{sys.version_info.major}.{sys.version_info.minor}/dist-packages")])
def test_install_puts_the_package_where_python3_reads_it(tmp_path, prefix, site):
    root = tmp_path / prefix
    install(root)
    package = root / site / "scalex"
    assert sorted(p.name for p in package.iterdir() if p.suffix in (".py", ".so")) == \
        ["__init__.py", next(p.name for p in package.iterdir() if p.name.startswith("_scalex.") and p.suffix == ".so")]
    assert [f for f in files_under(root)] == [f"{site}/scalex/{p}" for p in sorted(p.name for p in package.iterdir())]
    # The installed copy alone (no build tree on the path) reads the example and fits its laws.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", "import scalex; print(scalex.__file__); "
                        "print(round(scalex.example().isoflop(ctx=8192, family='xlstm').json()['series'][0]['a'], 3))"],
                       capture_output=True, text=True, env={**env, "PYTHONPATH": str(root / site), "QT_QPA_PLATFORM": "offscreen"},
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    where, a = r.stdout.split()
    assert where == str(package / "__init__.py")
    assert float(a) == pytest.approx(0.547, abs=0.005)  # the paper's xLSTM IsoFLOP exponent
