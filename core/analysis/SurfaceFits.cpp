#include "core/analysis/SurfaceFits.h"

#include <QByteArrayView>
#include <QCryptographicHash>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <vector>

namespace scalex::analysis {

namespace {

bool sameContext(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// What a fit is made from: the values of the group's runs that the analysis reads (N, D, loss, and
// whether the user ticked the run in, which keeps it from being left out as an outlier), the
// analysis settings, the group's label (it names the problems) and the fit settings. Runs with the
// same values in another study or another window are the same fit.
struct Key {
    std::string runs;   // a digest of the runs' values, in order
    AnalysisSettings settings;
    std::string label;
    std::string fit;    // the fit settings, every field
    friend bool operator==(const Key&, const Key&) = default;
};

void appendNumber(std::string& out, double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g,", v);
    out += buf;
}

// Every field of the fit settings that the fit reads.
std::string fitKey(const fit::LossSurfaceSettings& s) {
    std::string out;
    for (double v : {s.huberDelta, s.fitGamma ? 1.0 : 0.0, s.stopDelta, s.screenStopDelta, static_cast<double>(s.refineCount),
                     static_cast<double>(s.screenPoints), s.basinTolerance, static_cast<double>(s.basinRefineCount),
                     static_cast<double>(s.maxIterations), static_cast<double>(s.keepBest), s.spreadTolerance})
        appendNumber(out, v);
    for (const auto* axis : {&s.grid.logA, &s.grid.logB, &s.grid.logE, &s.grid.alpha, &s.grid.beta, &s.grid.gamma}) {
        out += '[';
        for (double v : *axis) appendNumber(out, v);
        out += ']';
    }
    for (const auto& bound : {s.bounds.lower, s.bounds.upper})
        for (double v : bound.asArray()) appendNumber(out, v);
    return out;
}

Key keyOf(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group, const fit::LossSurfaceSettings& fitSettings) {
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::size_t count = 0;
    for (const auto& run : table.runs) {
        if (!passes(run, group.filter)) continue;
        const double values[] = {run.params, run.tokens, run.loss(), run.userIncluded.value_or(false) ? 1.0 : 0.0};
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(values), sizeof values));
        ++count;
    }
    return {std::to_string(count) + ":" + hash.result().toHex().toStdString(), settings, group.label(), fitKey(fitSettings)};
}

// The fits kept, oldest first, and those under way: a job asking for a fit that another is making
// waits for it rather than making it again (the window's views start theirs together).
class KeptFits {
public:
    // The kept fit of `key`, waiting for it while another thread makes it; nothing when it is
    // neither kept nor under way: the caller then makes it and hands it to done().
    std::optional<GroupSurface> findOrClaim(const Key& key, const fit::FitControl& control) {
        std::unique_lock lock(mutex_);
        for (;;) {
            const auto it = std::find_if(fits_.begin(), fits_.end(), [&](const Entry& e) { return e.key == key; });
            if (it == fits_.end()) {
                fits_.push_back({key, std::nullopt});
                return std::nullopt;
            }
            if (it->surface) return it->surface;
            if (control.cancelled()) return cancelledFit(key.label);
            changed_.wait_for(lock, std::chrono::milliseconds(20));  // and look at the cancel flag again
        }
    }
    std::optional<GroupSurface> find(const Key& key) {
        std::lock_guard lock(mutex_);
        for (const auto& e : fits_)
            if (e.key == key) return e.surface;
        return std::nullopt;
    }
    // The fit claimed by findOrClaim: kept, or (cancelled) left to the next that asks.
    void done(const Key& key, const GroupSurface& surface) {
        {
            std::lock_guard lock(mutex_);
            const auto it = std::find_if(fits_.begin(), fits_.end(), [&](const Entry& e) { return e.key == key && !e.surface; });
            if (it != fits_.end()) {
                if (surface.cancelled) fits_.erase(it);
                else it->surface = surface;
            }
            dropOldest();
        }
        changed_.notify_all();
    }
    // A fit made elsewhere, unless the same is kept or under way.
    void keep(Key key, const GroupSurface& surface) {
        {
            std::lock_guard lock(mutex_);
            if (std::any_of(fits_.begin(), fits_.end(), [&](const Entry& e) { return e.key == key; })) return;
            fits_.push_back({std::move(key), surface});
            dropOldest();
        }
        changed_.notify_all();
    }

    static GroupSurface cancelledFit(const std::string& label) {
        GroupSurface s;
        s.problem = label + ": its L(N,D) fit was cancelled.";
        s.cancelled = true;
        return s;
    }

private:
    struct Entry {
        Key key;
        std::optional<GroupSurface> surface;  // none: under way
    };
    void dropOldest() {
        std::size_t kept = 0;
        for (const auto& e : fits_) kept += e.surface ? 1 : 0;
        for (auto it = fits_.begin(); kept > kMaxFits && it != fits_.end();)
            if (it->surface) it = fits_.erase(it), --kept;
            else ++it;
    }
    // Enough for every series and context of a few studies and settings.
    static constexpr std::size_t kMaxFits = 64;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Entry> fits_;
};

KeptFits& keptFits() {
    static KeptFits fits;
    return fits;
}

GroupSurface surfaceOf(const LossSurfaceAnalysis& a) {
    GroupSurface s;
    if (a.error) s.problem = *a.error + ".";
    else if (a.fit.cancelled) s = KeptFits::cancelledFit(a.group.label());
    else s.surface = a.fit.best;
    return s;
}

}  // namespace

GroupSurface groupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                          const fit::LossSurfaceSettings& base, const fit::FitControl& control) {
    const SeriesGroup runs = studySet(table, group, data::ExperimentSet::TokenParam);
    const fit::LossSurfaceSettings fitSettings = lossSurfaceSettings(settings, base);
    const Key key = keyOf(table, settings, runs, fitSettings);
    if (auto kept = keptFits().findOrClaim(key, control)) return *kept;
    GroupSurface s;
    try {
        s = surfaceOf(lossSurfaceAnalysis(table, settings, runs, fitSettings, control));
    } catch (...) {
        keptFits().done(key, KeptFits::cancelledFit(key.label));  // released for the next that asks
        throw;
    }
    keptFits().done(key, s);
    return s;
}

GroupSurface groupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                          const fit::FitControl& control) {
    return groupSurface(table, settings, group, fit::LossSurfaceSettings{}, control);
}

std::optional<GroupSurface> keptGroupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                                             const fit::LossSurfaceSettings& base) {
    const SeriesGroup runs = studySet(table, group, data::ExperimentSet::TokenParam);
    return keptFits().find(keyOf(table, settings, runs, lossSurfaceSettings(settings, base)));
}

void keepGroupSurface(const data::RunTable& table, const AnalysisSettings& settings, const SeriesGroup& group,
                      const fit::LossSurfaceSettings& fitSettings, const LossSurfaceAnalysis& analysis) {
    const GroupSurface s = surfaceOf(analysis);
    if (!s.cancelled) keptFits().keep(keyOf(table, settings, group, fitSettings), s);
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
