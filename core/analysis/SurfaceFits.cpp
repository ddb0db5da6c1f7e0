#include "core/analysis/SurfaceFits.h"

#include <QJsonArray>
#include <QJsonObject>
#include <cmath>
#include <vector>

#include "core/analysis/ResultCache.h"

namespace scalex::analysis {

namespace {

bool sameContext(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// What a fit is made from: the values of the group's runs that the analysis reads (their
// revision stamp: runs with the same values in another study or another window are the same fit),
// the analysis settings, the group's label (it names the problems) and every field of the fit
// settings.
ResultKey keyOf(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group, const fit::LossSurfaceSettings& fitSettings) {
    return {"loss-surface", group.label(), canonicalJson(QJsonObject{{"settings", settings.toJson()}, {"fit", lossSurfaceSettingsJson(fitSettings)}}),
            runsRevision(table, group.filter)};
}

GroupSurface cancelledFit(const std::string& label) {
    GroupSurface s;
    s.problem = label + ": its L(N,D) fit was cancelled.";
    s.cancelled = true;
    return s;
}

GroupSurface surfaceOf(const LossSurfaceAnalysis& a) {
    GroupSurface s;
    if (a.error) s.problem = *a.error + ".";
    else if (a.fit.cancelled) s = cancelledFit(a.group.label());
    else s.surface = a.fit.best;
    return s;
}

}  // namespace

GroupSurface groupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                          const fit::LossSurfaceSettings& base, const fit::FitControl& control) {
    const SeriesGroup runs = studySet(table, group, data::ExperimentSet::TokenParam);
    const fit::LossSurfaceSettings fitSettings = lossSurfaceSettings(settings, base);
    std::optional<GroupSurface> cancelled;  // this thread's fit, cut short: returned, not kept
    const auto kept = ResultCache::shared().get<GroupSurface>(keyOf(table, settings, runs, fitSettings), [&]() -> std::shared_ptr<const GroupSurface> {
        GroupSurface s = surfaceOf(lossSurfaceAnalysis(table, settings, runs, fitSettings, control));
        if (!s.cancelled) return std::make_shared<const GroupSurface>(std::move(s));
        cancelled = std::move(s);
        return nullptr;
    }, control);
    if (kept) return *kept;
    return cancelled ? *cancelled : cancelledFit(runs.label());  // cancelled here, or while another thread fitted it
}

GroupSurface groupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                          const fit::FitControl& control) {
    return groupSurface(table, settings, group, fit::LossSurfaceSettings{}, control);
}

std::optional<GroupSurface> keptGroupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                             const fit::LossSurfaceSettings& base) {
    const SeriesGroup runs = studySet(table, group, data::ExperimentSet::TokenParam);
    if (const auto kept = ResultCache::shared().find<GroupSurface>(keyOf(table, settings, runs, lossSurfaceSettings(settings, base)))) return *kept;
    return std::nullopt;
}

void keepGroupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                      const fit::LossSurfaceSettings& fitSettings, const LossSurfaceAnalysis& analysis) {
    const GroupSurface s = surfaceOf(analysis);
    if (!s.cancelled) ResultCache::shared().put(keyOf(table, settings, group, fitSettings), std::make_shared<const GroupSurface>(s));
}

std::optional<SeriesGroup> surfaceGroup(const data::RunTable& table, const AnalysisSettings& settings, const std::string& series,
                                        std::optional<double> context) {
    std::optional<SeriesGroup> chosen;
    if (context) {
        for (const auto& g : seriesGroups(table, settings))
            if (g.series == series && sameContext(g.context, *context)) chosen = g;
    } else {
        // Among the contexts of its Token/Param runs where the study names them (the runs fitted),
        // else of all its runs.
        std::vector<SeriesGroup> groups;
        for (const auto& g : seriesGroups(table, settings, data::ExperimentSet::TokenParam))
            if (g.series == series) groups.push_back(g);
        if (groups.empty())
            for (const auto& g : seriesGroups(table, settings))
                if (g.series == series) groups.push_back(g);
        for (const auto& g : groups) {
            if (g.context == 8192.0) {
                chosen = g;
                break;
            }
            if (!chosen || (data::known(g.context) && (!data::known(chosen->context) || g.context > chosen->context))) chosen = g;
        }
    }
    if (!chosen) return std::nullopt;
    return studySet(table, *chosen, data::ExperimentSet::TokenParam);
}

std::optional<std::string> familySeries(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family) {
    for (const auto& g : seriesGroups(table, settings))
        if (accounting::parseFamily(g.series) == family) return g.series;
    return std::nullopt;
}

namespace {

// familySurface, or with no control keptFamilySurface (nothing when the fit is still to be made).
std::optional<FamilySurface> surfaceOfFamily(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family,
                                             std::optional<double> context, const std::optional<fit::LossSurfaceParams>& paperFallback,
                                             const fit::FitControl* control) {
    FamilySurface out;
    const auto series = familySeries(table, settings, family);
    const auto group = series ? surfaceGroup(table, settings, *series, context) : std::nullopt;
    if (group) {
        const auto fitted = control ? groupSurface(table, settings, *group, *control)
                                    : keptGroupSurface(table, settings, *group, fit::LossSurfaceSettings{});
        if (!fitted) return std::nullopt;
        out.fittedTo = group->label();
        out.surface = fitted->surface;
        out.problem = fitted->problem;
        out.cancelled = fitted->cancelled;
    }
    if (!out.surface && !out.cancelled && paperFallback) {
        out.surface = paperFallback;
        out.paper = true;
    }
    return out;
}

}  // namespace

FamilySurface familySurface(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family,
                            std::optional<double> context, const std::optional<fit::LossSurfaceParams>& paperFallback,
                            const fit::FitControl& control) {
    return *surfaceOfFamily(table, settings, family, context, paperFallback, &control);
}

std::optional<FamilySurface> keptFamilySurface(const data::RunTable& table, const AnalysisSettings& settings, accounting::Family family,
                                               std::optional<double> context, const std::optional<fit::LossSurfaceParams>& paperFallback) {
    return surfaceOfFamily(table, settings, family, context, paperFallback, nullptr);
}

std::optional<fit::LossSurfaceParams> paperSurface(const data::PaperTables& paper, accounting::Family family, double huberDelta) {
    const data::LossSurfaceParams* p = paper.lossSurface(family, huberDelta);
    if (!p) p = paper.lossSurface(family, 1e-3);
    if (!p) return std::nullopt;
    return fit::LossSurfaceParams{p->logA, p->logB, p->logE, p->alpha, p->beta, p->gamma};
}

}  // namespace scalex::analysis
