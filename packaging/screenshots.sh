#!/usr/bin/env bash
# Renders the README's screenshots of the main views from the built-in example project,
# offscreen: bash packaging/screenshots.sh [BUILD_DIR] [OUT_DIR]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
out="${2:-$root/resources/screenshots}"
mkdir -p "$out"
cmake --build "$build" --target scalex
for view in runs pareto surface overtraining isoflop context optimal breakdown roofline inference laws; do
  QT_QPA_PLATFORM=offscreen "$build/app/scalex" --example --view "$view" --size 1280x800 --theme light \
    --screenshot "$out/$view.png" 2>/dev/null
done
# Loss curves need checkpoints: the shipped Gemstones study.
QT_QPA_PLATFORM=offscreen "$build/app/scalex" "$root/datasets/gemstones/fineweb_dclm_losses_combined.jsonl" --view curves \
  --size 1280x800 --theme light --screenshot "$out/curves.png" 2>/dev/null
# One step of each shipped lesson, at a projector's 1024x768 in presentation mode, for the
# README's section for lecturers.
for spec in compute-optimal:4 isoflop-to-law:6 context-length:2 overtraining:3 decode-memory:2; do
  QT_QPA_PLATFORM=offscreen "$build/app/scalex" --example --lesson "${spec%%:*}" --step "${spec##*:}" --presentation \
    --size 1024x768 --theme light --screenshot "$out/lesson-${spec%%:*}.png" 2>/dev/null
done
