#include "core/data/RunDerivation.h"

#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "core/accounting/ParamCount.h"

namespace scalex::data {

using namespace scalex::accounting;

namespace {

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

}  // namespace

double nominalBudget(double flops) {
    if (!(flops > 0) || !std::isfinite(flops)) return kUnknown;
    for (double b : kStudyBudgets)
        if (std::abs(flops - b) < 0.1 * b) return b;
    return kUnknown;
}

std::optional<std::string> architectureProblem(const Run& run) {
    using L = ArchitectureLimits;
    const struct {
        const char* name;
        std::int64_t value, limit;
    } sizes[] = {{"d_model", run.dModel, L::dModel}, {"n_layers", run.nLayers, L::layers},
                 {"n_heads", run.nHeads, L::heads},  {"n_kv_heads", run.nKvHeads, L::heads},
                 {"d_qk", run.dQk, L::headDim},      {"d_hv", run.dHv, L::headDim},
                 {"d_ff", run.dFf, L::dFf},          {"vocab_size", run.vocab, L::vocab},
                 {"chunk_size", run.chunk, L::chunk}};
    for (const auto& s : sizes)
        if (s.value > s.limit)
            return std::string(s.name) + " = " + std::to_string(s.value) + " is beyond any model (at most " +
                   std::to_string(s.limit) + "); the architecture is not used";
    return std::nullopt;
}

std::optional<ModelConfig> runArchitecture(const Run& run) {
    if (!run.family || run.dModel <= 0 || run.nLayers <= 0 || run.nHeads <= 0) return std::nullopt;
    if (architectureProblem(run)) return std::nullopt;
    ConfigOverrides ov;
    if (run.nKvHeads > 0) ov.nKvHeads = run.nKvHeads;
    if (run.dQk > 0) ov.dQk = run.dQk;
    if (run.dHv > 0) ov.dHv = run.dHv;
    if (run.dFf > 0) ov.dFf = run.dFf;
    if (run.vocab > 0) ov.vocab = run.vocab;
    if (run.chunk > 0) ov.chunk = run.chunk;
    // An mLSTM has no key/value head groups.
    if (run.family == Family::Xlstm) ov.nKvHeads.reset();
    ModelConfig config = makeStudyConfig(*run.family, run.dModel, run.nLayers, run.nHeads, ov);
    if (validate(config)) return std::nullopt;
    return config;
}

FlopConvention conventionForMode(std::string_view mode) {
    if (mode == "chinchilla") return chinchillaConvention();
    return studyConvention();
}

std::optional<double> architectureFlops(const Run& run, const FlopConvention& convention) {
    const auto config = runArchitecture(run);
    if (!config || !(run.context > 0) || !(run.tokens > 0)) return std::nullopt;
    return trainingFlops(*config, run.context, run.tokens, convention);
}

void deriveColumns(Run& run, std::string_view flopMode, const DerivationSettings& settings, double fileBudget) {
    const auto config = runArchitecture(run);
    if (!known(run.params) && config) {
        run.params = static_cast<double>(countParameters(*config).total());
        run.paramsSource = Provenance::Derived;
    }
    if (!known(run.tokens) && run.steps > 0 && run.batchSize > 0 && run.context > 0) {
        run.tokens = run.steps * run.batchSize * run.context;  // D = steps x batch x context
        run.tokensSource = Provenance::Derived;
    }
    if (!known(run.flops) || settings.recomputeFlops) {
        const FlopConvention convention = settings.convention.value_or(conventionForMode(flopMode));
        if (auto c = architectureFlops(run, convention)) {
            run.flops = *c;
            run.flopsSource = Provenance::Derived;
        } else if (!known(run.flops) && !(run.params > 0 && run.tokens > 0) && fileBudget > 0) {
            // An IsoFLOP table that gives only the nominal budget: C is the budget.
            run.flops = fileBudget;
            run.flopsSource = Provenance::NominalBudget;
        }
    }
    // Two of N, D, C give the third through C = 6ND (Kaplan et al.; Hoffmann et al. Sec. 2), kept
    // visible as a fallback: D = C/6N is what Epoch's Chinchilla replication does.
    if (run.flops > 0 && !known(run.tokens) && run.params > 0) {
        run.tokens = run.flops / (6.0 * run.params);
        run.tokensSource = Provenance::SixNdFallback;
    } else if (run.flops > 0 && !known(run.params) && run.tokens > 0) {
        run.params = run.flops / (6.0 * run.tokens);
        run.paramsSource = Provenance::SixNdFallback;
    } else if (!known(run.flops) && run.params > 0 && run.tokens > 0) {
        const FlopConvention convention = settings.convention.value_or(conventionForMode(flopMode));
        run.flops = 6.0 * run.params * run.tokens;
        run.flopsSource = convention.sixNd ? Provenance::Derived : Provenance::SixNdFallback;
    }
    // The file's budget, as it gives it (a nominal budget: recounted compute moves C about it, not the
    // budget). Where the file gives none, the study's reading finds the budgets from the runs in scope
    // (analysis/StudyReading.h: names, else clusters of C), never at fixed levels.
    run.budget = fileBudget;
}

void checkPlausibility(Run& run) {
    auto& p = run.problems;
    if (auto a = architectureProblem(run)) p.push_back(*a);
    if (!run.status.empty() && run.status != "finished" && run.status != "completed" && run.status != "success" &&
        run.status != "done" && run.status != "ok")
        p.push_back("status: the run " + (run.status == "failed" ? std::string("failed") : "is '" + run.status + "'"));
    if (!known(run.params) && run.paramsSource != Provenance::NoColumn)
        p.push_back("N missing: no parameter count, no complete architecture (model_family, d_model, n_layers, n_heads) "
                    "and not both C and D");
    else if (run.params > 0 && run.params < 1e5)
        p.push_back("N = " + shortNumber(run.params) + " is below 1e5: is it in millions? (expected a parameter count)");
    if (!known(run.tokens) && run.tokensSource != Provenance::NoColumn)
        p.push_back("D missing: no token count, no steps x batch size x context length and not both C and N");
    else if (run.tokens > 0 && run.tokens < 1e6)
        p.push_back("D = " + shortNumber(run.tokens) + " is below 1e6: is it in millions or billions? (expected a token count)");
    const double loss = run.loss();
    if (!known(loss))
        p.push_back("loss missing: no validation or training loss");
    else if (loss > 20)
        p.push_back("loss " + shortNumber(loss) +
                    " is above 20: expected a natural-log cross-entropy per token (is it a perplexity?)");
}

}  // namespace scalex::data
