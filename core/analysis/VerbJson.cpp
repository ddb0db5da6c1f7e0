#include "core/analysis/VerbJson.h"

#include <QJsonArray>
#include <algorithm>

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

std::string contextProblem(const ContextResult& r) {
    if (!r.answer.series.empty()) return {};
    std::string why;
    for (const auto& [family, s] : r.surfaces)
        why += (why.empty() ? "" : "; ") + (s.problem.empty() ? std::string(accounting::familyLabel(family)) + ": no runs" : s.problem);
    for (const auto& [name, s] : r.seriesSurfaces) why += "; " + name + ": " + s.problem;
    return "no family has a loss surface to recount at other context lengths (" + why + ")";
}

}  // namespace scalex::analysis
