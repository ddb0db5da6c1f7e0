#pragma once
// The run table: one row per training run (DESIGN.md "Data flow"). Only family, N, D and a
// loss are required; everything else is optional (NaN / 0 / empty when unknown) and derived
// where possible. This header is plain C++ so that analyses can use it without Qt.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/Family.h"

namespace scalex::data {

inline constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
inline bool known(double v) { return !std::isnan(v); }

enum class ExperimentSet { TokenParam, IsoFlop, Other };

// Where a derived number came from, so views can flag fallbacks.
enum class Provenance { Missing, FromFile, Derived, SixNdFallback };

struct Run {
    // Identity and where it came from
    std::string runId;
    std::string name;
    std::string dataset;       // source set name (e.g. the file's `dataset` column or file stem)
    int sourceLine = 0;        // 1-based line in the source file (0 for generated runs)
    std::string status;        // the file's run status (finished, failed, ...); empty when not given

    accounting::Family family = accounting::Family::Transformer;
    ExperimentSet experimentSet = ExperimentSet::Other;
    double context = kUnknown;  // training context length T

    // Architecture (0 = unknown)
    std::int64_t dModel = 0, nLayers = 0, nHeads = 0, nKvHeads = 0, dQk = 0, dHv = 0, dFf = 0, vocab = 0, chunk = 0;

    // Scale
    double params = kUnknown;   // N
    double tokens = kUnknown;   // D
    double flops = kUnknown;    // C, training compute under the table's FLOP convention
    double budget = kUnknown;   // nominal IsoFLOP budget H (NaN when the run is in none)
    double batchSize = kUnknown;     // sequences
    double steps = kUnknown;
    double learningRate = kUnknown;

    // Outcome
    double valLoss = kUnknown;
    double trainLoss = kUnknown;

    // The study's own selection flag (`selected_in_paper`), when the file has one.
    std::optional<bool> selectedInPaper;

    Provenance paramsSource = Provenance::Missing;
    Provenance tokensSource = Provenance::Missing;
    Provenance flopsSource = Provenance::Missing;

    // Problems found on load (non-numeric, NaN, non-positive, duplicate, suspicious units, ...).
    // A run with problems is kept and listed but excluded from fits until the user includes it.
    std::vector<std::string> problems;
    std::optional<bool> userIncluded;  // the user's include/exclude toggle; overrides the default

    // The loss analyses use: validation loss, else training loss.
    double loss() const { return known(valLoss) ? valLoss : trainLoss; }
    double tokensPerParam() const { return tokens / params; }
    bool hasProblems() const { return !problems.empty(); }
    // Default: runs without problems are in; the user's toggle wins.
    bool included() const { return userIncluded.value_or(!hasProblems()); }
};

struct RunTable {
    std::string source;  // file the table came from (or "generated")
    std::vector<Run> runs;
};

}  // namespace scalex::data
