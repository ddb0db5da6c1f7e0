#!/usr/bin/env bash
# Installs the Debian 12 packages Scalex builds and tests with, and only those
# that are missing; with --run only those that building and running the program needs.
# Safe to run any number of times.
set -euo pipefail

# What building and running the program needs (`install-deps.sh --run`, as packaging/run.sh calls it).
packages=(
  g++ cmake ninja-build pkg-config
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev
  libeigen3-dev libdlib-dev
  # dlib::dlib names these libraries by path but its -dev package does not depend on them
  libblas-dev liblapack-dev libjpeg-dev libpng-dev
  libquazip1-qt6-dev zlib1g-dev
  fonts-dejavu-core
)
# What the tests, benchmarks, the Python module and the package need besides (the default).
if [ "${1:-}" != "--run" ]; then
  packages+=(
    libgtest-dev libbenchmark-dev
    # headless rendering and GUI tests; Qt PDF reads the rendered PDFs back in the tests
    xvfb xauth qt6-pdf-dev
    # the Python module (app/python: pybind11) and its tests (pytest, pandas DataFrames)
    pybind11-dev python3-dev python3-pytest python3-pandas
    # the example notebook (examples/), executed headless by tests/python
    jupyter-nbconvert python3-ipykernel
    # the Debian package (packaging/package.sh: dpkg-shlibdeps, file) and the checks of what it
    # installs (tests/packaging): desktop entry, MIME type, AppStream metainfo
    dpkg-dev file desktop-file-utils shared-mime-info appstream
  )
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
