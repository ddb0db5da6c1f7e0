#pragma once
// A study as every analysis reads it: the runs of a project's tables merged into one table (with
// the user's include toggles), its loss curves, inference measurements and figure recipes, the one
// AnalysisSettings value, and what the analyses take from the paper (its loss surfaces and its
// model configurations for compute per token). The window's session, the figures and the verbs
// hold one; it knows nothing of widgets or signals.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/accounting/FlopCount.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/StudyReading.h"
#include "core/data/PaperTables.h"
#include "core/data/Project.h"
#include "core/data/RunTable.h"
#include "core/fit/ComputeOptimal.h"
#include "core/fit/LossSurface.h"

namespace scalex::analysis {

class Study {
public:
    // An empty study with the paper's tables (datasets/paper) loaded.
    Study();

    // Replaces everything with `project`. Its settings are used when they can be; otherwise the
    // defaults, and the returned text says why (empty when the project's settings were used).
    std::string setProject(data::Project project);
    // The current state as a project: its tables with the user's include toggles, and the settings.
    data::Project project() const;
    const data::Project& loaded() const { return project_; }

    const data::RunTable& runs() const { return runs_; }
    const AnalysisSettings& settings() const { return settings_; }
    // A change of the FLOP convention recounts the compute of runs that name a spec.
    void setSettings(const AnalysisSettings& settings);
    accounting::FlopConvention convention() const;

    // Groups the runs of every table into series by these columns (empty: each table's default);
    // an error naming the column a table lacks, and nothing changed.
    std::optional<data::LoadError> groupRunsBy(const std::vector<std::string>& columns);
    // Appends a run table under a name made unique among the tables.
    void addRuns(data::RunTable runs, const std::string& name);
    void addCurves(data::ProjectCurves curves);
    // Keeps `description` as the schedule of `run` in the curve set named `set` (empty: drops the
    // run's); false when nothing changed (the same schedule, however written, or no such set and run).
    bool describeSchedule(const std::string& set, const std::string& run, const std::string& description);
    void setInference(data::ProjectInference inference);
    // The user's include/exclude toggle of one run (index into runs().runs); false when nothing changed.
    bool setIncluded(int index, bool included);
    void setIncludeToggles(const std::vector<std::optional<bool>>& toggles);

    const std::vector<data::ProjectCurves>& curveSets() const { return project_.curves; }
    // Adds a model spec under a usable name unique among the project's specs; returns that name.
    std::string addSpec(data::ProjectSpec spec);
    // Replaces the spec of that name (adds it when there is none); false when nothing changed.
    bool setSpec(data::ProjectSpec spec);
    const std::vector<data::ProjectSpec>& specs() const { return project_.specs; }
    // Runs whose `spec` cell names no spec of the project and no model file (data/RunSpecs.h), one
    // error each (file, line, field `spec`); those runs are kept with the error as a problem.
    const std::vector<data::LoadError>& specErrors() const { return specErrors_; }
    const std::vector<data::ProjectInference>& inferenceSets() const { return project_.inference; }
    const data::FigureRecipes& recipes() const { return project_.recipes; }
    void setRecipe(const std::string& name, const data::FigureRecipe& recipe) { project_.recipes[name] = recipe; }
    bool removeRecipe(const std::string& name) { return project_.recipes.erase(name) > 0; }
    bool generated() const { return project_.generated.has_value(); }
    // The paper's study: the built-in example (generated from the paper's laws), or runs whose
    // series are all the paper's families (Transformer, xLSTM). Its compute-optimal answers come
    // from the paper's models unless asked otherwise (OptimalQuery::paperModels).
    bool isPaperStudy() const;
    // The key a recipe names each run of runs() by (data::runKeys), and data::runTablesDigest of the tables.
    std::vector<std::string> runKeys() const;
    std::string dataDigest() const;
    // dataDigest() when it is known without hashing every run (once computed for these tables).
    const std::optional<std::string>& knownDataDigest() const { return digest_; }
    // Keeps a digest computed elsewhere (a worker thread, from copies of the tables of revision
    // `revision`) when the tables are still those.
    void rememberDataDigest(std::uint64_t revision, std::string digest) const {
        if (revision == revision_) digest_ = std::move(digest);
    }
    // Changes whenever the runs' values or series change (a new table, a regrouping), not when a
    // run is toggled; unique across studies, so a view can tell whether what it shows is still
    // the runs' text.
    std::uint64_t runsRevision() const { return revision_; }

    // How the runs in scope are read (analysis/StudyReading.h): the columns' roles with their
    // evidence, the series, sweeps, checkpoints and budgets it gives. The merged runs carry what it
    // gives (series, sweepLeftOut, budgets where the file gives none, checkpoints a step column
    // finds); it is read again whenever the tables, the scope, the grouping or the roles change.
    const StudyReading& reading() const { return reading_; }

    // The paper's shipped tables.
    const data::PaperTables& paper() const { return paper_; }
    // The paper's fitted loss surface of a family (Tab. lnd_fit_params at the settings' Huber delta,
    // else at 1e-3; none when the tables lack it). The study's own surfaces are fitted to its runs
    // by the analyses that draw them (SurfaceFits.h).
    std::optional<fit::LossSurfaceParams> paperSurface(accounting::Family family) const;
    // Training compute per token c(N) of a model of size N at context T under the settings'
    // convention, through the study's model configurations of that family.
    fit::ComputePerToken computePerToken(accounting::Family family, double context) const;

    // A run takes part in the analyses: included and in the settings' scope.
    bool inAnalysis(const data::Run& run) const;
    // The scope as a filter, optionally for one family.
    RunFilter filter(std::optional<accounting::Family> family = std::nullopt) const;
    // The series of the runs in order of first appearance, and a series' place in it (its colour).
    const std::vector<std::string>& seriesNames() const { return series_; }
    int seriesIndex(const std::string& name) const;
    // Index of a run of runs() (for the pointers analyses return).
    int indexOf(const data::Run* run) const { return static_cast<int>(run - runs_.runs.data()); }

private:
    // Writes the include toggles of the merged runs into `tables` (the project's, or a copy of them).
    void copyToggles(std::vector<data::ProjectTable>& tables) const;
    void mergeTables();
    // Reads the merged runs in the settings' scope and writes what the reading gives onto them.
    void applyReading();
    // Whether a toggle of a run can change the reading (see the definition).
    bool toggleRereads() const;
    StudyReading reading_;
    // What the files say of each merged run before a reading: checkpoints, budgets, notes.
    std::vector<char> fileCheckpoint_;
    std::vector<double> fileBudget_, fileStep_;
    std::vector<char> fileNamed_;  // the file names the run (run id or name)
    std::vector<std::string> fileNotes_;
    // Binds the merged runs to the specs they name (data::RunSpecBinder).
    void bindSpecs();
    // mergeTables again (toggles kept) when a run names a spec: the specs or the convention changed.
    void rebindSpecs();
    std::vector<data::LoadError> specErrors_;
    mutable std::optional<std::string> digest_;  // dataDigest(), until the tables change
    static std::uint64_t nextRevision();
    std::uint64_t revision_ = 0;

    data::Project project_;
    data::RunTable runs_;
    AnalysisSettings settings_;
    std::vector<std::pair<std::size_t, std::size_t>> origin_;  // merged run -> (table, row)
    std::vector<std::string> series_;
    data::PaperTables paper_;
};

// A name for a project's table from a file name or label: letters, digits, '.', '_', '-'.
std::string tableNameFrom(const std::string& label, bool keepDots = false);  // keepDots: a name, not a file name

}  // namespace scalex::analysis
