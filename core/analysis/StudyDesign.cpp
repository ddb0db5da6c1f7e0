#include "core/analysis/StudyDesign.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <span>
#include <sstream>
#include <variant>

#include "core/analysis/AnalysisJson.h"
#include "core/analysis/LawAnalysis.h"
#include "core/fit/Bootstrap.h"
#include "core/fit/IsoFlop.h"
#include "core/fit/LawLibrary.h"
#include "core/fit/LawQuery.h"
#include "core/fit/SplitMix64.h"

namespace scalex::analysis {

namespace {

data::LoadError designError(std::string message) {
    data::LoadError e;
    e.message = std::move(message);
    return e;
}

std::string g4(double v) {
    std::ostringstream s;
    s.precision(4);
    s << v;
    return s.str();
}

// The prior compiled, with N and D located among its variables; or why it cannot serve.
struct CompiledPrior {
    fit::CompiledLaw law;
    int n = -1, d = -1;
};
std::variant<CompiledPrior, std::string> compilePrior(const DesignPrior& prior) {
    auto compiled = fit::compileLaw(prior.law);
    if (auto* e = std::get_if<fit::LawError>(&compiled)) return "the prior law: " + e->text();
    CompiledPrior p{std::get<fit::CompiledLaw>(std::move(compiled))};
    if (prior.values.size() != p.law.parameterCount()) return "the prior law needs a value for each of its parameters";
    const fit::LawQuery optimum{fit::LawQueryKind::OptimalAt, {}, 1e20};
    if (auto why = fit::checkLawQuery(p.law, optimum); !why.empty()) return "the prior law cannot place N*(C): " + why;
    for (std::size_t k = 0; k < p.law.variables.size(); ++k) (p.law.variables[k] == "N" ? p.n : p.d) = static_cast<int>(k);
    return p;
}

double priorLoss(const CompiledPrior& p, std::span<const double> values, double n, double d, std::vector<double>& scratch) {
    double vars[2];
    vars[p.n] = n;
    vars[p.d] = d;
    return fit::lawValue(p.law.expression, values, std::span<const double>(vars, p.law.variables.size()), scratch);
}

// The prior's N*, D* at compute C (fit::answerLawQuery); NaN where the law gives none.
std::pair<double, double> priorOptimum(const CompiledPrior& p, std::span<const double> values, double c) {
    const auto v = fit::answerLawQuery(p.law, values, {fit::LawQueryKind::OptimalAt, {}, c});
    if (!v.error.empty() || v.values.size() < 2) return {NAN, NAN};
    return {v.values[0], v.values[1]};
}

// `count` log-spaced sizes spanning `width` decades centred on nOpt, snapped to the nearest ladder
// size (in log) where a ladder is given; distinct and ascending.
std::vector<double> sizesAround(double nOpt, const StudyDesignOptions& o) {
    std::vector<double> sizes;
    for (std::size_t i = 0; i < o.sizesPerBudget; ++i) {
        const double t = o.sizesPerBudget == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(o.sizesPerBudget - 1) - 0.5;
        double n = nOpt * std::pow(10.0, t * o.width);
        if (!o.ladder.empty())
            n = *std::min_element(o.ladder.begin(), o.ladder.end(),
                                  [&](double a, double b) { return std::abs(std::log(a / n)) < std::abs(std::log(b / n)); });
        sizes.push_back(n);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

fit::IsoFlopSettings isoFlopSettingsOf(const StudyDesign& design) {
    fit::IsoFlopSettings s;
    s.budgets = design.budgets;
    s.minRunsPerProfile = 3;
    return s;
}

DesignOutcome fitOutcome(const std::vector<fit::IsoFlopRun>& runs, const fit::IsoFlopSettings& settings, double target) {
    const fit::IsoFlopResult r = fit::fitIsoFlop(runs, settings);
    if (!r.nOptLaw || !r.dOptLaw) return {NAN, NAN, NAN};
    return {r.nOptLaw->exponent, r.dOptLaw->exponent, (*r.nOptLaw)(target)};
}

DesignOutcome simulateWith(const StudyDesign& design, const CompiledPrior& truth, std::span<const double> values, double sigma,
                           std::uint64_t seed) {
    fit::SplitMix64 rng = fit::SplitMix64::stream(seed, 0);
    std::vector<double> scratch;
    std::vector<fit::IsoFlopRun> runs;
    runs.reserve(design.runs.size());
    for (const PlannedRun& r : design.runs)
        runs.push_back({r.params, r.tokens, 6 * r.params * r.tokens, priorLoss(truth, values, r.params, r.tokens, scratch) + sigma * rng.normal()});
    return fitOutcome(runs, isoFlopSettingsOf(design), design.options.targetBudget);
}

DesignEstimate estimateOf(const std::vector<double>& values, double prior, double level) {
    const double tail = (1 - level) / 2;
    return {prior, fit::finitePercentile(values, 0.5), fit::finitePercentile(values, tail), fit::finitePercentile(values, 1 - tail)};
}

QJsonObject estimateJson(const DesignEstimate& e) {
    return {{"prior", jsonNumber(e.prior)}, {"median", jsonNumber(e.median)}, {"lower", jsonNumber(e.lower)}, {"upper", jsonNumber(e.upper)}};
}

}  // namespace

data::Expected<DesignPrior> paperDesignPrior(const data::PaperTables& paper, accounting::Family family) {
    const auto* s = paper.lossSurface(family, 1e-3);
    if (!s) return designError("the paper's tables give no L(N,D) fit for " + std::string(accounting::familyName(family)));
    DesignPrior p{*fit::shippedLaw("xlstm"), {}, "the xLSTM paper's L(N,D) for " + std::string(accounting::familyLabel(family)) +
                                                     " (Tab. lnd_fit_params, Huber delta 1e-3)"};
    const std::map<std::string, double> byName{{"a", s->logA}, {"b", s->logB},        {"e", s->logE},
                                               {"alpha", s->alpha}, {"beta", s->beta}, {"gamma", s->gamma}};
    for (const auto& param : p.law.parameters) p.values.push_back(byName.at(param.name));
    return p;
}

data::Expected<DesignPrior> shippedDesignPrior(const std::string& name, const std::map<std::string, double>& values) {
    auto law = fit::shippedLaw(name);
    if (!law) return designError("no shipped law '" + name + "' (see `scalex fit law --list`)");
    DesignPrior p{*law, {}, {}};
    for (const auto& [given, v] : values) {
        if (std::none_of(law->parameters.begin(), law->parameters.end(), [&](const fit::LawParameter& q) { return q.name == given; }))
            return designError("the law '" + law->name + "' has no parameter '" + given + "'");
    }
    bool allGiven = true;
    for (const auto& param : law->parameters) {
        if (auto it = values.find(param.name); it != values.end()) {
            p.values.push_back(it->second);
        } else if (param.start) {
            p.values.push_back(*param.start);
            allGiven = false;
        } else {
            return designError("the prior needs a value for '" + param.name + "' of law '" + law->name + "' (--param " + param.name +
                               "=VALUE): it has no published start");
        }
    }
    p.source = allGiven ? "the values given" : "the law's published start values" + std::string(values.empty() ? "" : ", and the values given");
    return p;
}

StudyDesign designStudy(const StudyDesignOptions& options) {
    StudyDesign d;
    d.options = options;
    const auto fail = [&](std::string why) {
        d.error = std::move(why);
        return d;
    };
    const StudyDesignOptions& o = options;
    if (!(o.studyBudget > 0) || !std::isfinite(o.studyBudget)) return fail("the study budget must be a positive number of FLOPs");
    if (!(o.targetBudget > 0) || !std::isfinite(o.targetBudget)) return fail("the target budget H must be a positive number of FLOPs");
    if (o.budgets < 2) return fail("a design needs at least 2 IsoFLOP budgets (a power law through their optima)");
    if (o.sizesPerBudget < 3) return fail("a design needs at least 3 sizes per budget (a parabola through them)");
    if (!(o.width > 0) || !(o.budgetSpan > 0)) return fail("the grid width and the span of budgets must be positive (decades)");
    if (!(o.sigma >= 0)) return fail("the loss noise sigma must be 0 or more");
    if (o.seeds < 2) return fail("the interval needs at least 2 simulated studies");
    if (!(o.level > 0 && o.level < 1)) return fail("the interval level must lie strictly between 0 and 1");
    for (double n : o.ladder)
        if (!(n > 0) || !std::isfinite(n)) return fail("every size of the ladder must be a positive number of parameters");
    auto compiled = compilePrior(o.prior);
    if (auto* why = std::get_if<std::string>(&compiled)) return fail(*why);
    const CompiledPrior& prior = std::get<CompiledPrior>(compiled);

    // Budgets C_max·10^(−span·j/(K−1)); each runs M models at cost C, so M·ΣC ≤ the study budget.
    const auto k = static_cast<double>(o.budgets - 1);
    double sumOfFractions = 0;
    for (std::size_t j = 0; j < o.budgets; ++j) sumOfFractions += std::pow(10.0, -o.budgetSpan * static_cast<double>(j) / k);
    const double largest = o.studyBudget / (static_cast<double>(o.sizesPerBudget) * sumOfFractions);
    for (std::size_t j = o.budgets; j-- > 0;) d.budgets.push_back(largest * std::pow(10.0, -o.budgetSpan * static_cast<double>(j) / k));
    if (!(d.budgets.front() > 6)) return fail("the study budget is too small for " + std::to_string(o.budgets) + " budgets");

    for (double c : d.budgets) {
        const double nOpt = priorOptimum(prior, o.prior.values, c).first;
        if (!(nOpt > 0) || !std::isfinite(nOpt)) return fail("the prior law gives no N*(C) at C = " + g4(c));
        d.nOptPrior.push_back(nOpt);
        const std::vector<double> sizes = sizesAround(nOpt, o);
        if (sizes.size() < 3)
            return fail("the ladder has fewer than 3 distinct sizes near N* = " + g4(nOpt) + " at C = " + g4(c) +
                        ": widen the grid or add sizes");
        for (double size : sizes) {
            // Whole parameters and tokens, the tokens rounded down so that the cost stays within C.
            const double n = std::round(size), tokens = std::floor(c / (6 * n));
            d.runs.push_back({"design_C" + g4(c) + "_N" + g4(n), n, tokens, c});
            d.cost += 6 * n * tokens;
        }
    }

    const double truthN = priorOptimum(prior, o.prior.values, o.targetBudget).first;
    if (!(truthN > 0) || !std::isfinite(truthN)) return fail("the prior law gives no N*(H) at H = " + g4(o.targetBudget));
    // The prior's exponents: power laws through its own optima at the design's budgets (exact for
    // the Chinchilla and xLSTM forms, whose optima follow one power law).
    std::vector<double> nOpt = d.nOptPrior, dOpt;
    for (std::size_t j = 0; j < d.budgets.size(); ++j) dOpt.push_back(d.budgets[j] / (6 * nOpt[j]));
    const auto lawN = fit::fitPowerLaw(d.budgets, nOpt), lawD = fit::fitPowerLaw(d.budgets, dOpt);

    std::vector<double> a, b, target;
    for (std::size_t s = 0; s < o.seeds; ++s) {
        const DesignOutcome out = simulateWith(d, prior, o.prior.values, o.sigma, fit::SplitMix64::stream(o.seed, s).next());
        a.push_back(out.exponentN);
        b.push_back(out.exponentD);
        target.push_back(out.nOptTarget);
        d.failed += std::isfinite(out.exponentN) ? 0 : 1;
    }
    d.simulated = o.seeds;
    d.exponentN = estimateOf(a, lawN ? lawN->exponent : NAN, o.level);
    d.exponentD = estimateOf(b, lawD ? lawD->exponent : NAN, o.level);
    d.nOptTarget = estimateOf(target, truthN, o.level);
    return d;
}

DesignOutcome simulateDesign(const StudyDesign& design, const DesignPrior& truth, double sigma, std::uint64_t seed) {
    auto compiled = compilePrior(truth);
    if (std::holds_alternative<std::string>(compiled) || design.error) return {NAN, NAN, NAN};
    return simulateWith(design, std::get<CompiledPrior>(compiled), truth.values, sigma, seed);
}

std::string plannedRunsCsv(const StudyDesign& design) {
    std::ostringstream s;
    s.precision(10);
    s << "name,params,tokens,flops,budget,loss\n";
    for (const PlannedRun& r : design.runs)
        s << r.name << ',' << std::llround(r.params) << ',' << std::llround(r.tokens) << ',' << 6 * r.params * r.tokens << ',' << r.budget << ",\n";
    return s.str();
}

QJsonObject toJson(const StudyDesign& d) {
    const StudyDesignOptions& o = d.options;
    QJsonObject values;
    for (std::size_t k = 0; k < o.prior.law.parameters.size() && k < o.prior.values.size(); ++k)
        values.insert(QString::fromStdString(o.prior.law.parameters[k].name), o.prior.values[k]);
    QJsonObject j{{"study_budget", o.studyBudget},
                  {"target_budget", o.targetBudget},
                  {"prior", QJsonObject{{"law", lawToJson(o.prior.law)}, {"values", values}, {"source", jsonText(o.prior.source)}}},
                  {"sizes_per_budget", static_cast<qint64>(o.sizesPerBudget)},
                  {"width", o.width},
                  {"budget_span", o.budgetSpan},
                  {"sigma", o.sigma},
                  {"seeds", static_cast<qint64>(o.seeds)},
                  {"level", o.level}};
    if (d.error) {
        j.insert("error", jsonText(*d.error));
        return j;
    }
    QJsonArray budgets;
    for (std::size_t k = 0; k < d.budgets.size(); ++k) {
        const auto runs = std::count_if(d.runs.begin(), d.runs.end(), [&](const PlannedRun& r) { return r.budget == d.budgets[k]; });
        budgets.append(QJsonObject{{"budget", d.budgets[k]}, {"n_opt_prior", d.nOptPrior[k]}, {"runs", static_cast<qint64>(runs)}});
    }
    j.insert("budgets", budgets);
    QJsonArray runs;
    for (const PlannedRun& r : d.runs)
        runs.append(QJsonObject{{"name", jsonText(r.name)}, {"params", r.params}, {"tokens", r.tokens}, {"budget", r.budget}});
    j.insert("runs", runs);
    j.insert("cost", d.cost);
    j.insert("simulated", static_cast<qint64>(d.simulated));
    j.insert("failed", static_cast<qint64>(d.failed));
    j.insert("exponent_n", estimateJson(d.exponentN));
    j.insert("exponent_d", estimateJson(d.exponentD));
    j.insert("n_opt_target", estimateJson(d.nOptTarget));
    return j;
}

}  // namespace scalex::analysis
