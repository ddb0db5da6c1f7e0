#!/usr/bin/env python3
"""Every law of ../shared/data/public/scalebench/laws.csv fitted by `scalex fit law` with its default
search, its objective and time written beside the reference's (scipy L-BFGS-B, 192 starts; the
protocol is in that README and in scalebench_scipy.py, which reproduces it).

One `scalex fit law --formula ... --param ... --group group --loss squared --space linear
--holdout test.csv --resamples 0 --json` per law (every group in one process; the lr x bsz task with
--all-sweep-runs, as the reference fits every row of its pool). Writes one CSV row per law and group:
task, law, group, mse, ref_mse, ratio, seconds (whole process, all groups), ref_seconds, r2_pooled,
ref_r2_pooled, starts, near_best, doubt.

    /usr/bin/python3 tests/bench/scalebench_laws.py [--scalex build/app/scalex] [--out laws_bench.csv] [FILTER ...]

FILTER keeps the laws whose `task:law` contains it (e.g. vocab, lr_bsz_scaling_law:sl_3).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..", "shared", "data", "public", "scalebench")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scalex", default=os.path.join(HERE, "..", "..", "build", "app", "scalex"))
    ap.add_argument("--out", default="-")
    ap.add_argument("filters", nargs="*")
    a = ap.parse_args()
    with open(os.path.join(ROOT, "laws.csv")) as f:
        rows = list(csv.DictReader(f))
    laws = {}
    for r in rows:
        laws.setdefault((r["task"], r["law"]), []).append(r)
    out = sys.stdout if a.out == "-" else open(a.out, "w", newline="")
    w = csv.writer(out)
    w.writerow(["task", "law", "group", "mse", "ref_mse", "ratio", "seconds", "ref_seconds", "r2_pooled", "ref_r2_pooled",
                "starts", "near_best", "doubt"])
    for (task, law), refs in laws.items():
        if a.filters and not any(x in f"{task}:{law}" for x in a.filters):
            continue
        first = refs[0]
        args = [a.scalex, "fit", "law", "--data", os.path.join(ROOT, task, "train.csv"), "--holdout",
                os.path.join(ROOT, task, "test.csv"), "--formula", first["formula"]]
        for p in first["params"].split(";"):
            args += ["--param", p]
        args += ["--group", "group", "--loss", "squared", "--space", "linear", "--resamples", "0", "--json"]
        if task == "lr_bsz_scaling_law":
            args.append("--all-sweep-runs")
        t0 = time.perf_counter()
        p = subprocess.run(args, capture_output=True, text=True)
        seconds = time.perf_counter() - t0
        if p.returncode != 0:
            w.writerow([task, law, "", "", "", "", f"{seconds:.2f}", first["ref_seconds"], "", first["ref_r2_pooled"], "", "",
                        "exit " + str(p.returncode) + ": " + p.stderr.strip()[:200]])
            continue
        j = json.loads(p.stdout)
        for g in j["groups"]:
            ref = next(r for r in refs if r["group"] == g["name"])
            mse = g["objective"] / g["n_train"]
            w.writerow([task, law, g["name"], f"{mse:.10g}", ref["ref_mse"], f"{mse / float(ref['ref_mse']):.5f}", f"{seconds:.2f}",
                        ref["ref_seconds"], f"{j['test']['r2']:.4f}", ref["ref_r2_pooled"], g["starts"], g["near_best"],
                        g.get("doubt") or ""])
        out.flush()


if __name__ == "__main__":
    main()
