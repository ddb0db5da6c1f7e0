#include "core/inference/RuntimeModel.h"

#include <algorithm>
#include <cmath>

#include "core/accounting/ParamCount.h"
#include "core/accounting/SpecAccounting.h"

namespace scalex::inference {

using namespace scalex::accounting;

std::string_view stageName(Stage stage) { return stage == Stage::Prefill ? "prefill" : "decode"; }

std::optional<Stage> parseStage(std::string_view text) {
    if (text == "prefill" || text == "ttft") return Stage::Prefill;
    if (text == "decode" || text == "generation" || text == "step") return Stage::Decode;
    return std::nullopt;
}

accounting::FlopConvention runtimeConvention() {
    accounting::FlopConvention c = appendixConvention();
    c.ops.causal = 1.0;
    return c;
}

double prefillTokens(double prefill) { return std::max(prefill, 1.0); }

double prefillWork(const ModelConfig& c, double batch, double prefill, const WorkSettings& s) {
    return prefillFlops(c, batch, prefillTokens(prefill), s.convention).total();
}

namespace {
double meanStep(const WorkSettings& s) { return 0.5 * (std::max(s.generatedTokens, 1.0) + 1.0); }
}  // namespace

double decodeWork(const ModelConfig& c, double batch, double prefill, const WorkSettings& s) {
    // Attention traffic is linear in the step index, so the mean over steps 1..Tg is the value at (Tg+1)/2.
    return decodeStepBytes(c, batch, prefill, meanStep(s), s.bytes).total();
}

double stageWork(Stage stage, const ModelConfig& c, double batch, double prefill, const WorkSettings& s) {
    return stage == Stage::Prefill ? prefillWork(c, batch, prefill, s) : decodeWork(c, batch, prefill, s);
}

double prefillWork(const ModelSpec& spec, double batch, double prefill, const WorkSettings& s) {
    const double tokens = prefillTokens(prefill);
    return batch * tokens * forwardFlopsPerToken(spec, tokens, s.convention).total();
}

double decodeWork(const ModelSpec& spec, double batch, double prefill, const WorkSettings& s) {
    return accounting::decodeStepBytes(spec, batch, prefill + meanStep(s), s.bytes).total();
}

double stageWork(Stage stage, const ModelSpec& spec, double batch, double prefill, const WorkSettings& s) {
    return stage == Stage::Prefill ? prefillWork(spec, batch, prefill, s) : decodeWork(spec, batch, prefill, s);
}

Prediction predict(const ModelSpec& spec, double batch, double prefill, const RuntimeRates& rates, const WorkSettings& s) {
    Prediction p;
    const double tokens = prefillTokens(prefill);
    p.prefillFlops = prefillWork(spec, batch, prefill, s);
    p.prefillBytes = weightBytesRead(spec, batch * tokens, s.bytes) + accounting::cacheBytes(spec, tokens, batch, s.bytes);
    p.decodeFlops = batch * forwardFlopsPerToken(spec, prefill + meanStep(s), s.convention).total();
    p.decodeBytes = decodeWork(spec, batch, prefill, s);
    p.ttft = rates.prefill.time(p.prefillFlops, batch);
    p.stepTime = rates.decode.time(p.decodeBytes, batch);
    p.throughput = batch / p.stepTime;
    p.weightBytes = accounting::weightBytes(spec, s.bytes);
    p.cacheBytes = accounting::cacheBytes(spec, prefill + s.generatedTokens, batch, s.bytes);
    return p;
}

RuntimeRates ratesFromAccelerator(const Accelerator& a, double alphaFraction, double betaFraction) {
    RuntimeRates r;
    r.prefill.rate = a.flops * alphaFraction;
    r.decode.rate = a.memoryBandwidth * betaFraction;
    return r;
}

double weightBytes(const ModelConfig& c, const ByteWidths& b) {
    const ParamBreakdown p = countParameters(c);
    const double embeddings = static_cast<double>(p.embedding + p.unembedding);
    return (static_cast<double>(p.total()) - embeddings) * b.weights + embeddings * b.embedding;
}

StageModel interpolateRates(std::vector<SizedStageModel> fits, double params) {
    if (fits.empty()) return {};
    std::sort(fits.begin(), fits.end(), [](const auto& a, const auto& b) { return a.params < b.params; });
    if (params <= fits.front().params) return fits.front().model;
    if (params >= fits.back().params) return fits.back().model;
    const auto hi = std::upper_bound(fits.begin(), fits.end(), params,
                                     [](double n, const SizedStageModel& f) { return n < f.params; });
    const auto lo = hi - 1;
    if (params == lo->params) return lo->model;
    const double t = std::log(params / lo->params) / std::log(hi->params / lo->params);
    StageModel m;
    m.rate = std::exp((1 - t) * std::log(lo->model.rate) + t * std::log(hi->model.rate));
    m.overhead = (1 - t) * lo->model.overhead + t * hi->model.overhead;
    m.batchTerm = (1 - t) * lo->model.batchTerm + t * hi->model.batchTerm;
    return m;
}

Prediction predict(const ModelConfig& c, double batch, double prefill, const RuntimeRates& rates,
                   const WorkSettings& s) {
    Prediction p;
    const double tokens = prefillTokens(prefill);
    p.prefillFlops = prefillWork(c, batch, prefill, s);
    p.prefillBytes = forwardBytes(c, batch, tokens, s.bytes).total();
    p.decodeFlops = decodeStepFlops(c, batch, prefill, meanStep(s), s.convention).total();
    p.decodeBytes = decodeWork(c, batch, prefill, s);
    p.ttft = rates.prefill.time(p.prefillFlops, batch);
    p.stepTime = rates.decode.time(p.decodeBytes, batch);
    p.throughput = batch / p.stepTime;
    p.weightBytes = weightBytes(c, s.bytes);
    p.cacheBytes = cacheBytes(c, defaultSequenceMix(c), batch, prefill + s.generatedTokens, s.bytes);
    return p;
}

}  // namespace scalex::inference
