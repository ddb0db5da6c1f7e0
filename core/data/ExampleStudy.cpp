#include "core/data/ExampleStudy.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "core/accounting/FlopCount.h"
#include "core/accounting/ParamCount.h"
#include "core/data/RunDerivation.h"

namespace scalex::data {

using accounting::Family;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::string familyText(Family f) { return std::string(accounting::familyName(f)); }

// "1e+19" -> "1e19", "6e+18" -> "6e18": the paper's spelling of budgets.
std::string budgetText(double h) {
    const int exponent = static_cast<int>(std::floor(std::log10(h)));
    const double mantissa = h / std::pow(10.0, exponent);
    const int m = static_cast<int>(std::lround(mantissa));
    return std::to_string(m) + "e" + std::to_string(exponent);
}

void setArchitecture(Run& run, const accounting::ModelConfig& c) {
    run.dModel = c.dModel;
    run.nLayers = c.nLayers;
    run.nHeads = c.nHeads;
    run.nKvHeads = c.nKvHeads;
    run.dQk = c.dQk;
    run.dHv = c.dHv;
    run.dFf = c.dFf;
    run.vocab = c.vocab;
    run.chunk = c.family == Family::Xlstm ? c.chunk : 0;
}

// The learning rate of the Token/Param configuration nearest in log parameters: the study tuned
// IsoFLOP learning rates starting from these (App. "Hyperparameters for IsoFLOP setup").
double nearestTokenParamRate(const std::vector<PaperModelConfig>& tokenParam, double params) {
    double best = kUnknown, bestDistance = std::numeric_limits<double>::infinity();
    for (const auto& c : tokenParam) {
        if (c.learningRates.empty()) continue;
        const double d = std::abs(std::log(static_cast<double>(c.paramsM) * 1e6 / params));
        if (d < bestDistance) {
            bestDistance = d;
            best = c.learningRates.front();
        }
    }
    return best;
}

double drawLoss(double exact, NormalStream& noise, double sigma) {
    // One draw per run, in generation order, also when sigma is 0, so that the sequence of runs
    // does not depend on the noise level.
    const double z = noise.next();
    return sigma == 0 ? exact : exact * std::exp(sigma * z);
}

// The paper's IsoFLOP law N* = A' H^a for a family at a context: the headline fit of
// Tab. estimated_optimal_flops_tokens_powerlaw at 8192, the per-context tables elsewhere.
const IsoFlopPowerLawRow* isoFlopLaw(const PaperTables& tables, Family family, std::int64_t ctx) {
    const IsoFlopPowerLawRow* found = nullptr;
    for (const auto& row : tables.isoflopPowerLaws) {
        if (row.family != family || row.context != ctx) continue;
        if (!found || row.sourceTable == "estimated_optimal_flops_tokens_powerlaw") found = &row;
    }
    return found;
}

// Training FLOPs per token and parameter, C_token(N) / N, interpolated in ln N between the
// configurations of a family (clamped at the ends).
struct FlopsPerParamToken {
    std::vector<std::pair<double, double>> points;  // (ln N, C_token / N), ascending ln N
    double at(double u) const {
        if (points.empty()) return 6.0;
        if (u <= points.front().first) return points.front().second;
        if (u >= points.back().first) return points.back().second;
        for (std::size_t i = 1; i < points.size(); ++i)
            if (u <= points[i].first) {
                const auto& [u0, c0] = points[i - 1];
                const auto& [u1, c1] = points[i];
                return u1 == u0 ? c1 : c0 + (c1 - c0) * (u - u0) / (u1 - u0);
            }
        return points.back().second;
    }
};

// One IsoFLOP profile: L(N) = L* + w (log10 N - log10 N*)^2, the parabola the paper fits per
// budget, centred on the paper's N*(H) = A' H^a. L* is the lowest loss the surface reaches at the
// budget (on D = H / (c* N), c* = C_token(N*) / N*). The width approximates the study's profiles (Fig. 4, and the per-context
// profiles of Fig. 5): their curvature w in log10 N is about 1.1 at 6e18 FLOPs, 1.0 at 1e19, 0.6 at
// 3e19 and 0.5 at 1e20, for both families and every context; w(H) = 1.1 (H / 6e18)^-0.28 follows it,
// held at 0.5 beyond 1e20 where the study has no profiles.
struct IsoFlopProfileShape {
    double log10NOpt = 0, lossAtOpt = 0, width = 0;
    double loss(double n) const {
        const double x = std::log10(n) - log10NOpt;
        return lossAtOpt + width * x * x;
    }
};

IsoFlopProfileShape isoFlopProfileShape(const LossSurfaceParams& surface, const FlopsPerParamToken& perParamToken,
                                        const IsoFlopPowerLawRow& law, double h) {
    IsoFlopProfileShape shape;
    const double logNOpt = std::log(law.coefN) + law.exponentN * std::log(h);
    shape.log10NOpt = logNOpt / std::log(10.0);
    // The lowest loss the surface reaches at this budget (C_token / N held at its value at N*):
    // each family's optimum is as good as its surface says, wherever the paper's law puts it.
    const double perParam = perParamToken.at(logNOpt);
    auto profile = [&](double u) {
        const double n = std::exp(u);
        return surface.loss(n, h / (perParam * n));
    };
    constexpr double kInvPhi = 0.6180339887498949;  // golden-section search over 10^6..10^12 parameters
    double lo = std::log(1e6), hi = std::log(1e12);
    double x1 = hi - kInvPhi * (hi - lo), x2 = lo + kInvPhi * (hi - lo);
    double f1 = profile(x1), f2 = profile(x2);
    for (int i = 0; i < 200 && hi - lo > 1e-10; ++i) {
        if (f1 < f2) {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - kInvPhi * (hi - lo);
            f1 = profile(x1);
        } else {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + kInvPhi * (hi - lo);
            f2 = profile(x2);
        }
    }
    shape.lossAtOpt = profile(0.5 * (lo + hi));
    shape.width = std::max(0.5, 1.1 * std::pow(h / 6e18, -0.28));
    return shape;
}

// Makes one IsoFLOP profile's noise leave its least-squares parabola in log10 N unchanged: the
// residuals e_i = L_i - L_model(N_i) are projected off span{1, x, x^2} (x = log10 N, Gram-Schmidt
// on the centred x; the basis fit::fitParabola fits) and rescaled by sqrt(n / (n - 3)) so their
// spread stays sigma. The per-budget parabolas the paper fits (Sec. 4.1, Fig. 4) are then the
// generating ones, and the IsoFLOP laws fitted to their minima are the paper's N*(H) = A' H^a,
// whatever the seed; the runs still scatter about them as the study's do.
void keepProfileParabola(std::vector<Run>& runs, std::size_t first, const std::vector<double>& model) {
    const std::size_t n = runs.size() - first;
    if (n <= 3 || model.size() != n) return;
    std::vector<double> x(n), e(n);
    double mean = 0;
    for (std::size_t i = 0; i < n; ++i) mean += x[i] = std::log10(runs[first + i].params);
    mean /= static_cast<double>(n);
    std::vector<std::vector<double>> basis;
    for (int k = 0; k < 3; ++k) {
        std::vector<double> b(n);
        for (std::size_t i = 0; i < n; ++i) b[i] = std::pow(x[i] - mean, k);
        for (const auto& q : basis) {
            double dot = 0;
            for (std::size_t i = 0; i < n; ++i) dot += b[i] * q[i];
            for (std::size_t i = 0; i < n; ++i) b[i] -= dot * q[i];
        }
        double norm = 0;
        for (double v : b) norm += v * v;
        norm = std::sqrt(norm);
        if (!(norm > 1e-12)) return;  // fewer than 3 distinct sizes: no parabola to keep
        for (double& v : b) v /= norm;
        basis.push_back(std::move(b));
    }
    for (std::size_t i = 0; i < n; ++i) e[i] = runs[first + i].valLoss - model[i];
    for (const auto& q : basis) {
        double dot = 0;
        for (std::size_t i = 0; i < n; ++i) dot += e[i] * q[i];
        for (std::size_t i = 0; i < n; ++i) e[i] -= dot * q[i];
    }
    const double scale = std::sqrt(static_cast<double>(n) / static_cast<double>(n - 3));
    for (std::size_t i = 0; i < n; ++i) runs[first + i].valLoss = model[i] + scale * e[i];
}

}  // namespace

double NormalStream::next() {
    if (haveSpare_) {
        haveSpare_ = false;
        return spare_;
    }
    auto uniform = [this] {  // in (0, 1): 53 random bits, never 0
        return (static_cast<double>(engine_() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
    };
    const double u1 = uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    spare_ = r * std::sin(2.0 * kPi * u2);
    haveSpare_ = true;
    return r * std::cos(2.0 * kPi * u2);
}

QJsonObject ExampleOptions::toJson() const {
    QJsonArray ratios, ctxs, hs, hs8192;
    for (double m : tokensPerParam) ratios.append(m);
    for (auto t : contexts) ctxs.append(static_cast<qint64>(t));
    for (double h : budgets) hs.append(h);
    for (double h : budgetsCtx8192Only) hs8192.append(h);
    return {{"seed", QString::number(seed)},
            {"noise", "multiplicative log-normal: L = L_model * exp(sigma * z), z ~ N(0, 1); L_model the surface L(N, D) (Token/Param) or the IsoFLOP parabola"},
            {"noise_sigma", noiseSigma},
            {"isoflop_noise_sigma", noiseSigma * isoflopNoiseFactor},
            {"surface", "tab:lnd_fit_params, gamma free"},
            {"huber_delta", huberDelta},
            {"flop_convention", "study"},
            {"tokenparam_ratios", ratios},
            {"tokenparam_max_tokens", maxTokens},
            {"isoflop_contexts", ctxs},
            {"isoflop_budgets", hs},
            {"isoflop_budgets_ctx8192_only", hs8192},
            {"isoflop_tokens_per_param_range", QJsonArray{minTokensPerParam, maxTokensPerParam}},
            {"isoflop_losses",
             "L = L* + w (log10 N - log10 N*)^2 per budget H: N* = A' H^a of tab:estimated_optimal_flops_tokens_powerlaw "
             "(context 8192) and _context_* (2048, 16384); L* the surface's lowest loss at H (D = H / (c* N), c* = C_token(N*) / N*); "
             "w = max(0.5, 1.1 (H / 6e18)^-0.28), the width of the study's IsoFLOP profiles (Fig. 4)"},
            {"isoflop_noise_projection",
             "each profile's residuals projected off span{1, x, x^2} (x = log10 N) and rescaled by sqrt(n / (n - 3)): "
             "the least-squares parabola of every profile is the generating one"}};
}

ExampleStudy generateExampleStudy(const PaperTables& tables, const ExampleOptions& options) {
    ExampleStudy study;
    study.tokenParam.source = "generated";
    study.isoflop.source = "generated";
    NormalStream noise(options.seed);
    const auto convention = accounting::studyConvention();
    constexpr std::int64_t kTokenParamContext = 8192;  // Tab. *_tokenparam_hyperparams

    for (Family family : {Family::Transformer, Family::Xlstm}) {
        const LossSurfaceParams* surface = tables.lossSurface(family, options.huberDelta);
        if (!surface) continue;
        const auto tokenParam = tables.configs(family, ExperimentSet::TokenParam);

        // Token/Param: fixed model sizes, tokens = M x N, rounded to whole optimiser steps.
        for (const auto& pc : tokenParam) {
            const auto config = pc.config();
            const double n = static_cast<double>(accounting::countParameters(config).total());
            const std::int64_t batch = pc.batchSizes.empty() ? 128 : pc.batchSizes.front();
            for (double m : options.tokensPerParam) {
                if (m * n > options.maxTokens) continue;
                const double perStep = static_cast<double>(batch * kTokenParamContext);
                const double steps = std::max(1.0, std::round(m * n / perStep));
                Run r;
                r.runId = "generated-" + familyText(family) + "-tokenparam-" + std::to_string(pc.paramsM) + "M-M" +
                          std::to_string(static_cast<long long>(m));
                r.name = r.runId;
                r.dataset = "generated-tokenparam-ctx8192";
                r.family = family;
                r.series = std::string(accounting::familyName(family));
                r.experimentSet = ExperimentSet::TokenParam;
                r.context = kTokenParamContext;
                setArchitecture(r, config);
                r.params = n;
                r.tokens = steps * perStep;
                r.flops = accounting::trainingFlops(config, r.context, r.tokens, convention);
                r.budget = nominalBudget(r.flops);  // the bucket a reader of these runs gives them
                r.batchSize = static_cast<double>(batch);
                r.steps = steps;
                r.learningRate = pc.learningRates.empty() ? kUnknown : pc.learningRates.front();
                r.valLoss = drawLoss(surface->loss(n, r.tokens), noise, options.noiseSigma);
                r.paramsSource = r.tokensSource = r.flopsSource = Provenance::Derived;
                study.tokenParam.runs.push_back(std::move(r));
            }
        }

        // IsoFLOP: every configuration whose tokens/param ratio at the budget is in range.
        // Batch tokens per budget from Tab. isoflop_batch_sizes; other contexts keep B x T.
        // Losses follow the paper's IsoFLOP laws (isoFlopProfileShape); there is no published
        // surface per context, so the level and width come from the same L(N,D) at every context.
        const auto isoConfigs = tables.configs(family, ExperimentSet::IsoFlop);
        for (std::int64_t ctx : options.contexts) {
            const IsoFlopPowerLawRow* law = isoFlopLaw(tables, family, ctx);
            FlopsPerParamToken perParamToken;
            for (const auto& pc : isoConfigs) {
                const auto config = pc.config();
                const double n = static_cast<double>(accounting::countParameters(config).total());
                perParamToken.points.emplace_back(
                    std::log(n), accounting::trainingFlopsPerToken(config, static_cast<double>(ctx), convention) / n);
            }
            std::sort(perParamToken.points.begin(), perParamToken.points.end());
            std::vector<double> budgets = options.budgets;
            if (ctx == 8192) budgets.insert(budgets.end(), options.budgetsCtx8192Only.begin(), options.budgetsCtx8192Only.end());
            for (double h : budgets) {
                std::optional<IsoFlopProfileShape> shape;
                if (law) shape = isoFlopProfileShape(*surface, perParamToken, *law, h);
                std::int64_t batchTokens = 1048576;
                for (const auto& b : tables.isoflopBatchSizes)
                    if (std::abs(b.budget / h - 1) < 1e-9) batchTokens = b.batchTokens;
                const std::int64_t batch = std::max<std::int64_t>(1, batchTokens / ctx);
                const std::size_t first = study.isoflop.runs.size();
                std::vector<double> model;  // each run's noise-free loss
                for (const auto& pc : isoConfigs) {
                    const auto config = pc.config();
                    const double n = static_cast<double>(accounting::countParameters(config).total());
                    const double perToken = accounting::trainingFlopsPerToken(config, static_cast<double>(ctx), convention);
                    const double perStep = static_cast<double>(batch * ctx);
                    const double steps = std::round(h / (perToken * perStep));
                    const double d = steps * perStep;
                    if (steps < 1 || d / n < options.minTokensPerParam || d / n > options.maxTokensPerParam) continue;
                    Run r;
                    r.runId = "generated-" + familyText(family) + "-isoflop-ctx" + std::to_string(ctx) + "-H" + budgetText(h) +
                              "-d" + std::to_string(pc.dModel) + "-L" + std::to_string(pc.nLayers);
                    r.name = r.runId;
                    r.dataset = "generated-isoflop-ctx" + std::to_string(ctx);
                    r.family = family;
                    r.series = std::string(accounting::familyName(family));
                    r.experimentSet = ExperimentSet::IsoFlop;
                    r.context = static_cast<double>(ctx);
                    setArchitecture(r, config);
                    r.params = n;
                    r.tokens = d;
                    r.flops = perToken * d;
                    r.budget = h;
                    r.batchSize = static_cast<double>(batch);
                    r.steps = steps;
                    r.learningRate = nearestTokenParamRate(tokenParam, n);
                    model.push_back(shape ? shape->loss(n) : surface->loss(n, d));
                    r.valLoss = drawLoss(model.back(), noise, options.noiseSigma * options.isoflopNoiseFactor);
                    r.paramsSource = r.tokensSource = r.flopsSource = Provenance::Derived;
                    study.isoflop.runs.push_back(std::move(r));
                }
                if (shape) keepProfileParabola(study.isoflop.runs, first, model);
            }
        }
    }
    return study;
}

}  // namespace scalex::data
