#pragma once
// The generated example study (datasets/example/README.md): run tables of both families, the
// Token/Param runs drawn from the paper's fitted loss surfaces L(N,D) (Tab. lnd_fit_params), the
// IsoFLOP profiles centred on the paper's IsoFLOP laws N*(H), with a documented noise model.
// Everything it makes is labelled as generated (run ids and dataset names start with "generated-"). Deterministic: the same tables and options give the same runs on every machine.
#include <QJsonObject>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"

namespace scalex::data {

struct ExampleOptions {
    std::uint64_t seed = 2025;
    // Multiplicative log-normal noise: L = L_surface * exp(sigma * z), z ~ N(0, 1). The scatter of
    // the study's token/param runs about the published surface is 0.0045-0.0048 in log loss.
    double noiseSigma = 0.005;
    // IsoFLOP runs scatter about their profile with sigma times this: the study's IsoFLOP runs
    // scatter 0.002-0.006 in log loss about their per-budget parabolas (0.003 or less at 3e19).
    double isoflopNoiseFactor = 0.6;
    double huberDelta = 1e-3;  // which row of Tab. lnd_fit_params (gamma free)
    // Token/Param grid: ratios M (Tab. tokenparam_slopes extended to 2200) on the Token/Param
    // model sizes, each run only if its token count stays at or below maxTokens.
    std::vector<double> tokensPerParam{22, 44, 110, 220, 550, 1100, 2200};
    double maxTokens = 1e12;
    // IsoFLOP profiles: budgets of Tab. isoflop_batch_sizes at each context; 6e20 only at 8192.
    std::vector<std::int64_t> contexts{2048, 8192, 16384};
    std::vector<double> budgets{6e18, 1e19, 3e19, 1e20};
    std::vector<double> budgetsCtx8192Only{6e20};
    // An IsoFLOP configuration is run at a budget when its tokens/param ratio falls in this range
    // (the range the study's selected IsoFLOP runs span).
    double minTokensPerParam = 2.5, maxTokensPerParam = 200;

    QJsonObject toJson() const;
};

struct ExampleStudy {
    RunTable tokenParam;  // dataset "generated-tokenparam-ctx8192"
    RunTable isoflop;     // datasets "generated-isoflop-ctx<T>"
};

// The standard normal draws of the noise model: Box-Muller on 53-bit uniforms of std::mt19937_64
// (whose sequence the standard fixes; std::normal_distribution's is not), so the same seed gives
// the same runs with every standard library.
class NormalStream {
public:
    explicit NormalStream(std::uint64_t seed) : engine_(seed) {}
    double next();

private:
    std::mt19937_64 engine_;
    bool haveSpare_ = false;
    double spare_ = 0;
};

ExampleStudy generateExampleStudy(const PaperTables& tables, const ExampleOptions& options = {});

}  // namespace scalex::data
