#pragma once
// The names of app/figures (charts, ticks, colours) that the window's code uses unqualified.
#include "app/figures/LogTicks.h"
#include "app/figures/Theme.h"

namespace scalex::figures {
class PlotChart;
struct AxisSpec;
}  // namespace scalex::figures

namespace scalex::gui {

using figures::AxisSpec;
using figures::formatCount;
using figures::formatFlops;
using figures::formatTickValue;
using figures::logTicks;
using figures::PlotChart;
using figures::Theme;
using figures::ThemeKind;
using figures::Tick;

}  // namespace scalex::gui
