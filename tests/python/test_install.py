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


def test_debian_package_carries_the_module(tmp_path):
    # What packaging/package.sh does after building: `cpack -G DEB` in the build folder (the same
    # install rules, all components), here into a scratch folder. The package lists the module
    # where Debian's python3 reads it and depends on the python3 it was built for.
    if not BUILD:
        pytest.fail("SCALEX_BUILD_DIR names no build (run the tests through ctest)")
    r = subprocess.run(["cpack", "-G", "DEB", "--config", os.path.join(BUILD, "CPackConfig.cmake"), "-B", str(tmp_path)],
                       capture_output=True, text=True, cwd=BUILD, timeout=110)
    assert r.returncode == 0, r.stdout + r.stderr
    deb = next(tmp_path.glob("scalex*.deb"))
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    site = "./usr/lib/python3/dist-packages/scalex/"
    files = sorted(line.split()[-1] for line in listing.splitlines() if line.split()[-1].startswith(site) and not line.startswith("d"))
    extension = f"_scalex.cpython-{sys.version_info.major}{sys.version_info.minor}-"
    assert len(files) == 2 and files[0] == site + "__init__.py" and files[1].startswith(site + extension), files
    depends = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True, check=True).stdout
    major, minor = sys.version_info.major, sys.version_info.minor
    assert f"python3 (>= {major}.{minor}), python3 (<< {major}.{minor + 1})" in depends
