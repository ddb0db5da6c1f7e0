#!/usr/bin/env python3
"""The planner replayed at 10 % of each pool's cost on the three scalebench tasks of ../shared, with
each task's best published law (laws.csv: the highest pooled held-out R^2 of the reference), over
five seeds of the fits' starts, beside the fit of the same law on the whole pool.

Per task the pool is train.csv and the target the runs of test.csv (both files read together; the
conditions below tell them apart: the test runs are the largest vocabulary, the largest sparse
models, the largest lr x bsz model at its largest data size). A run's cost is 6 x its parameters x
its tokens (the task's columns). For each seed:

    scalex plan --replay --data train.csv --data test.csv --pool COND --target COND --budget 0.1
                --cost EXPR --group group --formula ... --param ... --loss squared --space linear --seed S --json

and once `scalex fit law --data train.csv --holdout test.csv ...` (the all-data fit). Writes per task
the replays' R^2, their median, the all-data fit's R^2 and the difference (the issue asks for the
median within 0.03 of the all-data fit's).

    /usr/bin/python3 tests/bench/scalebench_replays.py [--scalex build/app/scalex] [--seeds 5] [--all-laws] [--all-data-from CSV] [TASK ...]

--all-laws replays every law laws.csv publishes for the task (the planner's acceptance over all of
them), each beside its own all-data fit. --all-data-from takes the all-data fits' R^2 from an earlier
output of this script (the lr x bsz fits take minutes each) for the laws it lists, and fits the others.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..", "..", "shared", "data", "public", "scalebench")

# Pool and target of each task (every condition must hold), and its cost per run.
TASKS = {
    "sparsity_scaling_law": {
        "pool": ["N_active!=0.232640512", "N_active!=0.407098432", "N_active!=0.756014272"],
        "target": ["N_active>0.2", "N_active!=0.31954624"],
        "cost": "6*N_active*(D1+D2)",
    },
    "vocab_scaling_law": {
        "pool": ["vocab_size<96256"],
        "target": ["vocab_size>=96256"],
        "cost": "6*non_vocab_parameters*num_characters",
    },
    "lr_bsz_scaling_law": {
        "pool": ["data_size<1e11"],
        "target": ["data_size>=1e11"],
        "cost": "6*non_embedding_param_size*data_size",
        "extra": ["--all-sweep-runs"],
    },
}


def law_args(row):
    args = ["--formula", row["formula"]]
    for p in row["params"].split(";"):
        args += ["--param", p]
    return args + ["--group", "group", "--loss", "squared", "--space", "linear"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scalex", default=os.path.join(HERE, "..", "..", "build", "app", "scalex"))
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--all-laws", action="store_true", help="every law of the task, not only its best")
    ap.add_argument("--all-data-from", help="an earlier output of this script: its all_data_r2 per task and law")
    ap.add_argument("tasks", nargs="*")
    a = ap.parse_args()
    a.known = {}
    if a.all_data_from:
        with open(a.all_data_from) as f:
            a.known = {(r["task"], r["law"]): float(r["all_data_r2"]) for r in csv.DictReader(f) if r.get("all_data_r2")}
    with open(os.path.join(ROOT, "laws.csv")) as f:
        rows = list(csv.DictReader(f))
    w = csv.writer(sys.stdout)
    w.writerow(["task", "law", "seed_r2", "median_r2", "all_data_r2", "difference", "seconds"])
    for task, spec in TASKS.items():
        if a.tasks and not any(t in task for t in a.tasks):
            continue
        laws = {}
        for r in rows:
            if r["task"] == task:
                laws.setdefault(r["law"], r)
        chosen = list(laws.values()) if a.all_laws else [max(laws.values(), key=lambda r: float(r["ref_r2_pooled"]))]
        for law in chosen:
            w.writerow(replay_law(a, task, spec, law))
            sys.stdout.flush()


def all_data_fit(task, d, law, extra, scalex):
    """The law fitted on the whole pool (train.csv): its R^2 on test.csv."""
    fit = subprocess.run([scalex, "fit", "law", "--data", os.path.join(d, "train.csv"), "--holdout", os.path.join(d, "test.csv"),
                          "--resamples", "0", "--json"] + law_args(law) + extra, capture_output=True, text=True)
    if fit.returncode != 0:
        sys.exit(f"{task} {law['law']}: fit law failed: {fit.stderr.strip()}")
    return json.loads(fit.stdout)["test"]["r2"]


def replay_law(a, task, spec, law):
    """One law replayed over the seeds, beside its fit on the whole pool: the row written."""
    d = os.path.join(ROOT, task)
    extra = spec.get("extra", [])
    all_data = a.known.get((task, law["law"]))
    if all_data is None:
        all_data = all_data_fit(task, d, law, extra, a.scalex)
    t0 = time.perf_counter()
    r2 = []
    for seed in range(1, a.seeds + 1):
        args = [a.scalex, "plan", "--replay", "--data", os.path.join(d, "train.csv"), "--data", os.path.join(d, "test.csv"),
                "--budget", "0.1", "--cost", spec["cost"], "--seed", str(seed), "--json"]
        for c in spec["pool"]:
            args += ["--pool", c]
        for c in spec["target"]:
            args += ["--target", c]
        p = subprocess.run(args + law_args(law) + extra, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"{task} {law['law']}: plan --replay failed (seed {seed}): {p.stderr.strip()}")
        r2.append(json.loads(p.stdout)["r2"])
    median = statistics.median(r2)
    return [task, law["law"], " ".join(f"{x:.4f}" for x in r2), f"{median:.4f}", f"{all_data:.4f}", f"{median - all_data:+.4f}",
            f"{time.perf_counter() - t0:.1f}"]

if __name__ == "__main__":
    main()
