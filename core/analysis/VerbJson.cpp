#include "core/analysis/VerbJson.h"

#include <QJsonArray>
#include <algorithm>
#include <cmath>

#include "core/analysis/AnalysisJson.h"
#include "core/analysis/IsoFlopTrend.h"
#include "core/data/Export.h"

namespace scalex::analysis {

QJsonObject isoFlopVerbJson(const std::vector<IsoFlopAnalysis>& analyses, double atBudget) {
    std::vector<std::pair<SeriesGroup, QJsonObject>> results;
    std::vector<std::string> names;
    for (const auto& a : analyses) {
        QJsonObject o = toJson(a);
        o.insert("outliers", outliersJson(a.outliers, "budget"));
        results.push_back({a.group, o});
        if (std::find(names.begin(), names.end(), a.group.series) == names.end()) names.push_back(a.group.series);
    }
    QJsonObject o = seriesJson(results);
    // A series trained at several context lengths: the optimum at one budget across them.
    QJsonObject trends;
    QJsonArray lastContexts;
    QJsonObject lastTrend;
    for (const auto& trend : isoFlopContextTrends(analyses, atBudget)) {
        QJsonArray contextsJson;
        for (const IsoFlopAnalysis* a : trend.contexts) {
            QJsonObject c = toJson(*a);
            c.insert("context", a->group.context);
            contextsJson.append(c);
        }
        lastTrend = toJson(trend.trend);
        lastContexts = contextsJson;
        trends.insert(QString::fromStdString(trend.series), lastTrend);
    }
    if (names.size() == 1 && !trends.isEmpty()) {
        o.insert("contexts", lastContexts);
        o.insert("context_trend", lastTrend);
    } else if (!trends.isEmpty()) {
        o.insert("context_trends", trends);
    }
    return o;
}

QJsonObject lossSurfaceVerbJson(const LossSurfaceAnalysis& a, const fit::LossSurfaceSettings& settings, bool withExtrapolation) {
    QJsonObject o = toJson(a.fit, settings);
    o.insert("outliers", outliersJson(a.outliers, nullptr));
    if (withExtrapolation) o.insert("extrapolation", extrapolationJson(a));
    return o;
}

QJsonObject slopeVerbJson(const SlopeAnalysis& a) {
    QJsonObject o = toJson(a.result);
    o.insert("outliers", outliersJson(a.outliers, "ratio"));
    o.insert("extrapolation", extrapolationJson(a));
    return o;
}

QJsonObject paretoVerbJson(const std::vector<ParetoAnalysis>& analyses, const std::optional<SeriesComparison>& compared,
                           bool withIntervals) {
    std::vector<std::pair<SeriesGroup, QJsonObject>> results;
    for (const auto& a : analyses) results.push_back({a.group, frontierJson(a)});
    QJsonObject o = seriesJson(results);
    if (compared) o.insert("comparison", toJson(*compared, analyses, withIntervals));
    return o;
}

QJsonObject contextVerbJson(const ContextResult& r, const ContextOptions& options) {
    QJsonArray series;
    for (const auto& a : r.answer.series) {
        QJsonObject o{{"name", jsonText(a.name)},
                      {"family", jsonText(accounting::familyName(a.family))},
                      {"n_opt", a.sweep.here.params},
                      {"d_opt", a.sweep.here.tokens}};
        // c_T(N) from the specs the series' runs name (a series of no family: on its own surface).
        if (a.runSpecs) o.insert("compute_per_token", "the runs' specs");
        const bool ownSurface = a.runSpecs && a.ladder;
        for (const auto& [name, s] : r.seriesSurfaces)
            if (ownSurface && name == a.name && s.surface) {
                o.insert("fitted_to", jsonText(name));
                o.insert("surface", toJson(*s.surface));
            }
        for (const auto& [family, s] : r.surfaces)
            if (!ownSurface && family == a.family) {
                o.insert("fitted_to", jsonText(s.paper ? std::string("the paper's surface") : s.fittedTo));
                o.insert("surface", toJson(*s.surface));
            }
        series.append(o);
    }
    return QJsonObject{{"context", options.context}, {"budget", options.budget}, {"series", series},
                       {"optima", data::toRecords(contextOptimaTable(r.answer))}};
}

namespace {

QJsonObject pointJson(const fit::OptimalPoint& o) {
    return {{"budget", o.budget}, {"params", o.params}, {"tokens", o.tokens}, {"tokens_per_param", o.tokens / o.params},
            {"loss", jsonNumber(o.loss)}};
}

QJsonArray intervalJson(const fit::BootstrapInterval& i) { return {jsonNumber(i.lower), jsonNumber(i.upper)}; }

// The IsoFLOP laws' optimum with the laws themselves and, where fitted to runs, their intervals.
QJsonObject lawsJson(const OptimalSeriesAnswer& a) {
    QJsonObject o = pointJson(a.optimum);
    if (const auto& l = a.laws) {
        o["coef_n"] = l->coefN;
        o["exponent_n"] = l->exponentN;
        o["coef_d"] = l->coefD;
        o["exponent_d"] = l->exponentD;
    }
    if (const auto& i = a.intervals)
        o["intervals"] = QJsonObject{{"level", i->level},
                                     {"resamples", i->resamples},
                                     {"exponent_n", intervalJson(i->exponentN)},
                                     {"exponent_d", intervalJson(i->exponentD)},
                                     {"params", intervalJson(i->params)},
                                     {"tokens", intervalJson(i->tokens)}};
    return o;
}

}  // namespace

QJsonObject optimalVerbJson(const std::vector<OptimalSeriesInput>& inputs, const OptimalQuery& query, const std::string& givenName,
                            const std::string& method, double huberDelta, const OptimalAnswer& bySurface, const OptimalAnswer& byLaws) {
    const bool surfaceAsked = method != "laws", lawsAsked = method != "surface";
    QJsonArray series;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
        const OptimalSeriesInput& s = inputs[k];
        const OptimalSeriesAnswer* surface = k < bySurface.series.size() ? &bySurface.series[k] : nullptr;
        const OptimalSeriesAnswer* laws = k < byLaws.series.size() ? &byLaws.series[k] : nullptr;
        QJsonObject entry{{"name", QString::fromStdString(s.paper && s.family ? std::string(accounting::familyName(*s.family))
                                                          : s.ladder ? s.name : s.series)},
                          {"label", QString::fromStdString(s.name)},
                          {"source", s.paper ? "paper" : s.ladder ? "ladder" : "study"}};
        if (s.family) entry["family"] = QString::fromStdString(std::string(accounting::familyName(*s.family)));
        if (std::isfinite(s.context)) entry["context"] = s.context;
        // One method's entry: its optimum, or null and why.
        auto methodEntry = [&](const char* key, bool asked, const OptimalAnswer& answer, const OptimalSeriesAnswer* a) {
            if (!asked) return;
            const std::string why = a ? a->problem : answer.problem;
            if (!why.empty()) {
                entry[key] = QJsonValue::Null;
                entry[QString::fromLatin1(key) + "_problem"] = QString::fromStdString(why);
                return;
            }
            entry[key] = std::string(key) == "laws" ? lawsJson(*a) : pointJson(a->optimum);
        };
        methodEntry("surface", surfaceAsked, bySurface, surface);
        methodEntry("laws", lawsAsked, byLaws, laws);
        const OptimalSeriesAnswer* chosen = method == "laws" ? laws : surface;
        if (method == "both" && surface && surface->comparison) {
            const auto& c = *surface->comparison;
            entry["comparison"] = QJsonObject{{"budget", surface->optimum.budget},
                                              {"surface_exponent", c.surfaceExponent},
                                              {"law_exponent", c.lawExponent},
                                              {"agree_at_budget", jsonNumber(c.agreeAtBudget)}};
        }
        if (query.inferenceTokens > 0 && chosen && chosen->lifetime) {
            const auto& l = *chosen->lifetime;
            entry["lifetime"] = QJsonObject{{"inference_tokens", query.inferenceTokens},
                                            {"params", l.params},
                                            {"tokens", l.tokens},
                                            {"tokens_per_param", l.tokens / l.params},
                                            {"training_compute", l.trainingCompute},
                                            {"inference_compute", l.inferenceCompute},
                                            {"total_compute", l.total()},
                                            {"compute_optimal_total", l.computeOptimalTotal},
                                            {"saving", l.saving()}};
        }
        series.append(entry);
    }
    return QJsonObject{{"context", query.context},
                       {"given", QJsonObject{{QString::fromStdString(givenName), query.value}}},
                       {"method", QString::fromStdString(method)},
                       {"huber_delta", huberDelta},
                       {"reference", query.paperModels ? "paper" : "none"},
                       {"series", series}};
}

std::string contextProblem(const ContextResult& r) {
    if (!r.answer.series.empty()) return {};
    std::string why;
    for (const auto& [family, s] : r.surfaces)
        why += (why.empty() ? "" : "; ") + (s.problem.empty() ? std::string(accounting::familyLabel(family)) + ": no runs" : s.problem);
    for (const auto& [name, s] : r.seriesSurfaces) why += "; " + name + ": " + s.problem;
    return "no family has a loss surface to recount at other context lengths (" + why + ")";
}

}  // namespace scalex::analysis
