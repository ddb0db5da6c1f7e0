#include "app/gui/Session.h"

#include <QFileInfo>

namespace scalex::gui {

Session::Session(QObject* parent) : QObject(parent) {}

void Session::setRuns(data::RunTable runs, const QString& label) {
    data::Project p;
    p.title = label.toStdString();
    p.tables.push_back({analysis::tableNameFrom(label.toStdString()), std::move(runs)});
    setProject(std::move(p), QString());
    sourceLabel_ = label;
}

void Session::setProject(data::Project project, const QString& path) {
    ++changes_;
    snapshot_.reset();
    const std::string problem = study_.setProject(std::move(project));
    projectPath_ = path;
    sourceLabel_ = QString::fromStdString(study_.loaded().title);
    if (study_.generated() && !sourceLabel_.contains(QLatin1String("enerated")))
        sourceLabel_ += tr(" (generated example data)");
    settingsProblem_ = problem.empty() ? QString()
                                       : tr("the project's analysis settings could not be used (%1); the defaults apply")
                                             .arg(QString::fromStdString(problem));
    selection_.clear();
    emit settingsChanged();
    emit runsChanged();
    emit selectionChanged();
    emit curvesChanged();
    emit inferenceChanged();
    emit specsChanged();
}

std::optional<data::LoadError> Session::groupRunsBy(const std::vector<std::string>& columns) {
    ++changes_;
    snapshot_.reset();
    if (auto e = study_.groupRunsBy(columns)) return e;
    emit runsChanged();
    return std::nullopt;
}

void Session::addRuns(data::RunTable runs, const QString& name) {
    ++changes_;
    snapshot_.reset();
    study_.addRuns(std::move(runs), name.toStdString());
    emit runsChanged();
}

void Session::addCurves(data::ProjectCurves curves) {
    ++changes_;
    study_.addCurves(std::move(curves));
    emit curvesChanged();
}

bool Session::describeSchedule(const std::string& set, const std::string& run, const std::string& description) {
    if (!study_.describeSchedule(set, run, description)) return false;
    ++changes_;
    emit curvesChanged();
    return true;
}

QString Session::addDataFile(data::DataFileKind kind, const QString& path) {
    const QFileInfo file(path);
    switch (kind) {
        case data::DataFileKind::LossCurves: {
            auto curves = data::loadProjectCurves(path, file.fileName().toStdString());
            if (!curves) return QString::fromStdString(curves.error().toString());
            addCurves(std::move(*curves));
            return {};
        }
        case data::DataFileKind::InferenceMeasurements: {
            auto set = data::loadProjectInference(path, file.completeBaseName().toStdString());
            if (!set) return QString::fromStdString(set.error().toString());
            setInference(std::move(*set));
            return {};
        }
        default: return tr("%1: not loss curves or inference measurements").arg(path);
    }
}

void Session::runsRecounted(std::uint64_t revision) {
    if (study_.runsRevision() == revision) return;
    snapshot_.reset();
    emit runsChanged();
}

std::string Session::addSpec(data::ProjectSpec spec) {
    ++changes_;
    const std::uint64_t revision = study_.runsRevision();
    const std::string name = study_.addSpec(std::move(spec));
    emit specsChanged();
    runsRecounted(revision);
    return name;
}

void Session::setSpec(data::ProjectSpec spec) {
    const std::uint64_t revision = study_.runsRevision();
    if (!study_.setSpec(std::move(spec))) return;
    ++changes_;
    emit specsChanged();
    runsRecounted(revision);
}

void Session::setInference(data::ProjectInference inference) {
    ++changes_;
    study_.setInference(std::move(inference));
    emit inferenceChanged();
}

void Session::setSettings(const AnalysisSettings& settings) {
    ++changes_;
    const std::uint64_t revision = study_.runsRevision();
    study_.setSettings(settings);
    emit settingsChanged();
    runsRecounted(revision);
}

void Session::setIncluded(int index, bool included) {
    if (!study_.setIncluded(index, included)) return;
    ++changes_;
    snapshot_.reset();
    emit runsChanged();
}

void Session::setIncludeToggles(const std::vector<std::optional<bool>>& toggles) {
    ++changes_;
    snapshot_.reset();
    study_.setIncludeToggles(toggles);
    emit runsChanged();
}

void Session::setRecipe(const std::string& name, const data::FigureRecipe& recipe) {
    study_.setRecipe(name, recipe);
    emit recipesChanged();
}

void Session::removeRecipe(const std::string& name) {
    if (study_.removeRecipe(name)) emit recipesChanged();
}

void Session::setSelection(const QSet<int>& selection) {
    if (selection == selection_) return;
    selection_ = selection;
    ++changes_;
    emit selectionChanged();
}

std::shared_ptr<const data::RunTable> Session::runsSnapshot() const {
    if (!snapshot_) snapshot_ = std::make_shared<const data::RunTable>(study_.runs());
    return snapshot_;
}

}  // namespace scalex::gui
