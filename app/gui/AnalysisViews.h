#pragma once
// The chart views over the run table whose analyses are quick to redo: Pareto front (Fig. 1),
// over-training slopes (Fig. 3) and IsoFLOP profiles (Figs. 4 and 5).
#include "app/gui/IsoFlopView.h"
#include "app/gui/OverTrainingView.h"
#include "app/gui/ParetoView.h"
