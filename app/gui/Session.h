#pragma once
#include <memory>
// The state the explorer window shows: the study (runs, settings, what the analyses read), the
// selection shared by every view, and where the project lives. Views read it and listen to its
// signals; they never own data.
#include <QObject>
#include <QSet>
#include <QString>

#include <array>
#include <cstdint>
#include <optional>

#include "core/accounting/FlopCount.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/FitTypes.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/Study.h"
#include "core/data/DataFileKind.h"
#include "core/data/PaperTables.h"
#include "core/data/Project.h"
#include "core/data/RunTable.h"

namespace scalex::gui {

using analysis::AnalysisSettings;

class Session : public QObject {
    Q_OBJECT
public:
    explicit Session(QObject* parent = nullptr);

    // The study the window shows (what the analyses and figures read).
    const analysis::Study& study() const { return study_; }
    const data::RunTable& runs() const { return study_.runs(); }
    // The same runs as an immutable copy for the views' jobs, made once after each change of the
    // runs (or their toggles) and shared by every job that reads them.
    std::shared_ptr<const data::RunTable> runsSnapshot() const;
    const AnalysisSettings& settings() const { return study_.settings(); }
    accounting::FlopConvention convention() const { return study_.convention(); }
    QString sourceLabel() const { return sourceLabel_; }
    // Why the opened project's analysis settings were replaced by the defaults; empty when they were used.
    QString settingsProblem() const { return settingsProblem_; }

    // Replaces everything with one run table (a project of one table named after the file).
    void setRuns(data::RunTable runs, const QString& label);
    // Replaces everything with a project; `path` is where it lives (empty: not saved yet).
    void setProject(data::Project project, const QString& path);
    // Groups the runs of every table into series by these columns (empty: each table's default);
    // an error naming the column a table lacks, and nothing changed.
    std::optional<data::LoadError> groupRunsBy(const std::vector<std::string>& columns);
    // Appends a run table to the current project.
    void addRuns(data::RunTable runs, const QString& name);
    // The project's loss-curve sets (saved in it as curves/<name>.csv) and its inference
    // measurements (inference/<name>.csv; the inference view shows one set at a time).
    const std::vector<data::ProjectCurves>& curveSets() const { return study_.curveSets(); }
    const std::vector<data::ProjectInference>& inferenceSets() const { return study_.inferenceSets(); }
    // Appends a curve set (its name made unique among the sets).
    void addCurves(data::ProjectCurves curves);
    // Keeps `description` as the schedule of `run` in the curve set `set` (empty: drops the run's),
    // emitting curvesChanged when it changes; false when the project has no such set and run.
    bool describeSchedule(const std::string& set, const std::string& run, const std::string& description);
    // Adds a model spec to the project (saved with it); returns the name it got.
    std::string addSpec(data::ProjectSpec spec);
    // Replaces the project's spec of that name (adds it when there is none).
    void setSpec(data::ProjectSpec spec);
    const std::vector<data::ProjectSpec>& specs() const { return study_.specs(); }
    // Replaces the measurements with this set.
    void setInference(data::ProjectInference inference);
    // Reads the file `path` as data of this kind that the project keeps (loss curves, added to the
    // project's sets; inference measurements, replacing the project's): empty, or why it could not
    // (file, line and what was expected), and nothing changed.
    QString addDataFile(data::DataFileKind kind, const QString& path);
    // The current state as a project (tables with the user's include toggles, the settings).
    data::Project project() const { return study_.project(); }
    QString projectPath() const { return projectPath_; }
    void setProjectPath(const QString& path) { projectPath_ = path; }
    bool generated() const { return study_.generated(); }
    void setSettings(const AnalysisSettings& settings);
    // The theme, fonts or a figure's restyling changed: the views draw again, without refitting.
    void restyle() {
        ++changes_;
        emit styleChanged();
    }
    // The user's include/exclude toggle of one run (index into runs().runs).
    void setIncluded(int index, bool included);
    // Every run's toggle at once (nullopt: the run's default), with one runsChanged.
    void setIncludeToggles(const std::vector<std::optional<bool>>& toggles);

    // The project's figure recipes.
    const data::FigureRecipes& recipes() const { return study_.recipes(); }
    void setRecipe(const std::string& name, const data::FigureRecipe& recipe);
    void removeRecipe(const std::string& name);
    // The key a recipe names each run of runs() by (data::runKeys).
    std::vector<std::string> runKeys() const { return study_.runKeys(); }
    // data::runTablesDigest of the project's tables.
    std::string dataDigest() const { return study_.dataDigest(); }
    // Changes when the runs' values or series change, not when a run is toggled (Study::runsRevision).
    std::uint64_t runsRevision() const { return study_.runsRevision(); }

    // Counts the changes of what the views draw: one change (opening a project) may emit several
    // signals (runs, settings, selection, curves), and a view that draws all of it at once answers
    // the first and skips the rest (changeCount() unchanged since it drew).
    std::uint64_t changeCount() const { return changes_; }

    // Runs selected in any view (indices into runs().runs), highlighted in all views.
    const QSet<int>& selection() const { return selection_; }
    void setSelection(const QSet<int>& selection);

    // The paper's shipped tables (datasets/paper), loaded once.
    const data::PaperTables& paper() const { return study_.paper(); }

    // Training compute per token c(N) of a model of size N at context T under the session's
    // convention, interpolated through the study's model configurations of that family.
    fit::ComputePerToken computePerToken(accounting::Family family, double context) const {
        return study_.computePerToken(family, context);
    }

    // A run takes part in the analyses: included (no problems, or ticked by the user) and in the
    // settings' scope (the study's own selection unless all runs are asked for, the conditions).
    bool inAnalysis(const data::Run& run) const { return study_.inAnalysis(run); }
    // The scope as a filter for core/analysis, optionally for one family.
    analysis::RunFilter filter(std::optional<accounting::Family> family = std::nullopt) const { return study_.filter(family); }
    // The series of the runs in order of first appearance, and a series' place in it (its colour).
    const std::vector<std::string>& seriesNames() const { return study_.seriesNames(); }
    int seriesIndex(const std::string& name) const { return study_.seriesIndex(name); }

    // Index of a run of runs() (for the pointers RunAnalyses returns).
    int indexOf(const data::Run* run) const { return study_.indexOf(run); }

signals:
    void runsChanged();
    void settingsChanged();
    void selectionChanged();
    void recipesChanged();
    void curvesChanged();
    void inferenceChanged();
    void specsChanged();
    void styleChanged();

private:
    analysis::Study study_;
    mutable std::shared_ptr<const data::RunTable> snapshot_;  // of runs(); reset when they change
    QSet<int> selection_;
    QString sourceLabel_;
    QString settingsProblem_;
    QString projectPath_;
    std::uint64_t changes_ = 0;
    // After a change of the specs or the convention: runs that name a spec were counted anew
    // (Study::rebindSpecs) when the runs' revision moved since `revision`.
    void runsRecounted(std::uint64_t revision);
};

}  // namespace scalex::gui
