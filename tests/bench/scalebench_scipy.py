#!/usr/bin/env python3
"""The reference protocol of ../shared/data/public/scalebench/laws.csv (its README), in scipy.

For one law of laws.csv (its formula in Scalex's syntax, its bounds), per group of the task's
train.csv: 3 x 64 starts drawn as the benchmark's baseline_full_train.py draws them (numpy
RandomState, seeds 42, 43, 44; log-uniform where the lower bound is positive, else uniform), each
run by scipy.optimize.minimize(method="L-BFGS-B", maxiter 2000, ftol 1e-15, gtol 1e-10) on the mean
squared residual in linear space with its exact gradient (forward-mode derivatives through the
formula, below). Prints per group the best MSE, how many starts ended within 1e-6 (relative) of it,
and the wall time; with --holdout the pooled R^2 on test.csv. Debian's python3-scipy and numpy:

    /usr/bin/python3 tests/bench/scalebench_scipy.py --law vocab_scaling_law:sl_8 [--starts 64] [--holdout]
"""
import argparse
import ast
import csv
import math
import os
import sys
import time

import numpy as np
from scipy.optimize import minimize

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data", "public", "scalebench")


class Dual:
    """A value per row and its derivative in every parameter (rows x parameters)."""

    def __init__(self, v, d):
        self.v, self.d = v, d


def evaluate(node, params, columns, k, n):
    def lift(x):
        return x if isinstance(x, Dual) else Dual(np.broadcast_to(np.asarray(x, dtype=float), (n,)), np.zeros((n, k)))

    def ev(e):
        if isinstance(e, ast.Expression):
            return ev(e.body)
        if isinstance(e, ast.Constant):
            return lift(float(e.value))
        if isinstance(e, ast.Name):
            if e.id in params:
                j = params[e.id][0]
                d = np.zeros((n, k))
                d[:, j] = 1
                return Dual(np.full(n, params[e.id][1]), d)
            return lift(columns[e.id])
        if isinstance(e, ast.UnaryOp):
            a = ev(e.operand)
            return Dual(-a.v, -a.d) if isinstance(e.op, ast.USub) else a
        if isinstance(e, ast.BinOp):
            a, b = ev(e.left), ev(e.right)
            if isinstance(e.op, ast.Add):
                return Dual(a.v + b.v, a.d + b.d)
            if isinstance(e.op, ast.Sub):
                return Dual(a.v - b.v, a.d - b.d)
            if isinstance(e.op, ast.Mult):
                return Dual(a.v * b.v, a.d * b.v[:, None] + b.d * a.v[:, None])
            if isinstance(e.op, ast.Div):
                return Dual(a.v / b.v, (a.d * b.v[:, None] - b.d * a.v[:, None]) / (b.v**2)[:, None])
            if isinstance(e.op, ast.Pow):
                return power(a, b)
        if isinstance(e, ast.Call):
            args = [ev(x) for x in e.args]
            f = e.func.id
            if f == "exp":
                v = np.exp(args[0].v)
                return Dual(v, args[0].d * v[:, None])
            if f == "log":
                return Dual(np.log(args[0].v), args[0].d / args[0].v[:, None])
            if f == "sqrt":
                v = np.sqrt(args[0].v)
                return Dual(v, args[0].d / (2 * v)[:, None])
            if f == "abs":
                return Dual(np.abs(args[0].v), args[0].d * np.sign(args[0].v)[:, None])
            if f == "pow":
                return power(args[0], args[1])
            if f in ("min", "max"):
                a, b = args
                pick = a.v <= b.v if f == "min" else a.v >= b.v
                return Dual(np.where(pick, a.v, b.v), np.where(pick[:, None], a.d, b.d))
        raise ValueError(f"cannot evaluate {ast.dump(e)}")

    def power(a, b):
        with np.errstate(all="ignore"):
            v = a.v**b.v
            da = np.where(a.v != 0, b.v * a.v ** (b.v - 1), 0.0)
            db = np.where(a.v > 0, v * np.log(np.where(a.v > 0, a.v, 1.0)), 0.0)
        return Dual(v, a.d * da[:, None] + b.d * db[:, None])

    return ev(node)


def read_csv(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--law", required=True, help="TASK:LAW, e.g. vocab_scaling_law:sl_8")
    ap.add_argument("--starts", type=int, default=64, help="starts per seed (3 seeds)")
    ap.add_argument("--holdout", action="store_true")
    a = ap.parse_args()
    task, law = a.law.split(":")
    laws = [r for r in read_csv(os.path.join(ROOT, "laws.csv")) if r["task"] == task and r["law"] == law]
    if not laws:
        sys.exit(f"no law {a.law} in laws.csv")
    target, expression = (s.strip() for s in laws[0]["formula"].split("=", 1))
    tree = ast.parse(expression.replace("^", "**"), mode="eval")
    names, lower, upper = [], [], []
    for p in laws[0]["params"].split(";"):
        name, bounds = p.split("=")
        lo, hi = bounds.split(":")
        names.append(name)
        lower.append(float(lo))
        upper.append(float(hi))
    lower, upper, k = np.array(lower), np.array(upper), len(names)
    train, test = read_csv(os.path.join(ROOT, task, "train.csv")), read_csv(os.path.join(ROOT, task, "test.csv"))

    def columns_of(rows):
        return {c: np.array([float(r[c]) for r in rows]) for c in rows[0] if c not in ("group",)}

    t0 = time.perf_counter()
    fitted = {}
    for group in dict.fromkeys(r["group"] for r in train):
        rows = [r for r in train if r["group"] == group]
        cols, y, n = columns_of(rows), np.array([float(r[target]) for r in rows]), len(rows)

        def fun(x):
            with np.errstate(all="ignore"):
                pred = evaluate(tree, {nm: (j, x[j]) for j, nm in enumerate(names)}, cols, k, n)
            r = pred.v - y
            f = float(r @ r) / n
            g = 2 * (pred.d.T @ r) / n
            if not np.isfinite(f) or not np.all(np.isfinite(g)):
                return 1e300, np.zeros(k)
            return f, g

        results = []
        for seed in (42, 43, 44):
            rng = np.random.RandomState(seed)
            for _ in range(a.starts):
                x0 = np.array([math.exp(rng.uniform(math.log(lo), math.log(hi))) if lo > 0 else rng.uniform(lo, hi)
                               for lo, hi in zip(lower, upper)])
                res = minimize(fun, x0, jac=True, method="L-BFGS-B", bounds=list(zip(lower, upper)),
                               options={"maxiter": 2000, "ftol": 1e-15, "gtol": 1e-10})
                results.append((res.fun, res.x))
        best = min(results, key=lambda t: t[0])
        at_best = sum(1 for f, _ in results if f <= best[0] * (1 + 1e-6))
        fitted[group] = best[1]
        print(f"{task} {law} {group}: mse {best[0]:.10g}, {at_best}/{len(results)} starts at the best, ref_mse "
              f"{next(float(r['ref_mse']) for r in laws if r['group'] == group):.10g}", flush=True)
    seconds = time.perf_counter() - t0
    print(f"{task} {law}: {seconds:.2f} s wall for {3 * a.starts} starts per group")
    if a.holdout:
        ss_res, ys = 0.0, []
        for group, x in fitted.items():
            rows = [r for r in test if r["group"] == group]
            if not rows:
                continue
            cols, y = columns_of(rows), np.array([float(r[target]) for r in rows])
            pred = evaluate(tree, {nm: (j, x[j]) for j, nm in enumerate(names)}, cols, k, len(rows)).v
            ss_res += float((y - pred) @ (y - pred))
            ys.extend(y)
        ys = np.array(ys)
        print(f"{task} {law}: held-out R^2 pooled {1 - ss_res / float((ys - ys.mean()) @ (ys - ys.mean())):.4f} (reference "
              f"{float(laws[0]['ref_r2_pooled']):.4f})")


if __name__ == "__main__":
    main()
