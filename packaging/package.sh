#!/usr/bin/env bash
# Builds the Debian package of Scalex: bash packaging/package.sh [BUILD_DIR]
# A new BUILD_DIR (default build-package/) is configured Release without tests or benchmarks;
# an existing one is used as it is. Only the program and its desktop files are built, then
# `cpack -G DEB` writes the package into BUILD_DIR. With nvcc found the package is scalex-cuda
# (it carries the CUDA microbenchmarks); SCALEX_CMAKE_ARGS=-DSCALEX_ENABLE_CUDA=OFF makes the
# plain scalex package on such a machine. The package carries the Python module (`import scalex`,
# in /usr/lib/python3/dist-packages) when the build has it (SCALEX_BUILD_PYTHON, on for a new
# BUILD_DIR).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build-package}"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/packaging/install-deps.sh"
if [ ! -f "$build/CMakeCache.txt" ]; then
  # shellcheck disable=SC2086  # SCALEX_CMAKE_ARGS is a list of arguments
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEX_BUILD_TESTS=OFF \
    -DSCALEX_BUILD_BENCH=OFF -DSCALEX_BUILD_PYTHON=ON ${SCALEX_CMAKE_ARGS:-}
fi
build_type="$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")"
[ "$build_type" = Release ] || echo "package.sh: warning: $build is a $build_type build"
targets=(scalex scalex_desktop_files)
grep -q '^SCALEX_BUILD_PYTHON:BOOL=ON$' "$build/CMakeCache.txt" && targets+=(scalex_python)
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
cd "$build"
rm -f scalex_*.deb scalex-cuda_*.deb
cpack -G DEB
for deb in scalex_*.deb scalex-cuda_*.deb; do
  [ -f "$deb" ] || continue
  echo "package.sh: $build/$deb ($(du -h "$deb" | cut -f1))"
  dpkg-deb -f "$deb" Package Version Depends
  dpkg-deb -c "$deb" | grep -o '\./usr/lib/python3/dist-packages/scalex/.*' || true
done
