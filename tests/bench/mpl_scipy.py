#!/usr/bin/env python3
"""The Multi-Power Law fit of curve_bench.cpp (BM_FitMplThreeCurves) with scipy, for comparison.

Same three curves (24,000 / 48,000 / 72,000 steps: constant, cosine to 10 %, WSD with a 20 % linear
cooldown; peak 3e-4, 500 warm-up steps; generated from the published 400M parameters and logged
every 100 steps), the same 120 evenly spaced points of each, the same objective (Σ Huber_δ=1e-3 of
ln L̂ − ln L with the same blocked sums of core/fit/ScheduleLaws.cpp), the same box and the same 16
starts, each run by scipy.optimize.minimize(method="L-BFGS-B") with its default tolerances and the
exact gradient (numpy, vectorised over every term of every point), one after another (one core).
scalex screens the 16 starts and refines the best 4 (CurveFitSettings).

    /usr/bin/python3 tests/bench/mpl_scipy.py
"""
import math
import time

import numpy as np
from scipy.optimize import minimize

TRUTH = np.array([2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635])  # L0 A alpha B C beta gamma
PEAK, WARMUP, DELTA = 3e-4, 500, 1e-3


def rates(shape, steps):
    t = np.arange(1, steps + 1, dtype=float)
    eta = np.full(steps, PEAK)
    if shape == "cosine":
        u = np.clip((t - WARMUP) / (steps - WARMUP), 0, 1)
        eta = 3e-5 + (PEAK - 3e-5) * 0.5 * (1 + np.cos(np.pi * u))
    elif shape == "wsd":
        cooldown = int(math.floor(0.2 * steps + 0.5))
        start = steps - cooldown
        u = np.clip((t - start) / cooldown, 0, 1)
        eta = np.where(t <= start, PEAK, PEAK * (1 - u))
    return np.where(t <= WARMUP, PEAK * t / WARMUP, eta)


class Prepared:
    """PreparedSchedule of ScheduleLaws.cpp: prefix sums, per-step drops, merged blocks."""

    def __init__(self, eta):
        self.eta = eta
        T = len(eta)
        self.T = T
        self.area = np.concatenate([[0.0], np.cumsum(eta)])
        self.block = max(1, int(math.floor(math.sqrt(max(0, T - WARMUP) / 4.0) + 0.5)))
        before = np.concatenate([[eta[0]], eta[:-1]])
        k = np.arange(1, T + 1)
        self.drop = np.where(k > WARMUP, before - eta, 0.0)
        self.log_rate = np.log(np.maximum(eta, 1e-30))
        self.area_before = self.area[:-1]
        self.blocks = []  # (last, drop, log_rate, area_before)
        for first in range(WARMUP + 1, T + 1, self.block):
            last = min(T, first + self.block - 1)
            sl = slice(first - 1, last)
            w = np.abs(self.drop[sl])
            if w.sum() <= 0:
                continue
            self.blocks.append((last, self.drop[sl].sum(), (w * self.log_rate[sl]).sum() / w.sum(),
                                (w * self.area_before[sl]).sum() / w.sum()))

    def terms(self, t):
        """The (drop, ln η, S1(k−1)) terms of LD(t)/B: merged blocks, then step by step."""
        done = (t - self.block - WARMUP) // self.block if t - self.block - WARMUP >= 0 else 0
        exact_from = WARMUP + 1 + done * self.block
        out = [(d, lr, a) for (last, d, lr, a) in self.blocks if last < exact_from]
        sl = slice(exact_from - 1, t)
        nz = np.nonzero(self.drop[sl])[0]
        out += list(zip(self.drop[sl][nz], self.log_rate[sl][nz], self.area_before[sl][nz]))
        return out


class Terms:
    """Every term of every point, flattened, so one objective is a few numpy operations."""

    def __init__(self, points):  # points: (Prepared, step, log loss)
        self.S = np.array([p.area[t] for p, t, _ in points])
        self.log_loss = np.array([y for _, _, y in points])
        idx, d, lr, a = [], [], [], []
        for i, (p, t, _) in enumerate(points):
            for (dd, ll, aa) in p.terms(t):
                idx.append(i), d.append(dd), lr.append(ll), a.append(aa)
        self.idx, self.d, self.lr = np.array(idx, dtype=int), np.array(d), np.array(lr)
        self.s_k = np.maximum(0.0, self.S[self.idx] - np.array(a))
        self.n = len(points)

    def predict(self, p, gradient=False):
        L0, A, alpha, B, C, beta, gamma = p
        x = np.exp(-gamma * self.lr) * self.s_k
        lu = np.log1p(C * x)
        pw = np.exp(-beta * lu)
        LD = np.bincount(self.idx, self.d * (1 - pw), self.n)
        power = self.S ** -alpha
        value = L0 + A * power - B * LD
        if not gradient:
            return value
        dGdx = beta * pw / (1 + C * x)
        dC = np.bincount(self.idx, self.d * dGdx * x, self.n)
        dBeta = np.bincount(self.idx, self.d * pw * lu, self.n)
        dGamma = np.bincount(self.idx, self.d * dGdx * C * (-self.lr * x), self.n)
        g = np.stack([np.ones(self.n), power, -A * power * np.log(self.S), -LD, -B * dC, -B * dBeta, -B * dGamma], axis=1)
        return value, g


LOG = [False, True, False, True, True, False, False]  # A, B, C searched in logarithms


def to_params(x):
    return np.array([math.exp(v) if LOG[i] else v for i, v in enumerate(x)])


def objective(x, terms):
    p = to_params(x)
    value, g = terms.predict(p, gradient=True)
    if np.any(~np.isfinite(value)) or np.any(value <= 0):
        return 1e30, np.zeros(7)
    r = np.log(value) - terms.log_loss
    a = np.abs(r)
    f = np.where(a <= DELTA, 0.5 * r * r, DELTA * (a - 0.5 * DELTA)).sum()
    slope = np.clip(r, -DELTA, DELTA)
    lg = g / value[:, None] * np.array([p[i] if LOG[i] else 1.0 for i in range(7)])[None, :]
    return f, slope @ lg


def main():
    curves = [("constant", 24000), ("cosine", 48000), ("wsd", 72000)]
    prepared = [Prepared(rates(s, n)) for s, n in curves]
    points = []
    for p in prepared:
        steps = list(range(600, p.T + 1, 100))
        truth = Terms([(p, t, 0.0) for t in steps]).predict(TRUTH)
        n, m = len(steps), 120
        for j in range(min(n, m)):
            i = j if n <= m else int(math.floor(j * (n - 1) / (m - 1) + 0.5))
            points.append((p, steps[i], math.log(truth[i])))
    started = time.perf_counter()
    terms = Terms(points)
    min_loss = math.exp(min(y for _, _, y in points))
    mid = points[len(points) // 2]
    mid_area = mid[0].area[mid[1]]
    starts = []
    for l0 in (0.5, 0.8):
        for alpha in (0.3, 0.6):
            L0 = l0 * min_loss
            A = max(1e-6, (math.exp(mid[2]) - L0) * mid_area ** alpha)
            for b in (0.1, 0.5):
                for c in (0.5, 2.0):
                    starts.append([L0, math.log(A), alpha, math.log(b / PEAK), math.log(c), 0.6, 0.6])
    bounds = [(0, min_loss * 0.999), (-15, 15), (0.01, 3), (math.log(1e-3 / PEAK), math.log(1e4 / PEAK)), (-20, 10), (0.01, 5), (0, 3)]
    best = None
    evaluations = 0
    for s in starts:
        r = minimize(objective, np.array(s), args=(terms,), jac=True, method="L-BFGS-B", bounds=bounds)
        evaluations += r.nfev
        if best is None or r.fun < best.fun:
            best = r
    seconds = time.perf_counter() - started
    p = to_params(best.x)
    print(f"scipy L-BFGS-B, {len(starts)} starts, {len(points)} points, {len(terms.d)} terms: {seconds:.2f} s, "
          f"{evaluations} evaluations, objective {best.fun:.3e}")
    print("  fitted " + " ".join(f"{v:.4g}" for v in p))
    print("  truth  " + " ".join(f"{v:.4g}" for v in TRUTH))


if __name__ == "__main__":
    main()
