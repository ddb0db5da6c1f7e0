#pragma once
// Columns derived on load where the file lacks them (DESIGN.md "Data flow"): N and C from the
// architecture (core/accounting), D from steps x batch x context, the nominal IsoFLOP budget,
// and the plausibility checks that mark a run as having problems.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelConfig.h"
#include "core/data/RunTable.h"

namespace scalex::data {

// Nominal budgets of the study's IsoFLOP sets (reference README "IsoFLOP" step 2).
inline constexpr double kStudyBudgets[] = {6e18, 1e19, 3e19, 1e20, 6e20, 3e21};

// The study's bucket rule: the budget B with |C - B| < 0.1 B, NaN when C is in none ("extra").
double nominalBudget(double flops);

// Largest sizes taken as an architecture (far beyond any trained model); past them the exact
// integer parameter count could overflow, so the run gets a problem instead of a derived N.
struct ArchitectureLimits {
    static constexpr std::int64_t dModel = 1 << 20, layers = 4096, heads = 4096, headDim = 8192, dFf = 1 << 22,
                                  vocab = 1 << 24, chunk = 1 << 16;
};
// The first architecture size beyond ArchitectureLimits, as a problem text; empty when none.
std::optional<std::string> architectureProblem(const Run& run);

// The model of a run when its architecture is complete (family, d_model, n_layers, n_heads);
// missing per-head and feed-forward widths follow the study's rules (makeStudyConfig). Empty
// when a size is beyond ArchitectureLimits.
std::optional<accounting::ModelConfig> runArchitecture(const Run& run);

// The convention a file's `attention_flop_calc_mode` names: "chinchilla" -> chinchilla (non-causal
// attention), anything else (distill_scaling, not_applicable, empty) -> study.
accounting::FlopConvention conventionForMode(std::string_view mode);

// C = trainingFlops(architecture, context, D) under `convention`; empty without architecture,
// context or D.
std::optional<double> architectureFlops(const Run& run, const accounting::FlopConvention& convention);

struct DerivationSettings {
    // Convention for C computed from the architecture; empty: the row's own mode (conventionForMode).
    std::optional<accounting::FlopConvention> convention;
    // Replace C given by the file with the architecture's count where the architecture is known.
    bool recomputeFlops = false;
};

// Fills N, D, C and the budget where missing (recording Provenance), given the row's FLOP mode and
// the nominal budget the file gives (NaN when none): N from the architecture, D from steps x batch
// x context, C from the architecture; then whichever of N, D, C is still missing from the other
// two by C = 6ND (flagged SixNdFallback), or C as the nominal budget (flagged NominalBudget). The
// budget is the file's (NaN when it gives none: the study's reading finds the budgets).
void deriveColumns(Run& run, std::string_view flopMode, const DerivationSettings& settings, double fileBudget = kUnknown);

// Appends the reasons a run cannot be used as is: failed status, missing or implausible N, D,
// loss (N < 1e5 looks like millions, D < 1e6 like billions, loss > 20 is no cross-entropy).
void checkPlausibility(Run& run);


}  // namespace scalex::data
