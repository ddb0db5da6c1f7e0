"""Shared fixtures of the Python module's tests: the program to compare with and the study's data.

ctest runs these with PYTHONPATH=<build>/python and SCALEX_BIN=<build>/app/scalex (app/python/CMakeLists.txt).
"""
import json
import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("SCALEX_SHARED_DIR") or REPO.parent / "shared")


def shared(relative):
    path = SHARED / relative
    if not path.exists():
        pytest.skip(f"{path} is not here (the study's data lies in ../shared beside the checkout)")
    return str(path)


def without_timings(value):
    """The object with the fits' wall-clock seconds taken out: the one field two runs never share."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


@pytest.fixture(scope="session")
def cli():
    binary = os.environ.get("SCALEX_BIN")
    if not binary or not os.path.exists(binary):
        pytest.fail("SCALEX_BIN names no scalex program (run the tests through ctest)")

    def run(*args, ok=True):
        r = subprocess.run([binary, *args], capture_output=True, text=True, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        if ok:
            assert r.returncode == 0, r.stderr
            return json.loads(r.stdout)
        return r

    return run
