#pragma once
// The plain value types of core/fit that app code names: the results a view draws (laws, the
// L(N,D) surface, frontiers and their comparison, intervals, compute-optimal points) and the
// FitControl a job passes on. app/ reaches core/fit only through core/analysis (DESIGN.md
// "Dependency direction"): naming these is fine, calling a fit is not, and the build checks both
// (packaging/cmake/CheckLayers.cmake).
#include "core/fit/Bootstrap.h"
#include "core/fit/ComputeOptimal.h"
#include "core/fit/FitControl.h"
#include "core/fit/LossSurface.h"
#include "core/fit/Pareto.h"
#include "core/fit/PowerLaw.h"
