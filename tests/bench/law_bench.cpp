// Laws typed as formulas (core/fit/LawFit): the fits' objective and wall time.
//   - The Chinchilla form L = E + A/N^α + B/D^β on Epoch's 240 points (Besiroglu et al. 2024, the 5
//     highest losses left out), squared residuals: by variable projection (E, A, B by NNLS inside a
//     2-D search over α, β; 64 starts) against the plain 5-D multi-start from 8000 starts.
//   - Hoffmann's procedure on the same points (Huber δ = 1e-3 on log residuals, γ = 1): the shipped
//     `chinchilla` law from 64 starts against the paper's 8000-start grid of core/fit/LossSurface.
//   - A 9-parameter law (Farseer's form, LawLibrary) with 64 starts on 400 runs generated from it.
// Real time and process CPU time (every thread): on a busy machine the CPU time is the steadier figure.
//   scalex_law_bench --benchmark_filter=Epoch
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>

#include "core/analysis/Condition.h"
#include "core/analysis/RunSelection.h"
#include "core/data/RunTableIo.h"
#include "core/fit/LawFit.h"
#include "core/fit/LawLibrary.h"
#include "core/fit/LossSurface.h"
#include "core/fit/SplitMix64.h"

namespace {

using namespace scalex;

// Epoch's points with loss < 3.43, through the same reader and selection as every analysis.
const std::vector<fit::LossPoint>& epochPoints() {
    static const std::vector<fit::LossPoint> points = [] {
        const auto path = (std::filesystem::path(SCALEX_SHARED_DIR) / "data/public/epoch-chinchilla/svg_extracted_data.csv").string();
        auto table = data::loadRunTable(path);
        if (!table) return std::vector<fit::LossPoint>{};
        analysis::RunFilter f;
        f.where.push_back(*analysis::parseCondition("loss<3.43"));
        return analysis::lossSurfacePoints(*table, f).points;
    }();
    return points;
}

fit::CompiledLaw compile(fit::LawDefinition def) { return std::get<fit::CompiledLaw>(fit::compileLaw(def)); }

fit::LawData lawData(const std::vector<fit::LossPoint>& points) {
    fit::LawData d;
    d.variableCount = 2;
    for (const auto& p : points) d.add(std::vector<double>{p.params, p.tokens}, p.loss);
    return d;
}

void report(benchmark::State& state, const fit::LawFitResult& r, std::size_t runs) {
    state.counters["objective"] = r.objective;
    state.counters["starts"] = static_cast<double>(r.nStarts);
    state.counters["near_best"] = static_cast<double>(r.nNearBest);
    state.counters["runs"] = static_cast<double>(runs);
}

// args: projection (1) or the plain multi-start (0), starts, coefficients as E, A, B (0) or as
// their natural logs (1: L = exp(e) + exp(a − α ln N) + exp(b − β ln D), the parameterisation
// that keeps the plain search well scaled; same objective, no projection possible)
void EpochChinchillaSquared(benchmark::State& state) {
    const auto& pts = epochPoints();
    if (pts.size() != 240) {
        state.SkipWithError("../shared/data/public/epoch-chinchilla is not beside the checkout");
        return;
    }
    auto def = *fit::shippedLaw("chinchilla-vp");
    if (state.range(2)) {
        def = *fit::shippedLaw("chinchilla");
        def.loss = fit::LawLoss::Squared;
        def.space = fit::LawSpace::Linear;
    }
    const auto law = compile(def);
    const auto data = lawData(pts);
    fit::LawFitSettings s;
    s.projection = state.range(0) != 0;
    s.starts = static_cast<int>(state.range(1));
    fit::FitControl control;
    control.threads = 2;
    fit::LawFitResult last;
    for (auto _ : state) {
        last = fit::fitLaw(law, data, s, control);
        benchmark::DoNotOptimize(last.objective);
    }
    report(state, last, data.size());
}
BENCHMARK(EpochChinchillaSquared)
    ->ArgNames({"projection", "starts", "log_coefficients"})
    ->Args({1, 64, 0})
    ->Args({0, 64, 0})
    ->Args({0, 8000, 0})
    ->Args({0, 64, 1})
    ->Args({0, 8000, 1})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()->UseRealTime()
    ->Iterations(3);

// Huber δ = 1e-3 on log residuals, γ = 1: the shipped law (args: starts) ...
void EpochHoffmannLaw(benchmark::State& state) {
    const auto& pts = epochPoints();
    if (pts.size() != 240) {
        state.SkipWithError("../shared/data/public/epoch-chinchilla is not beside the checkout");
        return;
    }
    const auto law = compile(*fit::shippedLaw("chinchilla"));
    const auto data = lawData(pts);
    fit::LawFitSettings s;
    s.starts = static_cast<int>(state.range(0));
    fit::FitControl control;
    control.threads = 2;
    fit::LawFitResult last;
    for (auto _ : state) {
        last = fit::fitLaw(law, data, s, control);
        benchmark::DoNotOptimize(last.objective);
    }
    report(state, last, data.size());  // published objective 1.01827e-3
}
BENCHMARK(EpochHoffmannLaw)->ArgNames({"starts"})->Arg(64)->Arg(8000)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime()->Iterations(3);

// ... against the L(N,D) fitter's paper grid (8000 starts, screened) on the same objective.
void EpochHoffmannPaperGrid(benchmark::State& state) {
    const auto& pts = epochPoints();
    if (pts.size() != 240) {
        state.SkipWithError("../shared/data/public/epoch-chinchilla is not beside the checkout");
        return;
    }
    fit::LossSurfaceSettings s;
    s.fitGamma = false;
    fit::FitControl control;
    control.threads = 2;
    fit::LossSurfaceFit last;
    for (auto _ : state) {
        last = fit::fitLossSurface(pts, s, control);
        benchmark::DoNotOptimize(last.objective);
    }
    state.counters["objective"] = last.objective;
    state.counters["starts"] = static_cast<double>(last.nStarts);
}
BENCHMARK(EpochHoffmannPaperGrid)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime()->Iterations(3);

// Farseer's 9-parameter form with 64 starts on 400 runs generated from it (N 1e7–1e10, D 1e9–1e12
// log-uniform, 0.1 % noise). args: threads
void NineParameterLaw(benchmark::State& state) {
    const auto law = compile(*fit::shippedLaw("farseer"));
    const std::vector<double> truth{0.1, -1.2, 0.1, 0.5, 0.2, -0.1, 0.4, 0.3, -0.1};
    fit::SplitMix64 rng{42};
    fit::LawData data;
    data.variableCount = 2;
    std::vector<double> scratch;
    for (int i = 0; i < 400; ++i) {
        const double n = std::exp(std::log(1e7) + rng.uniform() * std::log(1e3));
        const double d = std::exp(std::log(1e9) + rng.uniform() * std::log(1e3));
        double z = -6;
        for (int k = 0; k < 12; ++k) z += rng.uniform();
        const std::vector<double> row{n, d};
        data.add(row, fit::lawValue(law.expression, truth, row, scratch) * (1 + 0.001 * z));
    }
    fit::LawFitSettings s;
    s.starts = 64;
    fit::FitControl control;
    control.threads = static_cast<int>(state.range(0));
    fit::LawFitResult last;
    for (auto _ : state) {
        last = fit::fitLaw(law, data, s, control);
        benchmark::DoNotOptimize(last.objective);
    }
    report(state, last, data.size());
    state.counters["objective_at_truth"] = fit::lawObjective(law, data, truth);
}
BENCHMARK(NineParameterLaw)->ArgNames({"threads"})->Arg(2)->Arg(1)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime()->Iterations(3);

}  // namespace
