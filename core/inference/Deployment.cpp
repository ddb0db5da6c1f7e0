#include "core/inference/Deployment.h"

#include <cmath>

#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"

namespace scalex::inference {

using namespace scalex::accounting;

namespace {
template <class Model>
double stageTime(Stage stage, const Model& c, const RuntimeRates& r, double batch, double prefill, const WorkSettings& s) {
    const StageModel& m = stage == Stage::Prefill ? r.prefill : r.decode;
    return m.time(stageWork(stage, c, batch, prefill, s), batch);
}

// The largest of `count` candidates within the budget, each given by its parameters and time.
MaxModelAnswer largest(std::size_t count, double budgetSeconds, const std::function<CandidateTime(std::size_t)>& timeOf) {
    MaxModelAnswer a;
    double bestParams = -1;
    for (std::size_t i = 0; i < count; ++i) {
        CandidateTime t = timeOf(i);
        t.index = i;
        t.meetsBudget = t.seconds <= budgetSeconds;
        if (t.meetsBudget && t.params > bestParams) {
            bestParams = t.params;
            a.best = i;
        }
        a.evaluated.push_back(t);
    }
    return a;
}

CrossoverAnswer crossover(const std::function<double(double)>& adv, double factor, double minContext, double maxContext);
}  // namespace

MaxModelAnswer largestWithinBudget(const std::vector<Candidate>& candidates, Stage stage, double budgetSeconds,
                                   double batch, double prefill, const RatesFor& rates, const WorkSettings& settings) {
    return largest(candidates.size(), budgetSeconds, [&](std::size_t i) {
        const ModelConfig& c = candidates[i].config;
        CandidateTime t;
        t.params = static_cast<double>(countParameters(c).total());
        t.seconds = stageTime(stage, c, rates(c), batch, prefill, settings);
        return t;
    });
}

MaxModelAnswer largestWithinBudget(const std::vector<SpecCandidate>& candidates, Stage stage, double budgetSeconds,
                                   double batch, double prefill, const RuntimeRates& rates, const WorkSettings& settings) {
    return largest(candidates.size(), budgetSeconds, [&](std::size_t i) {
        const ModelSpec& c = candidates[i].spec;
        CandidateTime t;
        t.params = static_cast<double>(paramCounts(c).total());
        t.seconds = stageTime(stage, c, rates, batch, prefill, settings);
        return t;
    });
}

std::vector<Candidate> widthSweep(Family family, std::int64_t dMin, std::int64_t dMax, std::int64_t dStep,
                                  std::int64_t nLayers, std::int64_t headDim) {
    std::vector<Candidate> out;
    if (dStep <= 0 || headDim <= 0) return out;
    for (std::int64_t d = dMin; d <= dMax; d += dStep) {
        if (d <= 0 || d % headDim != 0) continue;
        ConfigOverrides ov;
        if (family == Family::Xlstm) {
            ov.dHv = headDim;
            ov.dQk = headDim / 2;
        }
        const ModelConfig c = makeStudyConfig(family, d, nLayers, d / headDim, ov);
        if (validate(c)) continue;
        std::string label = "d";
        label += std::to_string(d);
        label += " L";
        label += std::to_string(nLayers);
        out.push_back({std::move(label), c});
    }
    return out;
}

double xlstmAdvantage(const ModelConfig& t, const RuntimeRates& tr, const ModelConfig& x, const RuntimeRates& xr,
                      Stage stage, double batch, double context, const WorkSettings& s) {
    return stageTime(stage, t, tr, batch, context, s) / stageTime(stage, x, xr, batch, context, s);
}

CrossoverAnswer advantageCrossover(const ModelConfig& t, const RuntimeRates& tr, const ModelConfig& x,
                                   const RuntimeRates& xr, Stage stage, double batch, double factor,
                                   const WorkSettings& s, double minContext, double maxContext) {
    return crossover([&](double ctx) { return xlstmAdvantage(t, tr, x, xr, stage, batch, ctx, s); }, factor, minContext, maxContext);
}

double specAdvantage(const ModelSpec& baseline, const ModelSpec& model, const RuntimeRates& rates, Stage stage, double batch,
                     double context, const WorkSettings& s) {
    return stageTime(stage, baseline, rates, batch, context, s) / stageTime(stage, model, rates, batch, context, s);
}

CrossoverAnswer advantageCrossover(const ModelSpec& baseline, const ModelSpec& model, const RuntimeRates& rates, Stage stage,
                                   double batch, double factor, const WorkSettings& s, double minContext, double maxContext) {
    return crossover([&](double ctx) { return specAdvantage(baseline, model, rates, stage, batch, ctx, s); }, factor, minContext,
                     maxContext);
}

namespace {
CrossoverAnswer crossover(const std::function<double(double)>& adv, double factor, double minContext, double maxContext) {
    CrossoverAnswer a;
    a.advantageAtStart = adv(minContext);
    a.advantageAtEnd = adv(maxContext);
    if (a.advantageAtStart >= factor) {
        a.context = minContext;
        return a;
    }
    // Geometric scan (ratio 2^(1/4)) for the first context where the factor is reached; the
    // advantage need not be monotone at short contexts where overheads dominate.
    double lo = minContext, hi = -1;
    for (double ctx = minContext; ctx < maxContext;) {
        const double next = std::min(maxContext, std::ceil(ctx * 1.189207115002721) + 1);
        if (adv(next) >= factor) {
            lo = ctx;
            hi = next;
            break;
        }
        ctx = next;
    }
    if (hi < 0) return a;
    // Bisection on whole tokens: adv(lo) < factor <= adv(hi).
    while (hi - lo > 1) {
        const double mid = std::floor(0.5 * (lo + hi));
        (adv(mid) >= factor ? hi : lo) = mid;
    }
    a.context = hi;
    return a;
}
}  // namespace

}  // namespace scalex::inference
