#include "core/analysis/Study.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "core/analysis/ComputeOptimal.h"
#include "core/analysis/CurveFits.h"
#include "core/analysis/SurfaceFits.h"
#include "core/data/RunSpecs.h"
#include "core/data/Series.h"

namespace scalex::analysis {

Study::Study() {
    if (auto tables = data::loadPaperTables()) paper_ = std::move(*tables);
}


std::string tableNameFrom(const std::string& label, bool keepDots) {
    std::string name = keepDots ? label : label.substr(0, label.find('.'));
    for (char& c : name)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) c = '_';
    return name.empty() ? std::string("runs") : name;
}

std::string Study::setProject(data::Project project) {
    project_ = std::move(project);
    // A project's settings were checked when it was read; what cannot be used falls back to the defaults.
    const auto settings = AnalysisSettings::fromProject(project_.settings);
    settings_ = settings.value_or(AnalysisSettings{});
    mergeTables();
    return settings ? std::string() : settings.error().toString();
}

void Study::copyToggles(std::vector<data::ProjectTable>& tables) const {
    // The merged runs differ from the project's only by the user's include toggles.
    for (std::size_t i = 0; i < runs_.runs.size() && i < origin_.size(); ++i)
        tables[origin_[i].first].table.runs[origin_[i].second].userIncluded = runs_.runs[i].userIncluded;
}

data::Project Study::project() const {
    data::Project p = project_;
    copyToggles(p.tables);
    settings_.storeIn(p.settings);
    return p;
}

accounting::FlopConvention Study::convention() const {
    return accounting::conventionByName(settings_.convention).value_or(accounting::studyConvention());
}

std::uint64_t Study::nextRevision() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

void Study::mergeTables() {
    digest_.reset();
    revision_ = nextRevision();
    runs_ = project_.mergedRuns();
    origin_.clear();
    origin_.reserve(runs_.runs.size());
    for (std::size_t t = 0; t < project_.tables.size(); ++t)
        for (std::size_t r = 0; r < project_.tables[t].table.runs.size(); ++r) origin_.push_back({t, r});
    bindSpecs();
    fileCheckpoint_.clear();
    fileBudget_.clear();
    fileStep_.clear();
    fileNamed_.clear();
    for (const auto& r : runs_.runs) {
        fileCheckpoint_.push_back(r.intermediateCheckpoint ? 1 : 0);
        fileBudget_.push_back(r.budget);
        fileStep_.push_back(r.step);
        fileNamed_.push_back(!r.runId.empty() || !r.name.empty());
    }
    fileNotes_ = runs_.notes;
    applyReading();
}

void Study::applyReading() {
    // What an earlier reading wrote is undone first: the reading starts from what the files say.
    std::vector<char> wasCheckpoint;
    std::vector<double> wasBudget;
    std::vector<std::string> wasLeftOut;
    for (std::size_t i = 0; i < runs_.runs.size() && i < fileCheckpoint_.size(); ++i) {
        data::Run& r = runs_.runs[i];
        wasCheckpoint.push_back(r.intermediateCheckpoint);
        wasBudget.push_back(r.budget);
        wasLeftOut.push_back(std::move(r.sweepLeftOut));
        r.intermediateCheckpoint = fileCheckpoint_[i] != 0;
        r.budget = fileBudget_[i];
        r.sweepLeftOut.clear();
        if (!fileNamed_[i]) r.name.clear();
        r.step = fileStep_[i];
    }
    reading_ = readStudy(runs_, settings_.scope.filter(), ReadingOptions{settings_.seriesBy, settings_.roles});
    // A change of what the runs carry is a change of the runs (their revision), as a regrouping is.
    bool regrouped = false;
    auto same = [](double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); };
    for (std::size_t i = 0; i < runs_.runs.size(); ++i) {
        data::Run& r = runs_.runs[i];
        if (r.series != reading_.series[i]) {
            r.series = reading_.series[i];
            regrouped = true;
        }
        r.sweepLeftOut = reading_.sweepLeftOut[i];
        if (reading_.checkpoint[i]) r.intermediateCheckpoint = true;
        if (!data::known(r.budget) && data::known(reading_.budget[i])) r.budget = reading_.budget[i];
        // The run a checkpoint row belongs to, where the file names none: drawn as one loss curve.
        if (!reading_.curveName[i].empty() && r.runId.empty() && r.name.empty()) {
            r.name = reading_.curveName[i];
            r.step = reading_.curveStep[i];
        }
        if (i < wasLeftOut.size() && (wasLeftOut[i] != r.sweepLeftOut || (wasCheckpoint[i] != 0) != r.intermediateCheckpoint ||
                                      !same(wasBudget[i], r.budget)))
            regrouped = true;
    }
    if (settings_.seriesBy.empty()) {
        runs_.seriesBy = reading_.conditions;
        runs_.seriesConsidered.clear();
    }
    // The files' notes, less what they said of sweeps (the reading says it of the runs in scope).
    runs_.notes.clear();
    for (const auto& n : fileNotes_)
        if (n.rfind("sweeps: ", 0) != 0) runs_.notes.push_back(n);
    runs_.notes.insert(runs_.notes.end(), reading_.notes.begin(), reading_.notes.end());
    series_ = data::seriesNames(runs_);
    if (regrouped) {
        digest_.reset();
        revision_ = nextRevision();
    }
}

void Study::bindSpecs() {
    specErrors_.clear();
    data::RunSpecBinder binder(project_.specs, convention());
    for (std::size_t i = 0; i < runs_.runs.size() && i < origin_.size(); ++i)
        if (auto e = binder.bind(runs_.runs[i], project_.tables[origin_[i].first].table.source)) specErrors_.push_back(std::move(*e));
}

void Study::rebindSpecs() {
    const bool named = !specErrors_.empty() ||
                       std::any_of(runs_.runs.begin(), runs_.runs.end(), [](const data::Run& r) { return !r.specName.empty(); });
    if (!named) return;
    copyToggles(project_.tables);
    mergeTables();
}

void Study::setSettings(const AnalysisSettings& settings) {
    const bool recount = settings.convention != settings_.convention;
    const bool reread = !(settings.scope == settings_.scope) || settings.seriesBy != settings_.seriesBy || settings.roles != settings_.roles;
    settings_ = settings;
    if (recount) rebindSpecs();
    else if (reread) applyReading();
}

std::optional<data::LoadError> Study::groupRunsBy(const std::vector<std::string>& columns) {
    for (const auto& t : project_.tables)  // nothing changes on an error
        if (auto e = data::checkGroupRunsBy(t.table, columns)) return e;
    for (auto& t : project_.tables)
        if (auto e = data::groupRunsBy(t.table, columns)) return e;  // checked above
    settings_.seriesBy = columns;
    // Only the series (and so the sweeps) move: the merged runs and their toggles stay.
    for (std::size_t i = 0; i < runs_.runs.size() && i < origin_.size(); ++i) {
        const data::Run& regrouped = project_.tables[origin_[i].first].table.runs[origin_[i].second];
        runs_.runs[i].series = regrouped.series;
        runs_.runs[i].sweepLeftOut = regrouped.sweepLeftOut;
    }
    if (project_.tables.size() == 1) {
        runs_.seriesBy = project_.tables.front().table.seriesBy;
        runs_.seriesConsidered = project_.tables.front().table.seriesConsidered;
    }
    applyReading();
    digest_.reset();
    revision_ = nextRevision();
    return std::nullopt;
}

void Study::addRuns(data::RunTable runs, const std::string& name) {
    std::string base = tableNameFrom(name), unique = base;
    for (int i = 2; project_.table(unique); ++i) unique = base + "-" + std::to_string(i);
    // The toggles made so far stay with their runs.
    copyToggles(project_.tables);
    project_.tables.push_back({unique, std::move(runs)});
    mergeTables();
}

namespace {
// A usable name for a set added to `sets`, unique among them: `name` (or `fallback`), then name-2, name-3, ...
template <class Set>
std::string uniqueSetName(const std::vector<Set>& sets, const std::string& name, const char* fallback, bool keepDots = false) {
    std::string base = tableNameFrom(name, keepDots);
    if (!data::validTableName(base)) base = fallback;
    auto taken = [&](const std::string& n) { return std::any_of(sets.begin(), sets.end(), [&](const auto& c) { return c.name == n; }); };
    std::string out = base;
    for (int i = 2; taken(out); ++i) out = base + "-" + std::to_string(i);
    return out;
}
}  // namespace

bool Study::describeSchedule(const std::string& set, const std::string& run, const std::string& description) {
    for (auto& c : project_.curves) {
        if (c.name != set || !c.curves.find(run)) continue;
        const auto it = c.schedules.find(run);
        if (description.empty()) {
            if (it == c.schedules.end()) return false;
            c.schedules.erase(it);
            return true;
        }
        // The same schedule written otherwise (0.0003 for 0.00029999999999999997) is no change.
        if (it != c.schedules.end() && normalScheduleDescription(it->second) == normalScheduleDescription(description)) return false;
        c.schedules[run] = description;
        return true;
    }
    return false;
}

void Study::addCurves(data::ProjectCurves curves) {
    curves.name = uniqueSetName(project_.curves, curves.name, "curves");
    project_.curves.push_back(std::move(curves));
}

std::string Study::addSpec(data::ProjectSpec spec) {
    spec.name = uniqueSetName(project_.specs, spec.name, "model", /*keepDots=*/true);
    project_.specs.push_back(std::move(spec));
    rebindSpecs();
    return project_.specs.back().name;
}

bool Study::setSpec(data::ProjectSpec spec) {
    for (auto& s : project_.specs)
        if (s.name == spec.name) {
            if (s.spec == spec.spec && s.source == spec.source) return false;
            s = std::move(spec);
            rebindSpecs();
            return true;
        }
    project_.specs.push_back(std::move(spec));
    rebindSpecs();
    return true;
}

void Study::setInference(data::ProjectInference inference) {
    inference.name = tableNameFrom(inference.name);
    if (!data::validTableName(inference.name)) inference.name = "inference";
    project_.inference.clear();
    project_.inference.push_back(std::move(inference));
}

bool Study::setIncluded(int index, bool included) {
    if (index < 0 || index >= static_cast<int>(runs_.runs.size())) return false;
    data::Run& run = runs_.runs[static_cast<std::size_t>(index)];
    if (run.included() == included) return false;
    run.userIncluded = included;
    if (toggleRereads()) applyReading();  // the runs in scope changed: a sweep's best may be another
    return true;
}

void Study::setIncludeToggles(const std::vector<std::optional<bool>>& toggles) {
    for (std::size_t i = 0; i < runs_.runs.size() && i < toggles.size(); ++i) runs_.runs[i].userIncluded = toggles[i];
    applyReading();
}

bool Study::toggleRereads() const {
    // A toggle moves what the reading gives only through the runs it compares: the sweeps (their
    // best settings) and budgets found from the runs (names checked against C, clusters of C).
    // Otherwise the reading stands, and a million-run study toggles at once.
    return !reading_.knobs.empty() || (!reading_.budgets.levels.empty() && reading_.budgets.source.rfind("column", 0) != 0);
}

std::vector<std::string> Study::runKeys() const {
    std::vector<const data::Run*> runs;
    for (const auto& r : runs_.runs) runs.push_back(&r);
    return data::runKeys(runs);
}

std::string Study::dataDigest() const {
    // A hash of every run: computed once per change of the tables (each ends in mergeTables).
    if (!digest_) {
        std::vector<const data::RunTable*> tables;
        for (const auto& t : project_.tables) tables.push_back(&t.table);
        digest_ = data::runTablesDigest(tables);
    }
    return *digest_;
}

std::optional<fit::LossSurfaceParams> Study::paperSurface(accounting::Family family) const {
    return analysis::paperSurface(paper_, family, settings_.huberDelta);
}

fit::ComputePerToken Study::computePerToken(accounting::Family family, double context) const {
    return studyComputePerToken(paper_.modelConfigs, family, context, convention());
}

bool Study::isPaperStudy() const {
    if (generated()) return true;
    return !series_.empty() &&
           std::all_of(series_.begin(), series_.end(), [](const std::string& s) { return accounting::parseFamily(s).has_value(); });
}

bool Study::inAnalysis(const data::Run& run) const { return passes(run, filter()); }

RunFilter Study::filter(std::optional<accounting::Family> family) const {
    RunFilter f = settings_.scope.filter();
    f.family = family;
    return f;
}

int Study::seriesIndex(const std::string& name) const {
    const auto it = std::find(series_.begin(), series_.end(), name);
    return it == series_.end() ? static_cast<int>(series_.size()) : static_cast<int>(it - series_.begin());
}

}  // namespace scalex::analysis
