# Installation and the Debian package: `cmake --install build`, or `cpack -G DEB` in the build
# folder (packaging/package.sh). Depends is computed by dpkg-shlibdeps from the libraries the
# program links. A build with CUDA (nvcc found) makes the package scalex-cuda, which carries the
# CUDA microbenchmarks (static CUDA runtime, cuBLAS opened only when a GEMM is timed) and
# replaces scalex; both start on machines without a GPU or driver.
include(${CMAKE_CURRENT_LIST_DIR}/cmake/DesktopIntegration.cmake)

set(SCALEX_PACKAGE_MAINTAINER "Scalex maintainers <maintainers@scalex.invalid>" CACHE STRING
  "Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME scalex)
set(CPACK_PACKAGE_VENDOR "Scalex")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${SCALEX_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "desktop explorer for neural scaling laws")
# The long description as dpkg shows it: lines of at most 80 characters.
set(CPACK_PACKAGE_DESCRIPTION "Scalex makes the analyses of neural scaling laws interactive and exact:
Pareto fronts of loss over compute, the parametric loss surface L(N,D),
over-training power laws, IsoFLOP profiles and compute-optimal model sizes
across context lengths, exact parameter, FLOP and memory-traffic accounting of
Transformer and mLSTM models, and a roofline model of inference time fed by
microbenchmarks. Figures export as PDF, SVG and PNG for papers, tables as
LaTeX, CSV and JSON; the headless command line (scalex help) fits, checks and
renders the same results.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The Wayland and other platform plugins; xcb and offscreen come with libqt6gui6.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "qt6-qpa-plugins")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
# The Python module (SCALEX_BUILD_PYTHON) goes in /usr/lib/python3/dist-packages (app/python):
# it is built for this python3 minor version only, and reads DataFrames with pandas.
if(SCALEX_BUILD_PYTHON)
  set(major ${SCALEX_PYTHON_VERSION_MAJOR})
  math(EXPR next "${SCALEX_PYTHON_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= ${major}.${SCALEX_PYTHON_VERSION_MINOR}), python3 (<< ${major}.${next})")
  string(APPEND CPACK_DEBIAN_PACKAGE_RECOMMENDS ", python3-pandas")
  string(APPEND CPACK_PACKAGE_DESCRIPTION "
.
The Python module scalex (import scalex) runs the same analyses from a notebook:
results as pandas DataFrames and the verbs' JSON, figures shown inline.")
endif()
if(SCALEX_HOMEPAGE_URL)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${SCALEX_HOMEPAGE_URL}")
endif()
if(SCALEX_HAVE_CUDA)
  set(CPACK_PACKAGE_NAME scalex-cuda)
  set(CPACK_DEBIAN_PACKAGE_PROVIDES scalex)
  set(CPACK_DEBIAN_PACKAGE_CONFLICTS scalex)
  set(CPACK_DEBIAN_PACKAGE_REPLACES scalex)
  string(APPEND CPACK_PACKAGE_DESCRIPTION_SUMMARY " (with CUDA microbenchmarks)")
  string(REPLACE ";" " and " cuda_architectures "${CMAKE_CUDA_ARCHITECTURES}")
  string(APPEND CPACK_PACKAGE_DESCRIPTION "
.
This build carries the CUDA microbenchmarks (architectures ${cuda_architectures}).
It starts and works on machines without a GPU or driver, and times GEMMs with
cuBLAS when a CUDA installation provides it.")
endif()
set(CPACK_DEBIAN_PACKAGE_NAME ${CPACK_PACKAGE_NAME})
include(CPack)
