#!/usr/bin/env bash
# Installs what is missing, builds Scalex (Release) and opens it on its built-in example project.
# Without a display it renders the main window to a PNG instead and prints where.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCALEX_BUILD_DIR:-$root/build}"

"$root/packaging/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" --target scalex

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$build/app/scalex" --example "$@"
fi
out="$build/scalex-main-window.png"
echo "run.sh: no display found; rendering the main window offscreen instead"
QT_QPA_PLATFORM=offscreen "$build/app/scalex" --example --screenshot "$out"
