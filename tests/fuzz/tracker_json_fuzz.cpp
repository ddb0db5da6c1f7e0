// libFuzzer target for the tracker-JSON reader (core/data/TrackerJson: a run exported from an
// experiment tracker, as in ../shared/data/public/lr-schedules) and what the curve laws build from
// it (core/analysis/CurveFits::loadCurveRuns: the schedule from the logged rates, the losses).
// Any bytes must give a run or one error naming the file; a run's steps are unique, ascending and
// >= 0, and the Multi-Power Law evaluates on its schedule without crashing.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_tracker_json && mkdir -p build-fuzz/corpus-tracker_json && \
//   build-fuzz/tests/fuzz/scalex_fuzz_tracker_json build-fuzz/corpus-tracker_json tests/data/fuzz/tracker_json \
//       -max_total_time=300 -max_len=8192
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/analysis/CurveFits.h"
#include "core/data/TrackerJson.h"
#include "tests/fuzz/FuzzInputFile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex;
    const std::string path = fuzz::writeInputFile(data, size, "run.json").toStdString();
    auto run = data::loadTrackerRun(path);
    if (!run) {
        if (run.error().message.empty() || run.error().file != path) std::abort();
        return 0;
    }
    if (run->name.empty() || run->curve.runId != run->name) std::abort();
    double previous = -1;
    for (const auto& p : run->curve.points) {
        if (!(p.step > previous)) std::abort();
        previous = p.step;
    }
    std::vector<data::TrackerRun> runs{*run, *run};
    data::joinCooldownRuns(runs);

    analysis::CurveFitOptions options;
    options.dataFiles = {path};
    auto curves = analysis::loadCurveRuns(options);
    if (!curves) {
        if (curves.error().message.empty()) std::abort();
        return 0;
    }
    const std::vector<double> mpl{2.375, 0.654, 0.429, 523.425, 2.025, 0.594, 0.635};
    for (const auto& c : *curves)
        for (const auto& p : c.points) c.schedule.loss(fit::CurveLaw::MultiPower, mpl, p.step);
    return 0;
}
