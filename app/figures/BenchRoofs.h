#pragma once
// The roofs a `scalex bench --out` JSON file measured, for the runtime questions' --accelerator
// (core/analysis/RuntimeQueries.h, which does not link gpu/): the program's verbs and the Python
// module read benchmark files through this one function.
#include <QString>

#include "core/analysis/RuntimeQueries.h"

namespace scalex::figures {

// Throws std::exception naming the file and what was expected (gpu::loadBenchReport).
analysis::MeasuredRoofs readBenchRoofs(const QString& path);

}  // namespace scalex::figures
