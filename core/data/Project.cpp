#include <QFileInfo>
#include "core/data/Project.h"

#include <algorithm>

#include "core/data/SpecJson.h"

#include <QBuffer>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>
#include <QSaveFile>
#include <map>
#include <set>

#include <quazip/quazip.h>
#include <quazip/quazipfile.h>
#include <quazip/quazipfileinfo.h>
#include <quazip/quazipnewinfo.h>

#include "core/data/RunTableColumns.h"
#include "core/data/RunTableIo.h"
#include "core/data/TrackerJson.h"

#include <zlib.h>

namespace scalex::data {

namespace {

const QString kManifest = QStringLiteral("manifest.json");
const QString kSettings = QStringLiteral("settings.json");
const QString kRecipes = QStringLiteral("recipes.json");
const QString kResults = QStringLiteral("results.json");

// Run tables are written in columns (RunTableColumns.h); projects before version 4 hold them as CSV.
QString tableFile(const std::string& name) { return QStringLiteral("runs/%1.columns").arg(QString::fromStdString(name)); }
QString csvTableFile(const std::string& name) { return QStringLiteral("runs/%1.csv").arg(QString::fromStdString(name)); }
QString specFile(const std::string& name) { return QStringLiteral("specs/%1.json").arg(QString::fromStdString(name)); }
QString curvesFile(const std::string& name) { return QStringLiteral("curves/%1.csv").arg(QString::fromStdString(name)); }
QString inferenceFile(const std::string& name) { return QStringLiteral("inference/%1.csv").arg(QString::fromStdString(name)); }
QString dfDictFile(const std::string& name, std::size_t k) {
    return QStringLiteral("inference/%1/df_dict_%2.csv").arg(QString::fromStdString(name)).arg(k + 1);
}

QByteArray jsonBytes(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Indented); }

LoadError whole(const std::string& file, std::string message) { return LoadError{file, 0, {}, std::move(message)}; }

}  // namespace

RunTable Project::mergedRuns() const {
    RunTable all;
    all.source = title;
    std::size_t total = 0;
    for (const auto& t : tables) total += t.table.runs.size();
    all.runs.reserve(total);
    for (const auto& t : tables) {
        // Compact checkpoints are shared, not copied: only their runs' place moves.
        for (const auto& b : t.table.compactCheckpoints)
            all.compactCheckpoints.push_back({b.rows, b.runOffset + all.runs.size()});
        all.runs.insert(all.runs.end(), t.table.runs.begin(), t.table.runs.end());
        all.notes.insert(all.notes.end(), t.table.notes.begin(), t.table.notes.end());
    }
    // One table's series' columns are the study's; several tables each have their own. The columns
    // the reader took for each field are every table's (a column once).
    for (const auto& t : tables)
        for (const auto& c : t.table.mapping)
            if (std::none_of(all.mapping.begin(), all.mapping.end(),
                             [&](const ColumnChoice& m) { return m.field == c.field && m.column == c.column; }))
                all.mapping.push_back(c);
    if (tables.size() == 1) {
        all.seriesBy = tables.front().table.seriesBy;
        all.seriesConsidered = tables.front().table.seriesConsidered;
    }
    return all;
}

const ProjectTable* Project::table(const std::string& name) const {
    for (const auto& t : tables)
        if (t.name == name) return &t;
    return nullptr;
}

bool validTableName(const std::string& name) {
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"));
    return re.match(QString::fromStdString(name)).hasMatch();
}

std::optional<std::string> unsafeEntryName(const QString& name) {
    if (name.isEmpty()) return "empty name";
    if (name.contains('\\')) return "backslash in the name";
    if (name.startsWith('/')) return "absolute path";
    if (name.size() >= 2 && name[1] == ':' && name[0].isLetter()) return "absolute path (drive letter)";
    for (const QChar c : name)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f) return "control character in the name";
    for (const QString& part : name.split('/'))
        if (part == QLatin1String("..")) return "leaves its folder (\"..\")";
    return std::nullopt;
}

Expected<ProjectCurves> makeProjectCurves(std::string name, QByteArray csv, const std::string& file) {
    auto curves = parseLossCurves(csv, file);
    if (!curves) return curves.error();
    return ProjectCurves{std::move(name), file, std::move(csv), std::move(*curves)};
}

Expected<ProjectInference> makeProjectInference(std::string name, QByteArray csv, std::vector<QByteArray> dfDicts,
                                                const std::string& file) {
    auto data = parseInferenceMeasurements(csv, file);
    if (!data) return data.error();
    for (std::size_t k = 0; k < dfDicts.size(); ++k)
        if (auto e = attachDfDictArchitectures(*data, dfDicts[k], file + " (df_dict " + std::to_string(k + 1) + ")")) return *e;
    return ProjectInference{std::move(name), file, std::move(csv), std::move(dfDicts), std::move(*data)};
}

namespace {
Expected<QByteArray> readWhole(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return whole(path.toStdString(), "cannot open: " + file.errorString().toStdString());
    if (file.size() > kDefaultMaxBytes)
        return whole(path.toStdString(), "the file is larger than the " + std::to_string(kDefaultMaxBytes >> 20) + " MiB limit");
    return file.readAll();
}
}  // namespace

Expected<ProjectCurves> loadProjectCurves(const QString& path, std::string name) {
    auto bytes = readWhole(path);
    if (!bytes) return bytes.error();
    if (path.toLower().endsWith(QLatin1String(".json")) && looksLikeTrackerJson(*bytes)) {
        // A tracker export: its history becomes the curve, kept as a curves CSV (TrackerJson.h).
        auto run = parseTrackerRun(*bytes, path.toStdString());
        if (!run) return run.error();
        auto set = makeProjectCurves(std::move(name), trackerCurvesCsv(*run), path.toStdString());
        if (set)
            if (auto described = trackerScheduleDescription(*run)) set->schedules[run->name] = *described;
        return set;
    }
    return makeProjectCurves(std::move(name), std::move(*bytes), path.toStdString());
}

Expected<ProjectInference> loadProjectInference(const QString& path, std::string name) {
    auto bytes = readWhole(path);
    if (!bytes) return bytes.error();
    auto set = makeProjectInference(std::move(name), std::move(*bytes), {}, path.toStdString());
    if (!set) return set.error();
    for (const QString& f : siblingDfDictFiles(path)) {
        auto dfDict = readWhole(f);
        if (!dfDict) return dfDict.error();
        if (auto e = attachDfDictArchitectures(set->data, *dfDict, f.toStdString())) return *e;
        set->dfDicts.push_back(std::move(*dfDict));
    }
    return set;
}

// ---------------------------------------------------------------------------------------------
// Writing

Expected<QByteArray> writeProject(const Project& project) {
    std::set<std::string> names;
    for (const auto& t : project.tables) {
        if (!validTableName(t.name))
            return whole("project", "run table name '" + t.name + "' is not usable as a file name (letters, digits, '.', '_', '-')");
        if (!names.insert(t.name).second) return whole("project", "two run tables are named '" + t.name + "'");
    }
    names.clear();
    for (const auto& c : project.curves) {
        if (!validTableName(c.name))
            return whole("project", "loss-curve set name '" + c.name + "' is not usable as a file name (letters, digits, '.', '_', '-')");
        if (!names.insert(c.name).second) return whole("project", "two loss-curve sets are named '" + c.name + "'");
    }
    names.clear();
    for (const auto& m : project.inference) {
        if (!validTableName(m.name))
            return whole("project", "inference set name '" + m.name + "' is not usable as a file name (letters, digits, '.', '_', '-')");
        if (!names.insert(m.name).second) return whole("project", "two inference sets are named '" + m.name + "'");
    }
    names.clear();
    for (const auto& m : project.specs) {
        if (!validTableName(m.name))
            return whole("project", "model spec name '" + m.name + "' is not usable as a file name (letters, digits, '.', '_', '-')");
        if (!names.insert(m.name).second) return whole("project", "two model specs are named '" + m.name + "'");
    }

    QJsonArray tables;
    for (const auto& t : project.tables)
        tables.append(QJsonObject{{"name", QString::fromStdString(t.name)},
                                  {"file", tableFile(t.name)},
                                  {"rows", static_cast<qint64>(t.table.rowCount())},
                                  {"source", QString::fromStdString(t.table.source)}});
    // The lowest version that holds what the project has: run tables in columns need 4 (older Scalex
    // refuses the project rather than finding no table), specs 3, curves or measurements 2.
    const bool sets = !project.curves.empty() || !project.inference.empty();
    QJsonObject manifest{{"format", QLatin1String(kProjectFormatName)},
                         {"format_version", !project.tables.empty() ? 4 : !project.specs.empty() ? 3 : sets ? 2 : 1},
                         {"title", QString::fromStdString(project.title)},
                         {"tables", tables},
                         {"settings", kSettings},
                         {"recipes", kRecipes},
                         {"results", kResults}};
    if (project.generated) manifest["generated"] = *project.generated;
    if (!project.curves.empty()) {
        QJsonArray curves;
        for (const auto& c : project.curves) {
            QJsonObject set{{"name", QString::fromStdString(c.name)},
                            {"file", curvesFile(c.name)},
                            {"curves", static_cast<qint64>(c.curves.curves.size())},
                            {"points", static_cast<qint64>(c.curves.pointCount())},
                            {"source", QString::fromStdString(c.source)}};
            if (!c.schedules.empty()) {
                QJsonObject schedules;
                for (const auto& [run, description] : c.schedules) schedules.insert(QString::fromStdString(run), QString::fromStdString(description));
                set.insert("schedules", schedules);
            }
            curves.append(set);
        }
        manifest["curves"] = curves;
    }
    if (!project.inference.empty()) {
        QJsonArray inference;
        for (const auto& m : project.inference) {
            QJsonArray dfDicts;
            for (std::size_t k = 0; k < m.dfDicts.size(); ++k) dfDicts.append(dfDictFile(m.name, k));
            inference.append(QJsonObject{{"name", QString::fromStdString(m.name)},
                                         {"file", inferenceFile(m.name)},
                                         {"df_dicts", dfDicts},
                                         {"measurements", static_cast<qint64>(m.data.points.size())},
                                         {"models", static_cast<qint64>(m.data.models.size())},
                                         {"source", QString::fromStdString(m.source)}});
        }
        manifest["inference"] = inference;
    }
    if (!project.specs.empty()) {
        QJsonArray specs;
        for (const auto& m : project.specs)
            specs.append(QJsonObject{{"name", QString::fromStdString(m.name)},
                                     {"file", specFile(m.name)},
                                     {"source", QString::fromStdString(m.source)}});
        manifest["specs"] = specs;
    }

    std::vector<std::pair<QString, QByteArray>> entries;
    entries.emplace_back(kManifest, jsonBytes(manifest));
    for (const auto& t : project.tables) entries.emplace_back(tableFile(t.name), encodeRunTableColumns(t.table));
    for (const auto& c : project.curves) entries.emplace_back(curvesFile(c.name), c.csv);
    for (const auto& m : project.inference) {
        entries.emplace_back(inferenceFile(m.name), m.csv);
        for (std::size_t k = 0; k < m.dfDicts.size(); ++k) entries.emplace_back(dfDictFile(m.name, k), m.dfDicts[k]);
    }
    for (const auto& m : project.specs) entries.emplace_back(specFile(m.name), specJsonBytes(m.spec));
    entries.emplace_back(kSettings, jsonBytes(project.settings.toJson()));
    entries.emplace_back(kRecipes, jsonBytes(recipesToJson(project.recipes)));
    entries.emplace_back(kResults, jsonBytes(project.results));

    QByteArray bytes;
    QBuffer buffer(&bytes);
    QuaZip zip(&buffer);
    zip.setUtf8Enabled(true);
    if (!zip.open(QuaZip::mdCreate)) return whole("project", "cannot create the zip archive");
    // A fixed timestamp keeps the bytes of a project independent of when it was saved.
    const QDateTime stamp(QDate(2025, 1, 1), QTime(0, 0));
    for (const auto& [name, data] : entries) {
        QuaZipNewInfo info(name);
        info.dateTime = stamp;
        info.setPermissions(QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
        QuaZipFile out(&zip);
        // Columns of numbers gain little from harder compression and a million rows' worth take seconds.
        const int level = name.endsWith(QLatin1String(".columns")) ? Z_BEST_SPEED : Z_DEFAULT_COMPRESSION;
        if (!out.open(QIODevice::WriteOnly, info, nullptr, 0, Z_DEFLATED, level) || out.write(data) != data.size()) {
            return whole("project", "cannot write zip entry " + name.toStdString());
        }
        out.close();
        if (out.getZipError() != 0) return whole("project", "cannot write zip entry " + name.toStdString());
    }
    zip.close();
    if (zip.getZipError() != 0) return whole("project", "cannot finish the zip archive");
    return bytes;
}

std::optional<LoadError> saveProject(const Project& project, const QString& path) {
    auto bytes = writeProject(project);
    if (!bytes) {
        LoadError e = bytes.error();
        e.file = path.toStdString();
        return e;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return whole(path.toStdString(), "cannot write: " + file.errorString().toStdString());
    if (file.write(*bytes) != bytes->size()) {
        file.cancelWriting();
        return whole(path.toStdString(), "cannot write: " + file.errorString().toStdString());
    }
    if (!file.commit()) return whole(path.toStdString(), "cannot write: " + file.errorString().toStdString());
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Reading

namespace {

struct Entry {
    QString name;
    std::int64_t compressed = 0;
    std::int64_t uncompressed = 0;
};

class ProjectReader {
public:
    ProjectReader(const QByteArray& bytes, std::string name, const ProjectLimits& limits)
        : bytes_(bytes), buffer_(&bytes_), zip_(&buffer_), name_(std::move(name)), limits_(limits) {}

    Expected<Project> read() {
        if (bytes_.size() > limits_.maxFileBytes)
            return whole(name_, "file of " + std::to_string(bytes_.size()) + " bytes is above the limit of " +
                                    std::to_string(limits_.maxFileBytes) + " bytes for a project");
        if (!zip_.open(QuaZip::mdUnzip)) {
            if (bytes_.startsWith("PK"))
                return whole(name_, "damaged zip archive (truncated or corrupt: its directory cannot be read)");
            return whole(name_, "not a Scalex project (not a zip archive)");
        }
        if (auto e = listEntries()) return *e;

        if (!entries_.count(kManifest)) return whole(name_, "not a Scalex project (no manifest.json in the archive)");
        auto manifestBytes = inflate(kManifest);
        if (!manifestBytes) return manifestBytes.error();
        auto manifest = parseObject(*manifestBytes, kManifest);
        if (!manifest) return manifest.error();
        return readManifest(*manifest);
    }

private:
    std::string where(const QString& entry) const { return name_ + "/" + entry.toStdString(); }

    std::optional<LoadError> listEntries() {
        std::int64_t total = 0, count = 0;
        for (bool more = zip_.goToFirstFile(); more; more = zip_.goToNextFile()) {
            if (++count > limits_.maxEntries)
                return whole(name_, "more than " + std::to_string(limits_.maxEntries) + " zip entries");
            QuaZipFileInfo64 info;
            if (!zip_.getCurrentFileInfo(&info)) return whole(name_, "damaged zip archive (unreadable entry header)");
            if (auto why = unsafeEntryName(info.name))
                return whole(name_, "refused zip entry '" + info.name.toStdString() + "': " + *why);
            if (entries_.count(info.name)) return whole(name_, "duplicate zip entry '" + info.name.toStdString() + "'");
            const auto size = static_cast<std::int64_t>(info.uncompressedSize);
            const auto packed = static_cast<std::int64_t>(info.compressedSize);
            // Checked from the directory before anything is inflated.
            if (size > limits_.maxEntryBytes)
                return whole(name_, "refused zip entry '" + info.name.toStdString() + "': it inflates to " + std::to_string(size) +
                                        " bytes, above the limit of " + std::to_string(limits_.maxEntryBytes));
            if (size > (1 << 20) && static_cast<double>(size) > limits_.maxRatio * static_cast<double>(std::max<std::int64_t>(packed, 1)))
                return whole(name_, "refused zip entry '" + info.name.toStdString() + "': compression ratio " +
                                        std::to_string(size / std::max<std::int64_t>(packed, 1)) + ":1 is above the limit of " +
                                        std::to_string(static_cast<std::int64_t>(limits_.maxRatio)) + ":1 (zip bomb?)");
            total += size;
            if (total > limits_.maxTotalBytes)
                return whole(name_, "refused archive: its entries inflate to more than " + std::to_string(limits_.maxTotalBytes) + " bytes");
            entries_[info.name] = Entry{info.name, packed, size};
        }
        if (zip_.getZipError() != 0) return whole(name_, "damaged zip archive (its directory cannot be read)");
        return std::nullopt;
    }

    Expected<QByteArray> inflate(const QString& entry) {
        const Entry& e = entries_.at(entry);
        if (!zip_.setCurrentFile(entry)) return whole(where(entry), "damaged zip entry (cannot be found)");
        QuaZipFile file(&zip_);
        if (!file.open(QIODevice::ReadOnly)) return whole(where(entry), "damaged zip entry (cannot be opened)");
        QByteArray out;
        out.reserve(static_cast<qsizetype>(e.uncompressed));
        char chunk[1 << 16];
        for (;;) {
            const qint64 n = file.read(chunk, sizeof chunk);
            if (n < 0) return whole(where(entry), "damaged zip entry (cannot be inflated)");
            if (n == 0) break;
            // Checked while inflating too: the directory's sizes may lie.
            if (out.size() + n > e.uncompressed || out.size() + n > limits_.maxEntryBytes)
                return whole(where(entry), "refused: inflates beyond the size its header declares (" + std::to_string(e.uncompressed) + " bytes)");
            out.append(chunk, static_cast<qsizetype>(n));
        }
        file.close();
        if (file.getZipError() != 0 || out.size() != e.uncompressed)
            return whole(where(entry), "damaged zip entry (CRC or size mismatch)");
        return out;
    }

    Expected<QJsonObject> parseObject(const QByteArray& bytes, const QString& entry) {
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
        if (err.error != QJsonParseError::NoError)
            return LoadError{where(entry), lineOf(bytes, err.offset), {},
                             "not valid JSON: " + err.errorString().toStdString() + " at offset " + std::to_string(err.offset)};
        if (!doc.isObject()) return whole(where(entry), "expected a JSON object");
        return doc.object();
    }

    static int lineOf(const QByteArray& bytes, int offset) {
        return 1 + static_cast<int>(bytes.left(std::max(0, offset)).count('\n'));
    }

    Expected<QJsonObject> optionalObject(const QString& entry) {
        if (!entries_.count(entry)) return QJsonObject{};
        auto bytes = inflate(entry);
        if (!bytes) return bytes.error();
        return parseObject(*bytes, entry);
    }

    Expected<Project> readManifest(const QJsonObject& m) {
        const std::string file = where(kManifest);
        if (m.value("format").toString() != QLatin1String(kProjectFormatName))
            return LoadError{file, 0, "format", "not a Scalex project manifest (expected \"format\": \"scalex-project\")", true};
        const QJsonValue v = m.value("format_version");
        if (!v.isDouble() || v.toDouble() != std::floor(v.toDouble()) || v.toDouble() < 1)
            return LoadError{file, 0, "format_version", "expected a whole number of at least 1", true};
        const auto version = static_cast<std::int64_t>(v.toDouble());
        if (version > kProjectFormatVersion)
            return LoadError{file, 0, "format_version",
                             "format version " + std::to_string(version) + " is newer than this Scalex reads (" +
                                 std::to_string(kProjectFormatVersion) + "); open it with a newer Scalex", true};

        Project p;
        if (!m.value("title").isUndefined() && !m.value("title").isString())
            return LoadError{file, 0, "title", "expected a string", true};
        p.title = m.value("title").toString().toStdString();
        if (m.contains("generated")) {
            if (!m.value("generated").isObject()) return LoadError{file, 0, "generated", "expected a JSON object", true};
            p.generated = m.value("generated").toObject();
        }
        if (!m.value("tables").isArray()) return LoadError{file, 0, "tables", "expected an array of run tables", true};
        std::set<std::string> names;
        const QJsonArray tables = m.value("tables").toArray();
        for (int i = 0; i < tables.size(); ++i) {
            const std::string field = "tables[" + std::to_string(i) + "]";
            const QJsonObject t = tables[i].toObject();
            const std::string name = t.value("name").toString().toStdString();
            if (!tables[i].isObject() || !validTableName(name))
                return LoadError{file, 0, field + ".name", "expected a run table name of letters, digits, '.', '_', '-'", true};
            if (!names.insert(name).second) return LoadError{file, 0, field + ".name", "run table '" + name + "' is listed twice", true};
            const QString entry = t.value("file").toString();
            const bool csv = entry == csvTableFile(name);
            if (!csv && entry != tableFile(name))
                return LoadError{file, 0, field + ".file", "expected \"" + tableFile(name).toStdString() + "\"", true};
            auto bytes = listedEntry(entry);
            if (!bytes) return bytes.error();
            LoadOptions csvOptions;
            csvOptions.format = RunTableFormat::Csv;
            auto runs = csv ? parseRunTable(*bytes, where(entry), csvOptions) : decodeRunTableColumns(*bytes, where(entry));
            bytes->clear();
            if (!runs) return runs.error();
            const QJsonValue rows = t.value("rows");
            if (rows.isDouble() && static_cast<std::size_t>(rows.toDouble()) != runs->rowCount())
                return whole(where(entry), "holds " + std::to_string(runs->rowCount()) + " runs, the manifest says " +
                                               std::to_string(static_cast<std::int64_t>(rows.toDouble())) + " (damaged?)");
            runs->source = t.value("source").toString().toStdString();
            p.tables.push_back({name, std::move(*runs)});
        }

        if (auto e = readCurves(m, p)) return *e;
        if (auto e = readInference(m, p)) return *e;
        if (auto e = readSpecs(m, p)) return *e;

        auto settings = optionalObject(kSettings);
        if (!settings) return settings.error();
        auto parsedSettings = ProjectSettings::fromJson(*settings, where(kSettings));
        if (!parsedSettings) return parsedSettings.error();
        p.settings = std::move(*parsedSettings);
        auto recipes = optionalObject(kRecipes);
        if (!recipes) return recipes.error();
        auto parsedRecipes = recipesFromJson(*recipes, where(kRecipes));
        if (!parsedRecipes) return parsedRecipes.error();
        p.recipes = std::move(*parsedRecipes);
        auto results = optionalObject(kResults);
        if (!results) return results.error();
        p.results = *results;
        return p;
    }

    // An optional array of sets in the manifest: each element an object with a usable, unique name
    // and the file its name gives, present in the archive. Calls `read(i, object, name, entry)`.
    template <class Read>
    std::optional<LoadError> readSets(const QJsonObject& m, const char* key, const char* what,
                                      QString (*fileOf)(const std::string&), Read read) {
        const std::string file = where(kManifest);
        if (!m.contains(QLatin1String(key))) return std::nullopt;
        if (!m.value(QLatin1String(key)).isArray()) return LoadError{file, 0, key, std::string("expected an array of ") + what + " sets", true};
        std::set<std::string> names;
        const QJsonArray sets = m.value(QLatin1String(key)).toArray();
        for (int i = 0; i < sets.size(); ++i) {
            const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
            const QJsonObject o = sets[i].toObject();
            const std::string name = o.value("name").toString().toStdString();
            if (!sets[i].isObject() || !validTableName(name))
                return LoadError{file, 0, field + ".name", std::string("expected a ") + what + " set name of letters, digits, '.', '_', '-'", true};
            if (!names.insert(name).second) return LoadError{file, 0, field + ".name", std::string(what) + " set '" + name + "' is listed twice", true};
            const QString entry = fileOf(name);
            if (o.value("file").toString() != entry) return LoadError{file, 0, field + ".file", "expected \"" + entry.toStdString() + "\"", true};
            if (auto e = read(field, o, name, entry)) return e;
        }
        return std::nullopt;
    }

    Expected<QByteArray> listedEntry(const QString& entry) {
        if (!entries_.count(entry))
            return whole(name_, "the manifest lists " + entry.toStdString() + ", which is missing from the archive");
        return inflate(entry);
    }

    // A count the manifest gives for a set must be what its file holds.
    std::optional<LoadError> sameCount(const QJsonObject& o, const char* key, std::size_t found, const QString& entry) {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isDouble() && static_cast<std::size_t>(v.toDouble()) != found)
            return whole(where(entry), "holds " + std::to_string(found) + " " + key + ", the manifest says " +
                                           std::to_string(static_cast<std::int64_t>(v.toDouble())) + " (damaged?)");
        return std::nullopt;
    }

    // A set's described schedules: an object of run id -> description, each run one of the set's.
    std::optional<LoadError> readSchedules(const std::string& field, const QJsonObject& o, ProjectCurves& set) {
        const QJsonValue listed = o.value("schedules");
        if (listed.isUndefined()) return std::nullopt;
        const std::string file = where(kManifest);
        if (!listed.isObject()) return LoadError{file, 0, field + ".schedules", "expected an object of run id: schedule description"};
        const QJsonObject schedules = listed.toObject();
        for (auto it = schedules.begin(); it != schedules.end(); ++it) {
            const std::string run = it.key().toStdString(), key = field + ".schedules." + run;
            if (!it.value().isString() || it.value().toString().isEmpty())
                return LoadError{file, 0, key, "expected a schedule description (e.g. \"wsd:peak=1e-3,steps=50000,cooldown=0.2\")"};
            const bool known = std::any_of(set.curves.curves.begin(), set.curves.curves.end(), [&](const LossCurve& c) { return c.runId == run; });
            if (!known) return LoadError{file, 0, key, "the set has no curve of run '" + run + "'"};
            set.schedules[run] = it.value().toString().toStdString();
        }
        return std::nullopt;
    }

    std::optional<LoadError> readCurves(const QJsonObject& m, Project& p) {
        return readSets(m, "curves", "loss-curve", &curvesFile,
                        [&](const std::string& field, const QJsonObject& o, const std::string& name, const QString& entry) -> std::optional<LoadError> {
                            auto bytes = listedEntry(entry);
                            if (!bytes) return bytes.error();
                            auto set = makeProjectCurves(name, std::move(*bytes), where(entry));
                            if (!set) return set.error();
                            if (auto e = sameCount(o, "curves", set->curves.curves.size(), entry)) return e;
                            if (auto e = sameCount(o, "points", set->curves.pointCount(), entry)) return e;
                            if (auto e = readSchedules(field, o, *set)) return e;
                            set->source = o.value("source").toString().toStdString();
                            set->curves.source = set->source;
                            p.curves.push_back(std::move(*set));
                            return std::nullopt;
                        });
    }

    std::optional<LoadError> readInference(const QJsonObject& m, Project& p) {
        return readSets(m, "inference", "inference", &inferenceFile,
                        [&](const std::string& field, const QJsonObject& o, const std::string& name, const QString& entry) -> std::optional<LoadError> {
                            const QJsonValue listed = o.value("df_dicts");
                            if (!listed.isUndefined() && !listed.isArray())
                                return LoadError{where(kManifest), 0, field + ".df_dicts", "expected an array of df_dict files", true};
                            const QJsonArray files = listed.toArray();
                            auto bytes = listedEntry(entry);
                            if (!bytes) return bytes.error();
                            auto data = parseInferenceMeasurements(*bytes, where(entry));
                            if (!data) return data.error();
                            ProjectInference set{name, o.value("source").toString().toStdString(), std::move(*bytes), {}, {}};
                            for (int k = 0; k < files.size(); ++k) {
                                const QString dfEntry = dfDictFile(name, static_cast<std::size_t>(k));
                                if (files[k].toString() != dfEntry)
                                    return LoadError{where(kManifest), 0, field + ".df_dicts[" + std::to_string(k) + "]",
                                                     "expected \"" + dfEntry.toStdString() + "\"", true};
                                auto dfDict = listedEntry(dfEntry);
                                if (!dfDict) return dfDict.error();
                                if (auto e = attachDfDictArchitectures(*data, *dfDict, where(dfEntry))) return e;
                                set.dfDicts.push_back(std::move(*dfDict));
                            }
                            if (auto e = sameCount(o, "measurements", data->points.size(), entry)) return e;
                            if (auto e = sameCount(o, "models", data->models.size(), entry)) return e;
                            data->source = set.source;
                            set.data = std::move(*data);
                            p.inference.push_back(std::move(set));
                            return std::nullopt;
                        });
    }

    std::optional<LoadError> readSpecs(const QJsonObject& m, Project& p) {
        return readSets(m, "specs", "model spec", &specFile,
                        [&](const std::string&, const QJsonObject& o, const std::string& name, const QString& entry) -> std::optional<LoadError> {
                            auto bytes = listedEntry(entry);
                            if (!bytes) return bytes.error();
                            auto spec = parseSpecJson(*bytes, where(entry));
                            if (!spec) return spec.error();
                            p.specs.push_back({name, o.value("source").toString().toStdString(), std::move(*spec)});
                            return std::nullopt;
                        });
    }

    QByteArray bytes_;
    QBuffer buffer_;
    QuaZip zip_;
    std::string name_;
    ProjectLimits limits_;
    std::map<QString, Entry> entries_;
};

}  // namespace

Expected<Project> readProject(const QByteArray& bytes, const std::string& name, const ProjectLimits& limits) {
    ProjectReader reader(bytes, name, limits);
    return reader.read();
}

Expected<Project> loadProject(const QString& path, const ProjectLimits& limits) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return whole(path.toStdString(), "cannot open: " + file.errorString().toStdString());
    if (file.size() > limits.maxFileBytes)
        return whole(path.toStdString(), "file of " + std::to_string(file.size()) + " bytes is above the limit of " +
                                             std::to_string(limits.maxFileBytes) + " bytes for a project");
    return readProject(file.readAll(), path.toStdString(), limits);
}

std::optional<Project> loadExampleProject(QString* error) {
    auto p = loadProject(QString::fromLatin1(kExampleProjectResource));
    if (!p) {
        if (error) *error = QString::fromStdString(p.error().toString());
        return std::nullopt;
    }
    return std::move(*p);
}

std::optional<Project> loadGemstonesExample(QString* error) {
    Project p;
    p.title = "Gemstones (McLeish et al. 2025, MIT licence)";
    for (const char* set : {"dclm", "edu"}) {
        const QString path = QString::fromLatin1(kGemstonesResourceDir) + QStringLiteral("fineweb_%1_losses_combined.jsonl").arg(QLatin1String(set));
        auto table = loadRunTable(path.toStdString());
        if (!table) {
            if (error) *error = QString::fromStdString(table.error().toString());
            return std::nullopt;
        }
        table->source = QFileInfo(path).fileName().toStdString();
        p.tables.push_back({"fineweb_" + std::string(set), std::move(*table)});
    }
    return p;
}

}  // namespace scalex::data
