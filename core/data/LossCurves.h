#pragma once
// Training curves in long format, one row per logged step (the study's curves_*.csv: run_id,
// step, tokens, train_loss, val_loss, lr). They join the run table on run_id; an empty cell is
// "not logged at this step" (validation is logged every 1000 steps), not a problem.
#include <QByteArray>
#include <map>
#include <string>
#include <vector>

#include "core/data/LoadError.h"

namespace scalex::data {

struct CurvePoint {
    double step = 0;
    double tokens = 0;     // NaN when not logged
    double trainLoss = 0;  // NaN when not logged
    double valLoss = 0;    // NaN when not logged
    double lr = 0;         // NaN when not logged
};

struct LossCurve {
    std::string runId;
    std::vector<CurvePoint> points;  // in file order (ascending steps)
    // The last logged validation loss (NaN when none), as the run table's final value.
    double finalValLoss() const;
};

struct LossCurves {
    std::string source;
    std::vector<LossCurve> curves;  // in order of first appearance
    std::size_t pointCount() const;
    const LossCurve* find(const std::string& runId) const;
};

// True when the header names the columns of a curves file (run_id and step) and no parameter
// count, model width or compute (which a run table of checkpoints has).
bool looksLikeLossCurves(const std::vector<std::string>& header);

// Reads a curves CSV. Unusable files give one LoadError naming file, line and column; a
// non-numeric or negative step is an error at its line, since the curve could not be ordered.
Expected<LossCurves> loadLossCurves(const std::string& path);
// The same from the bytes of a curves CSV; `file` names them in errors and is the source.
Expected<LossCurves> parseLossCurves(const QByteArray& bytes, const std::string& file);

}  // namespace scalex::data
