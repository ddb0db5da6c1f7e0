#!/usr/bin/env bash
# Installs what is missing, builds the program alone (Release: no tests, benchmarks or GPU
# kernels) and opens it on its built-in example project, on the view that fits it best
# (analysis::firstView: the IsoFLOP figure of the paper's compute-optimal laws; SCALEX_FIRST_VIEW
# names another view). Without a display it renders the main window to a PNG instead and prints where.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCALEX_BUILD_DIR:-$root/build}"

view=()
[ -n "${SCALEX_FIRST_VIEW:-}" ] && view=(--view "$SCALEX_FIRST_VIEW")

"$root/packaging/install-deps.sh" --run
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEX_BUILD_TESTS=OFF -DSCALEX_BUILD_BENCH=OFF \
  -DSCALEX_ENABLE_CUDA=OFF
cmake --build "$build" --target scalex

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$build/app/scalex" --example "${view[@]}" "$@"
fi
out="$build/scalex-main-window.png"
echo "run.sh: no display found; rendering the main window offscreen instead"
QT_QPA_PLATFORM=offscreen "$build/app/scalex" --example "${view[@]}" --screenshot "$out"
