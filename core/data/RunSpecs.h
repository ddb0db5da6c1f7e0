#pragma once
// The model spec a run names (DESIGN.md "A run with no family or spec ... has no accounting until
// the user names its spec"): a run table's `spec` column holds, per run, the name of one of the
// project's specs (Project::specs) or the path of a model file (Scalex's spec JSON or a Hugging
// Face config.json, SpecJson.h) relative to the table's own file. A bound run takes its
// accounting from the spec: N is the spec's parameters per token (SpecAccounting.h: the active
// parameters, the total for a dense model, as a ladder's c_T(N) counts them) where the file gives
// no N, and C = c_T(spec) D at the run's context under the study's FLOP convention where the file
// gives no C (D = C / c_T where D came from C = 6ND).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/FlopCount.h"
#include "core/accounting/ModelLadder.h"
#include "core/accounting/ModelSpec.h"
#include "core/data/LoadError.h"
#include "core/data/Project.h"
#include "core/data/RunTable.h"

namespace scalex::data {

// Binds runs to the specs they name; reads each model file once.
class RunSpecBinder {
public:
    RunSpecBinder(const std::vector<ProjectSpec>& specs, accounting::FlopConvention convention);

    // Sets run.specName and run.spec from the run's `spec` cell and fills N, D and C from the spec
    // (applySpecAccounting). A run without the cell, or with it empty, is left as it is. A name that
    // is no spec of the project and no readable model file is an error naming `file` (the table's
    // source), the run's line and the field `spec`; the run then gets it as a problem (kept, left out).
    std::optional<LoadError> bind(Run& run, const std::string& file);

private:
    std::shared_ptr<const accounting::ModelSpec> resolve(const std::string& name, const std::string& file, std::string* why);
    std::map<std::string, std::shared_ptr<const accounting::ModelSpec>> projectSpecs_;
    std::map<std::string, std::shared_ptr<const accounting::ModelSpec>> files_;  // by resolved path
    accounting::FlopConvention convention_;
};

// N, D and C of a run from `spec` where the file gives none (see the header comment); the
// "N missing" and "D missing" problems go once the number is there.
void applySpecAccounting(Run& run, const accounting::ModelSpec& spec, const accounting::FlopConvention& convention);

// The ladder of a series whose every run names a spec (none otherwise): the distinct specs its
// runs name, from the smallest up (by parameters per token), then the largest sized to the wider
// default widths (scaleSpec), c_T(N) taken through them in log N (ladderComputePerToken); a series
// of one spec has that spec sized to every width (specLadder).
std::optional<accounting::ModelLadder> seriesSpecLadder(const RunTable& table, const std::string& series);

}  // namespace scalex::data
