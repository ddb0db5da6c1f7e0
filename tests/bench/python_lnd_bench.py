#!/usr/bin/env python3
"""The default `scalex fit lnd` on the built-in example, timed from Python (scalex.example().lnd()
in a fresh interpreter each time: the analyses keep their results for the process, so a second
call in the same one is a look-up) and as the program (`scalex fit lnd --example --json`, the
whole process), alternating, median of --repeats each. The Python time is the call's, and the
whole interpreter's (import scalex included) beside it.

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/python_lnd_bench.py --scalex build/app/scalex
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scalex", default="build/app/scalex")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    threads = [] if args.threads is None else ["--threads", str(args.threads)]
    call = ("import json, sys, time, scalex\n"
            "t = time.perf_counter()\n"
            f"o = scalex.example().lnd(threads={args.threads!r}).json()\n"
            "print(json.dumps({'seconds': time.perf_counter() - t, 'alpha': [s['alpha'] for s in o['series']]}))\n")
    py, whole, cli = [], [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        r = json.loads(subprocess.run([sys.executable, "-c", call], env=env, check=True, capture_output=True, text=True).stdout)
        whole.append(time.perf_counter() - t)
        py.append(r["seconds"])
        t = time.perf_counter()
        out = subprocess.run([args.scalex, "fit", "lnd", "--example", "--json", *threads], env=env, check=True,
                             capture_output=True, text=True).stdout
        cli.append(time.perf_counter() - t)
        assert r["alpha"] == [s["alpha"] for s in json.loads(out)["series"]]
    p, w, c = statistics.median(py), statistics.median(whole), statistics.median(cli)
    print(f"fit lnd on the example, median of {args.repeats}: Python call {p:.3f} s (interpreter {w:.3f} s), "
          f"program {c:.3f} s; call / program = {p / c:.3f}, interpreter / program = {w / c:.3f}")


if __name__ == "__main__":
    main()
