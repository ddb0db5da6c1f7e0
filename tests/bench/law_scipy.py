#!/usr/bin/env python3
"""The 9-parameter law of law_bench.cpp (NineParameterLaw) fitted with scipy, for comparison.

Same 400 runs (SplitMix64 seed 42, Farseer's form at the same truth, 0.1 % noise), same objective
(squared log residuals), same box and the same 65 starts (the declared start, then 64 Halton points
shifted by SplitMix64(20250601)), each run by scipy.optimize.minimize(method="L-BFGS-B") with its
default tolerances, one after another (one core). Two gradients: scipy's default two-point finite
differences, and the exact gradient written out by hand with numpy.

    /usr/bin/python3 tests/bench/law_scipy.py
"""
import math
import time

import numpy as np
from scipy.optimize import minimize

MASK = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * 2.0**-53


NAMES = ["a1", "b1", "g1", "a2", "b2", "g2", "a3", "b3", "g3"]
LOWER = np.array([-5, -5, -1, -5, -5, -1, -5, -5, -1], dtype=float)
UPPER = np.array([5, 2, 1, 5, 5, 1, 5, 3, 1], dtype=float)
DECLARED = np.array([0.1, -1, 0.1, 0.5, 0, -0.1, 0.5, 0.3, -0.1])
TRUTH = np.array([0.1, -1.2, 0.1, 0.5, 0.2, -0.1, 0.4, 0.3, -0.1])


def law(p, n, d):
    a1, b1, g1, a2, b2, g2, a3, b3, g3 = p
    nn, dn = n / 1e9, d / 1e9
    return np.exp(a3 * nn**g3 + b3) + np.exp(a2 * nn**g2 + b2) * dn ** (-np.exp(a1 * nn**g1 + b1))


def generate():
    rng = SplitMix64(42)
    n, d, y = [], [], []
    for _ in range(400):
        ni = math.exp(math.log(1e7) + rng.uniform() * math.log(1e3))
        di = math.exp(math.log(1e9) + rng.uniform() * math.log(1e3))
        z = sum(rng.uniform() for _ in range(12)) - 6
        n.append(ni)
        d.append(di)
        y.append(float(law(TRUTH, np.array(ni), np.array(di))) * (1 + 0.001 * z))
    return np.array(n), np.array(d), np.array(y)


def starts(count=64, seed=20250601):
    primes = [2, 3, 5, 7, 11, 13, 17, 19, 23]
    rng = SplitMix64(seed)
    shift = [rng.uniform() for _ in range(9)]

    def radical_inverse(i, b):
        f, r = 1.0, 0.0
        while i > 0:
            f /= b
            r += f * (i % b)
            i //= b
        return r

    out = [DECLARED.copy()]
    for i in range(1, count + 1):
        u = np.array([(radical_inverse(i, primes[j]) + shift[j]) % 1.0 for j in range(9)])
        out.append(LOWER + u * (UPPER - LOWER))
    return out


def main():
    n, d, y = generate()
    ly = np.log(y)
    nn, dn = n / 1e9, d / 1e9
    lnn, ldn = np.log(nn), np.log(dn)

    def objective(p):
        pred = law(p, n, d)
        if np.any(~(pred > 0)) or not np.all(np.isfinite(pred)):
            return 1e300
        r = ly - np.log(pred)
        return float(r @ r)

    def objective_and_gradient(p):
        a1, b1, g1, a2, b2, g2, a3, b3, g3 = p
        p1, p2, p3 = nn**g1, nn**g2, nn**g3
        t3 = np.exp(a3 * p3 + b3)
        t2 = np.exp(a2 * p2 + b2)
        x = np.exp(a1 * p1 + b1)
        pw = dn ** (-x)
        pred = t3 + t2 * pw
        if np.any(~(pred > 0)) or not np.all(np.isfinite(pred)):
            return 1e300, np.zeros(9)
        r = ly - np.log(pred)
        w = -2 * r / pred
        dx = -t2 * pw * ldn * x  # d pred / d (a1 p1 + b1)
        grads = [dx * p1, dx, dx * a1 * p1 * lnn, t2 * pw * p2, t2 * pw, t2 * pw * a2 * p2 * lnn, t3 * p3, t3, t3 * a3 * p3 * lnn]
        return float(r @ r), np.array([w @ g for g in grads])

    bounds = list(zip(LOWER, UPPER))
    print(f"objective at the truth: {objective(TRUTH):.6e}")
    for label, fun, jac in [("two-point finite differences", objective, None), ("exact gradient", objective_and_gradient, True)]:
        t0, c0 = time.perf_counter(), time.process_time()
        best = None
        evaluations = 0
        for s in starts():
            res = minimize(fun, s, jac=jac, method="L-BFGS-B", bounds=bounds)
            evaluations += res.nfev
            if best is None or res.fun < best.fun:
                best = res
        seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"scipy L-BFGS-B, {label}: best objective {best.fun:.6e}, {seconds * 1000:.0f} ms wall, {cpu * 1000:.0f} ms CPU "
              f"for 65 starts, {evaluations} objective evaluations")
        print("  " + ", ".join(f"{k} = {v:.5g}" for k, v in zip(NAMES, best.x)))


if __name__ == "__main__":
    main()
