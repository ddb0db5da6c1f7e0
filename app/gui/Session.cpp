#include "app/gui/Session.h"

#include <QRegularExpression>

#include "core/analysis/ComputeOptimal.h"
#include "core/data/Series.h"

#include <algorithm>

namespace scalex::gui {

Session::Session(QObject* parent) : QObject(parent) {
    if (auto tables = data::loadPaperTables()) paper_ = std::move(*tables);
}

fit::LossSurfaceParams Session::surface(accounting::Family family) const {
    if (fitted_[index(family)]) return *fitted_[index(family)];
    const data::LossSurfaceParams* p = paper_.lossSurface(family, settings_.huberDelta);
    if (!p) p = paper_.lossSurface(family, 1e-3);
    if (!p) return {};
    return {p->logA, p->logB, p->logE, p->alpha, p->beta, p->gamma};
}

void Session::setFittedSurface(accounting::Family family, const std::optional<fit::LossSurfaceParams>& surface) {
    fitted_[index(family)] = surface;
    emit surfaceChanged();
}

fit::ComputePerToken Session::computePerToken(accounting::Family family, double context) const {
    return analysis::studyComputePerToken(paper_.modelConfigs, family, context, convention());
}

accounting::FlopConvention Session::convention() const {
    return accounting::conventionByName(settings_.convention).value_or(accounting::studyConvention());
}

namespace {
// Project table names: letters, digits, '.', '_', '-'.
std::string tableNameFrom(const QString& label) {
    QString name = label.section('.', 0, 0);
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")), QStringLiteral("_"));
    return name.isEmpty() ? std::string("runs") : name.toStdString();
}
}  // namespace

void Session::mergeTables() {
    runs_ = data::RunTable{};
    runs_.source = project_.title;
    origin_.clear();
    std::size_t total = 0;
    for (const auto& t : project_.tables) total += t.table.runs.size();
    runs_.runs.reserve(total);
    origin_.reserve(total);
    for (std::size_t t = 0; t < project_.tables.size(); ++t)
        for (std::size_t r = 0; r < project_.tables[t].table.runs.size(); ++r) {
            runs_.runs.push_back(project_.tables[t].table.runs[r]);
            origin_.push_back({t, r});
        }
    series_ = data::seriesNames(runs_);
}

int Session::seriesIndex(const std::string& name) const {
    const auto it = std::find(series_.begin(), series_.end(), name);
    return it == series_.end() ? static_cast<int>(series_.size()) : static_cast<int>(it - series_.begin());
}

void Session::setRuns(data::RunTable runs, const QString& label) {
    data::Project p;
    p.title = label.toStdString();
    p.tables.push_back({tableNameFrom(label), std::move(runs)});
    setProject(std::move(p), QString());
    sourceLabel_ = label;
}

void Session::setProject(data::Project project, const QString& path) {
    project_ = std::move(project);
    projectPath_ = path;
    sourceLabel_ = QString::fromStdString(project_.title);
    if (project_.generated && !sourceLabel_.contains(QLatin1String("enerated")))
        sourceLabel_ += tr(" (generated example data)");
    // A project's settings were checked when it was read; what cannot be used falls back to the defaults.
    const auto settings = analysis::AnalysisSettings::fromProject(project_.settings);
    settings_ = settings.value_or(analysis::AnalysisSettings{});
    settingsProblem_ = settings ? QString()
                                : tr("the project's analysis settings could not be used (%1); the defaults apply")
                                      .arg(QString::fromStdString(settings.error().toString()));
    mergeTables();
    fitted_ = {};
    selection_.clear();
    emit settingsChanged();
    emit runsChanged();
    emit selectionChanged();
    emit surfaceChanged();
    emit curvesChanged();
    emit inferenceChanged();
}

std::optional<data::LoadError> Session::groupRunsBy(const std::vector<std::string>& columns) {
    data::Project regrouped = project();
    for (auto& t : regrouped.tables)
        if (auto e = data::groupRunsBy(t.table, columns)) return e;
    project_.tables = std::move(regrouped.tables);
    settings_.seriesBy = columns;
    mergeTables();
    emit runsChanged();
    return std::nullopt;
}

void Session::addRuns(data::RunTable runs, const QString& name) {
    std::string base = tableNameFrom(name), unique = base;
    for (int i = 2; project_.table(unique); ++i) unique = base + "-" + std::to_string(i);
    project_.tables.push_back({unique, std::move(runs)});
    mergeTables();
    emit runsChanged();
}

void Session::addCurves(data::ProjectCurves curves) {
    curves.name = tableNameFrom(QString::fromStdString(curves.name));
    if (!data::validTableName(curves.name)) curves.name = "curves";
    auto taken = [this](const std::string& name) {
        return std::any_of(project_.curves.begin(), project_.curves.end(), [&](const auto& c) { return c.name == name; });
    };
    const std::string base = curves.name.empty() ? std::string("curves") : curves.name;
    curves.name = base;
    for (int i = 2; taken(curves.name); ++i) curves.name = base + "-" + std::to_string(i);
    project_.curves.push_back(std::move(curves));
    emit curvesChanged();
}

void Session::setInference(data::ProjectInference inference) {
    inference.name = tableNameFrom(QString::fromStdString(inference.name));
    if (!data::validTableName(inference.name)) inference.name = "inference";
    project_.inference.clear();
    project_.inference.push_back(std::move(inference));
    emit inferenceChanged();
}

data::Project Session::project() const {
    data::Project p = project_;
    // The session's runs differ from the project's only by the user's include toggles.
    for (std::size_t i = 0; i < runs_.runs.size() && i < origin_.size(); ++i)
        p.tables[origin_[i].first].table.runs[origin_[i].second].userIncluded = runs_.runs[i].userIncluded;
    settings_.storeIn(p.settings);
    return p;
}

void Session::setSettings(const AnalysisSettings& settings) {
    settings_ = settings;
    emit settingsChanged();
}

void Session::setIncluded(int index, bool included) {
    if (index < 0 || index >= static_cast<int>(runs_.runs.size())) return;
    data::Run& run = runs_.runs[static_cast<std::size_t>(index)];
    if (run.included() == included) return;
    run.userIncluded = included;
    emit runsChanged();
}

void Session::setIncludeToggles(const std::vector<std::optional<bool>>& toggles) {
    for (std::size_t i = 0; i < runs_.runs.size() && i < toggles.size(); ++i) runs_.runs[i].userIncluded = toggles[i];
    emit runsChanged();
}

void Session::setRecipe(const std::string& name, const data::FigureRecipe& recipe) {
    project_.recipes[name] = recipe;
    emit recipesChanged();
}

void Session::removeRecipe(const std::string& name) {
    if (project_.recipes.erase(name)) emit recipesChanged();
}

std::vector<std::string> Session::runKeys() const {
    std::vector<const data::Run*> runs;
    for (const auto& r : runs_.runs) runs.push_back(&r);
    return data::runKeys(runs);
}

std::string Session::dataDigest() const {
    std::vector<const data::RunTable*> tables;
    for (const auto& t : project_.tables) tables.push_back(&t.table);
    return data::runTablesDigest(tables);
}

void Session::setSelection(const QSet<int>& selection) {
    if (selection == selection_) return;
    selection_ = selection;
    emit selectionChanged();
}

bool Session::inAnalysis(const data::Run& run) const { return analysis::passes(run, filter()); }

analysis::RunFilter Session::filter(std::optional<accounting::Family> family) const {
    analysis::RunFilter f = settings_.scope.filter();
    f.family = family;
    return f;
}

}  // namespace scalex::gui
