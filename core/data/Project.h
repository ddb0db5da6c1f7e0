#pragma once
// A Scalex project (`.scalex`): a zip holding
//   manifest.json   format name and version, title, the list of run tables, generator info
//   runs/<name>.columns  one per run table, in columns (RunTableColumns.h); projects before
//                        version 4 hold runs/<name>.csv (writeRunTableCsv / parseRunTable), still read
//   curves/<name>.csv    loss curves (LossCurves.h), the file's bytes as read
//   inference/<name>.csv inference measurements (InferenceMeasurements.h), the file's bytes as
//                        read, and inference/<name>/df_dict_<k>.csv the df_dict files that gave
//                        their architectures
//   settings.json   ProjectSettings: every analysis and view
//   recipes.json    figure recipes
//   results.json    fitted results
//   specs/<name>.json    model specs in Scalex's spec JSON (SpecJson.h)
// Curves and measurements are kept as the bytes they were read from (validated by parsing them)
// and parsed again on loading: both readers keep only part of a file (the df_dict format has
// dozens of columns), and the bytes lose nothing. A project holding them is format version 2;
// one without them is written as version 1, byte for byte as before; one holding model specs is
// version 3 (older Scalex refuses it rather than dropping the specs on its next save); one holding
// run tables is version 4 (their columns).
// Loading returns a project or one LoadError and never touches the caller's current project.
// The reader refuses entries that leave their folder and inflates under size limits.
#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/ModelSpec.h"
#include "core/data/FigureRecipe.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/LoadError.h"
#include "core/data/LossCurves.h"
#include "core/data/ProjectSettings.h"
#include "core/data/RunTable.h"

namespace scalex::data {

// The newest version this Scalex writes and reads; every older version still loads.
inline constexpr int kProjectFormatVersion = 4;
inline constexpr const char* kProjectFormatName = "scalex-project";

struct ProjectTable {
    std::string name;  // unique in the project; letters, digits, '.', '_', '-' (the member runs/<name>.columns)
    RunTable table;
};

// A loss-curve set: the curves file's bytes and what they parse to.
struct ProjectCurves {
    std::string name;  // unique among the curve sets; as a table name (the file curves/<name>.csv)
    std::string source;  // the file it was read from, as the user named it
    QByteArray csv;
    LossCurves curves;
    // A learning-rate schedule described for a run of the set, by run id, in the description
    // grammar of core/fit/Schedule.h (`wsd:peak=1e-3,steps=50000,warmup=300,cooldown=0.2`): the
    // config's of a tracker export, or the user's. Saved in the manifest's entry of the set.
    std::map<std::string, std::string> schedules;
};

// An inference-measurement set: the measurement file's bytes, the df_dict files whose
// architectures were joined onto it, and what they parse to.
struct ProjectInference {
    std::string name;  // unique among the inference sets; as a table name (inference/<name>.csv)
    std::string source;
    QByteArray csv;
    std::vector<QByteArray> dfDicts;
    InferenceData data;
};

// A model spec the project keeps: by name, with the file it was read from.
struct ProjectSpec {
    std::string name;  // unique among the specs; as a table name (specs/<name>.json)
    std::string source;
    accounting::ModelSpec spec;
};

// Parses and validates the bytes of a set; `file` names them in errors.
Expected<ProjectCurves> makeProjectCurves(std::string name, QByteArray csv, const std::string& file);
Expected<ProjectInference> makeProjectInference(std::string name, QByteArray csv, std::vector<QByteArray> dfDicts,
                                                const std::string& file);
// Reads a curves file, or a measurement file with the df_dict files beside it (siblingDfDictFiles).
Expected<ProjectCurves> loadProjectCurves(const QString& path, std::string name);
Expected<ProjectInference> loadProjectInference(const QString& path, std::string name);

struct Project {
    std::string title;
    // Set for generated projects (the example study): what made them, e.g. {"generator": ..., "seed": ...}.
    // Saved in the manifest as "generated" so every reader sees the runs are not measured.
    std::optional<QJsonObject> generated;
    std::vector<ProjectTable> tables;
    ProjectSettings settings;
    FigureRecipes recipes;  // by name (FigureRecipe.h)
    QJsonObject results;  // analysis name -> fitted result
    std::vector<ProjectCurves> curves;
    std::vector<ProjectInference> inference;
    std::vector<ProjectSpec> specs;

    const ProjectTable* table(const std::string& name) const;
    // The runs of every table, in table order, as one table with every table's notes (and, for
    // a project of one table, its column mapping and series columns).
    RunTable mergedRuns() const;
};

// Limits the reader enforces before and while inflating (zip bombs, hostile archives).
struct ProjectLimits {
    // A study of millions of checkpoints is a run table of a gigabyte or more as CSV.
    std::int64_t maxFileBytes = 1ll << 30;       // the .scalex file itself
    std::int64_t maxEntryBytes = 2ll << 30;      // one inflated entry (as RunTableIo's kDefaultMaxBytes)
    std::int64_t maxTotalBytes = 4ll << 30;      // all inflated entries together
    std::int64_t maxEntries = 4096;
    double maxRatio = 200.0;                      // inflated / compressed, for entries above 1 MiB
};

// Serialises `project` to the bytes of a .scalex file. Deterministic: the same project gives
// the same bytes (fixed entry order and timestamps). Fails only for invalid table names.
Expected<QByteArray> writeProject(const Project& project);
// Writes atomically (QSaveFile: temporary file beside `path`, renamed on success).
std::optional<LoadError> saveProject(const Project& project, const QString& path);

// Reads a project from the bytes of a .scalex file; `name` stands for the file in errors.
Expected<Project> readProject(const QByteArray& bytes, const std::string& name, const ProjectLimits& limits = {});
Expected<Project> loadProject(const QString& path, const ProjectLimits& limits = {});

// Why a zip entry name is refused ("../", absolute, backslash, drive letter, empty part), or empty.
std::optional<std::string> unsafeEntryName(const QString& name);
bool validTableName(const std::string& name);

// The built-in example project embedded by resources/scalex.qrc (resources/example/example.scalex).
inline const char* const kExampleProjectResource = ":/scalex/example/example.scalex";
std::optional<Project> loadExampleProject(QString* error);
// The real example study shipped with its notice (datasets/gemstones): the Gemstones checkpoints,
// a run table per validation set, read as published.
inline const char* const kGemstonesResourceDir = ":/scalex/datasets/gemstones/";
std::optional<Project> loadGemstonesExample(QString* error);

}  // namespace scalex::data
