#pragma once
// The chart views over the run table: the one view of a registered figure, and the Pareto front's own.
#include "app/gui/FigureView.h"
#include "app/gui/ParetoView.h"
