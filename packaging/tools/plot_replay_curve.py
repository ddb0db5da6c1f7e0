#!/usr/bin/env python3
"""Draws the curve `scalex plan --replay --curve FILE.csv` writes: the target's mean relative
error (top) and R^2 (bottom) against the fraction of the pool's cost spent, for the planner,
cheapest-first, and random plans (median over seeds, the quartiles shaded). Standard library
only; writes an SVG.

    plot_replay_curve.py curve.csv curve.svg [--title TEXT]
"""
import argparse
import csv
import math
import sys

WIDTH, HEIGHT = 800, 800
LEFT, RIGHT, TOP, GAP, BOTTOM = 90, 30, 60, 90, 70
COLOURS = {"planner": "#c0392b", "cheapest": "#2c3e50", "random": "#2980b9"}


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit(f"{path}: no rows")
    return [{k: float(v) if v not in ("", "nan") else math.nan for k, v in r.items()} for r in rows]


def nice_ticks(lo, hi, count=5):
    span = hi - lo
    step = 10 ** math.floor(math.log10(span / count)) if span > 0 else 1
    for m in (1, 2, 5, 10):
        if span / (step * m) <= count:
            step *= m
            break
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 1)]


def panel(out, rows, key, label, y0, height, percent, log):
    xs = [r["fraction"] for r in rows]
    x_lo, x_hi = math.log10(min(xs)), math.log10(max(xs))
    values = [r[f"{s}_{key}"] for r in rows for s in ("planner", "cheapest", "random")]
    values += [r[f"random_{key}_low"] for r in rows] + [r[f"random_{key}_high"] for r in rows]
    values = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    scale = (lambda v: math.log10(v)) if log else (lambda v: v)
    y_lo, y_hi = scale(min(values)), scale(max(values))
    pad = 0.05 * (y_hi - y_lo or 1)
    y_lo, y_hi = y_lo - pad, y_hi + pad
    w = WIDTH - LEFT - RIGHT
    px = lambda f: LEFT + (math.log10(f) - x_lo) / (x_hi - x_lo or 1) * w
    py = lambda v: y0 + height - (scale(max(v, 1e-300) if log else v) - y_lo) / (y_hi - y_lo) * height
    out.append(f'<rect x="{LEFT}" y="{y0}" width="{w}" height="{height}" fill="none" stroke="#888"/>')
    ticks = [m * 10**e for e in range(math.floor(y_lo), math.ceil(y_hi) + 1) for m in (1, 2, 5)] if log else nice_ticks(y_lo, y_hi)
    for t in (t for t in ticks if y_lo <= scale(t) <= y_hi):
        y = py(t)
        out.append(f'<line x1="{LEFT}" x2="{LEFT + w}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>')
        text = f"{100 * t:g}" if percent else f"{t:g}"
        out.append(f'<text x="{LEFT - 8}" y="{y + 5:.1f}" text-anchor="end" font-size="15">{text}</text>')
    decade = math.floor(x_lo)
    while decade <= math.ceil(x_hi):
        for m in (1, 2, 5) if x_hi - x_lo < 2.5 else (1,):
            f = m * 10 ** decade
            if x_lo - 1e-9 <= math.log10(f) <= x_hi + 1e-9:
                x = px(f)
                out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y0}" y2="{y0 + height}" stroke="#eee"/>')
                out.append(f'<text x="{x:.1f}" y="{y0 + height + 20}" text-anchor="middle" font-size="15">{100 * f:g} %</text>')
        decade += 1
    out.append(f'<text x="22" y="{y0 + height / 2}" font-size="17" transform="rotate(-90 22 {y0 + height / 2})" '
               f'text-anchor="middle">{label}</text>')
    band = [(px(r["fraction"]), py(r[f"random_{key}_high"])) for r in rows if math.isfinite(r[f"random_{key}_high"])]
    band += [(px(r["fraction"]), py(r[f"random_{key}_low"])) for r in reversed(rows) if math.isfinite(r[f"random_{key}_low"])]
    out.append('<polygon fill="%s" fill-opacity="0.18" points="%s"/>' % (COLOURS["random"], " ".join(f"{x:.1f},{y:.1f}" for x, y in band)))
    for s in ("random", "cheapest", "planner"):
        pts = [(px(r["fraction"]), py(r[f"{s}_{key}"])) for r in rows if math.isfinite(r[f"{s}_{key}"])]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        dash = ' stroke-dasharray="6 4"' if s == "cheapest" else ""
        out.append(f'<polyline fill="none" stroke="{COLOURS[s]}" stroke-width="2.5"{dash} points="{path}"/>')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("curve")
    ap.add_argument("svg")
    ap.add_argument("--title", default="Replay: target error against cost spent")
    a = ap.parse_args()
    rows = read(a.curve)
    h = (HEIGHT - TOP - GAP - BOTTOM) / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
           'font-family="DejaVu Sans, sans-serif">', f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           f'<text x="{WIDTH / 2}" y="30" text-anchor="middle" font-size="20">{a.title}</text>']
    panel(out, rows, "mape", "mean |relative error| of the target (%, log)", TOP, h, True, True)
    panel(out, rows, "r2", "R\u00b2 of the target", TOP + h + GAP, h, False, False)
    out.append(f'<text x="{LEFT + (WIDTH - LEFT - RIGHT) / 2}" y="{HEIGHT - 18}" text-anchor="middle" font-size="17">'
               "fraction of the pool's cost spent (log scale)</text>")
    lx, ly = LEFT + 20, TOP + h + 40
    for k, (s, name) in enumerate((("planner", "planner"), ("cheapest", "cheapest first"), ("random", "random (median, quartiles)"))):
        x = lx + k * 210
        dash = ' stroke-dasharray="6 4"' if s == "cheapest" else ""
        out.append(f'<line x1="{x}" x2="{x + 30}" y1="{ly}" y2="{ly}" stroke="{COLOURS[s]}" stroke-width="3"{dash}/>')
        out.append(f'<text x="{x + 38}" y="{ly + 5}" font-size="15">{name}</text>')
    out.append("</svg>")
    with open(a.svg, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
