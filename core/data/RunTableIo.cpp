#include "core/data/RunTableIo.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <zlib.h>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

#include "core/data/CsvReader.h"
#include "core/data/RunDerivation.h"
#include "core/data/Series.h"

namespace scalex::data {

using accounting::Family;

namespace {

// ---------------------------------------------------------------------------------------------
// Small text helpers

std::string_view trim(std::string_view s) {
    std::size_t b = 0, e = s.size();
    // The "C" locale's white space, without a library call per character (millions of cells).
    auto space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
    while (b < e && space(s[b])) ++b;
    while (e > b && space(s[e - 1])) --e;
    return s.substr(b, e - b);
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Shortest text that reads back as the same double.
std::string formatNumber(double v) {
    if (std::isnan(v)) return {};
    std::array<char, 32> buf{};
    auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return ec == std::errc() ? std::string(buf.data(), end) : std::string{};
}

bool validUtf8(std::string_view s) {
    std::size_t i = 0;
    const std::size_t n = s.size();
    while (i < n) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) { ++i; continue; }
        int len = 0;
        unsigned cp = 0;
        if ((c & 0xE0) == 0xC0) { len = 1; cp = c & 0x1F; }
        else if ((c & 0xF0) == 0xE0) { len = 2; cp = c & 0x0F; }
        else if ((c & 0xF8) == 0xF0) { len = 3; cp = c & 0x07; }
        else return false;
        if (i + static_cast<std::size_t>(len) >= n) return false;
        for (int k = 1; k <= len; ++k) {
            const auto d = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
            if ((d & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        // Overlong forms, surrogates and values past U+10FFFF are invalid.
        if ((len == 1 && cp < 0x80) || (len == 2 && cp < 0x800) || (len == 3 && cp < 0x10000) || cp > 0x10FFFF ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += static_cast<std::size_t>(len) + 1;
    }
    return true;
}

bool hasHighBytes(std::string_view s) {
    for (char c : s)
        if (static_cast<unsigned char>(c) >= 0x80) return true;
    return false;
}

int lineOfOffset(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

std::string fileStem(const std::string& name) {
    std::string base = QFileInfo(QString::fromStdString(name)).fileName().toStdString();
    for (std::string_view ext : {".gz", ".csv", ".tsv", ".tab", ".txt", ".jsonl", ".ndjson", ".json"})
        if (endsWith(lower(base), ext)) base.resize(base.size() - ext.size());
    return base;
}

// ---------------------------------------------------------------------------------------------
// JSON and JSON Lines -> the same raw table as CSV

std::string jsonCell(const QJsonValue& v, std::string* note) {
    switch (v.type()) {
        case QJsonValue::String: return v.toString().toStdString();
        case QJsonValue::Double: {
            const double d = v.toDouble();
            if (std::abs(d) < 9007199254740992.0 && d == std::floor(d)) return std::to_string(static_cast<long long>(d));
            return formatNumber(d);
        }
        case QJsonValue::Bool: return v.toBool() ? "true" : "false";
        case QJsonValue::Array: *note = "expected a number, string or boolean, got an array"; return {};
        case QJsonValue::Object: *note = "expected a number, string or boolean, got an object"; return {};
        default: return {};
    }
}

void addObjectRow(RawTable& table, const QJsonObject& object, int line) {
    RawRecord rec;
    rec.line = line;
    rec.cells.resize(table.header.size());
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string key = it.key().toStdString();
        std::size_t index = 0;
        while (index < table.header.size() && table.header[index] != key) ++index;
        if (index == table.header.size()) {
            table.header.push_back(key);
            for (auto& r : table.rows) r.cells.emplace_back();
            rec.cells.emplace_back();
        }
        std::string note;
        rec.cells[index] = jsonCell(it.value(), &note);
        if (!note.empty()) rec.notes.emplace_back(static_cast<int>(index), note);
    }
    table.rows.push_back(std::move(rec));
}

const char* jsonTypeName(const QJsonValue& v) {
    switch (v.type()) {
        case QJsonValue::Array: return "an array";
        case QJsonValue::String: return "a string";
        case QJsonValue::Double: return "a number";
        case QJsonValue::Bool: return "a boolean";
        case QJsonValue::Null: return "null";
        default: return "nothing";
    }
}

// Lines where the elements of the runs array (the array at `depth`) start, for messages.
std::vector<int> elementLines(std::string_view text, int depth) {
    std::vector<int> lines;
    int d = 0, line = 1;
    bool inString = false, escaped = false, expectValue = false;
    for (char c : text) {
        if (c == '\n') ++line;
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
        if (expectValue && d == depth && c != ']') {
            lines.push_back(line);
            expectValue = false;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') {
            ++d;
            if (c == '[' && d == depth) expectValue = true;
        } else if (c == '}' || c == ']') {
            --d;
            expectValue = false;
        } else if (c == ',' && d == depth)
            expectValue = true;
    }
    return lines;
}

Expected<RawTable> readJson(std::string_view text, const QByteArray& bytes, const std::string& file, std::int64_t maxRows) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        const auto offset = static_cast<std::size_t>(std::max(0, static_cast<int>(err.offset)));
        const int line = lineOfOffset(text, offset);
        const std::size_t lineStart = text.rfind('\n', offset ? offset - 1 : 0);
        const std::size_t col = lineStart == std::string_view::npos ? offset + 1 : offset - lineStart;
        return LoadError{file, line, "",
                         "invalid JSON at character " + std::to_string(col) + ": " + err.errorString().toStdString()};
    }
    QJsonArray runs;
    int depth = 1;
    if (doc.isArray()) runs = doc.array();
    else if (doc.isObject() && doc.object().value("runs").isArray()) {
        runs = doc.object().value("runs").toArray();
        depth = 2;
    } else
        return LoadError{file, 1, "", "expected an array of run objects, or an object with a \"runs\" array"};
    if (runs.isEmpty()) return LoadError{file, 1, "", "no runs: the runs array is empty"};
    if (runs.size() > maxRows)
        return LoadError{file, 0, "", "more than " + std::to_string(maxRows) + " rows (the run-table row limit)"};
    const std::vector<int> lines = elementLines(text, depth);
    RawTable table;
    table.headerLine = 0;
    for (qsizetype i = 0; i < runs.size(); ++i) {
        const int line = static_cast<std::size_t>(runs.size()) == lines.size() ? lines[static_cast<std::size_t>(i)] : 0;
        if (runs[i].isObject()) addObjectRow(table, runs[i].toObject(), line);
        else {
            RawRecord rec;
            rec.line = line;
            rec.cells.resize(table.header.size());
            rec.notes.emplace_back(-1, "run #" + std::to_string(i + 1) + ": expected a JSON object, got " +
                                           jsonTypeName(runs[i]));
            table.rows.push_back(std::move(rec));
        }
    }
    return table;
}

Expected<RawTable> readJsonLines(std::string_view text, const std::string& file, std::int64_t maxRows) {
    RawTable table;
    table.headerLine = 0;
    std::size_t pos = 0;
    int line = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view raw = trim(text.substr(pos, end - pos));
        ++line;
        pos = end + 1;
        if (raw.empty()) continue;
        if (static_cast<std::int64_t>(table.rows.size()) >= maxRows)
            return LoadError{file, line, "", "more than " + std::to_string(maxRows) + " rows (the run-table row limit)"};
        QJsonParseError err{};
        const QJsonDocument doc =
            QJsonDocument::fromJson(QByteArray(raw.data(), static_cast<qsizetype>(raw.size())), &err);
        if (err.error == QJsonParseError::NoError && doc.isObject()) {
            addObjectRow(table, doc.object(), line);
            continue;
        }
        RawRecord rec;
        rec.line = line;
        rec.cells.resize(table.header.size());
        rec.notes.emplace_back(-1, err.error != QJsonParseError::NoError
                                       ? "not valid JSON (" + err.errorString().toStdString() + " at character " +
                                             std::to_string(err.offset + 1) + ")"
                                       : std::string("expected a JSON object for a run"));
        table.rows.push_back(std::move(rec));
    }
    if (table.rows.empty()) return LoadError{file, 0, "", "the file is empty (expected one JSON object per line)"};
    for (auto& r : table.rows) r.cells.resize(table.header.size());
    return table;
}

// ---------------------------------------------------------------------------------------------
// Raw table -> runs

std::string joinNames(const std::vector<std::string_view>& names) {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + std::string(names[i]);
    return s;
}

Provenance parseProvenance(std::string_view s, bool* ok) {
    const std::string v = lower(trim(s));
    *ok = true;
    if (v == "file") return Provenance::FromFile;
    if (v == "derived") return Provenance::Derived;
    if (v == "6nd_fallback") return Provenance::SixNdFallback;
    if (v == "nominal_budget") return Provenance::NominalBudget;
    if (v == "missing") return Provenance::Missing;
    if (v == "no_column") return Provenance::NoColumn;
    *ok = false;
    return Provenance::Missing;
}

std::string_view provenanceName(Provenance p) {
    switch (p) {
        case Provenance::FromFile: return "file";
        case Provenance::Derived: return "derived";
        case Provenance::SixNdFallback: return "6nd_fallback";
        case Provenance::NominalBudget: return "nominal_budget";
        case Provenance::NoColumn: return "no_column";
        default: return "";
    }
}

std::optional<bool> parseBool(std::string_view s, bool* ok) {
    const std::string v = lower(trim(s));
    *ok = true;
    if (v.empty()) return std::nullopt;
    if (v == "true" || v == "1" || v == "yes" || v == "y" || v == "t") return true;
    if (v == "false" || v == "0" || v == "no" || v == "n" || v == "f") return false;
    *ok = false;
    return std::nullopt;
}

class RowReader {
public:
    RowReader(const std::vector<std::string>& header, const std::array<int, kRunFieldCount>& columns,
              const std::vector<std::string_view>& cells, Run& run)
        : header_(header), columns_(columns), cells_(cells), run_(run) {}

    const std::string_view* cell(RunField f) const {
        const int c = columns_[static_cast<std::size_t>(f)];
        if (c < 0 || static_cast<std::size_t>(c) >= cells_.size()) return nullptr;
        return &cells_[static_cast<std::size_t>(c)];
    }
    std::string label(RunField f) const { return header_[static_cast<std::size_t>(columns_[static_cast<std::size_t>(f)])]; }
    void problem(RunField f, const std::string& what) { run_.problems.push_back(label(f) + ": " + what); }

    std::string text(RunField f) const {
        const std::string_view* c = cell(f);
        return c ? std::string(trim(*c)) : std::string{};
    }

    // A positive number; empty cells are unknown, anything else odd is a problem.
    double number(RunField f) {
        const std::string_view* c = cell(f);
        if (!c) return kUnknown;
        std::string_view s = trim(*c);
        if (s.empty()) return kUnknown;
        if (s.front() == '+') s.remove_prefix(1);
        double v = 0;
        auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec == std::errc::result_out_of_range) {
            problem(f, "'" + std::string(s) + "' is out of the range of a double");
            return kUnknown;
        }
        if (ec != std::errc() || end != s.data() + s.size()) {
            problem(f, "'" + std::string(trim(*c)) + "' is not a number");
            return kUnknown;
        }
        if (std::isnan(v)) {
            problem(f, "value is NaN (expected a number)");
            return kUnknown;
        }
        if (std::isinf(v)) {
            problem(f, "value is infinite (expected a finite number)");
            return kUnknown;
        }
        // A loss at or below zero (a normalised loss) is a value for laws over it; the analyses that
        // take log L leave it out (analysis/RunSelection.h) and the table's notes say how many.
        if (v <= 0 && f != RunField::ValLoss && f != RunField::TrainLoss) problem(f, "must be positive, got " + std::string(s));
        return v;
    }

    std::int64_t count(RunField f) {
        const std::size_t before = run_.problems.size();
        const double v = number(f);
        if (!known(v) || run_.problems.size() != before) return 0;
        if (v != std::floor(v) || v > 9007199254740992.0) {
            problem(f, "expected a whole number, got " + text(f));
            return 0;
        }
        return static_cast<std::int64_t>(v);
    }

private:
    const std::vector<std::string>& header_;
    const std::array<int, kRunFieldCount>& columns_;
    const std::vector<std::string_view>& cells_;
    Run& run_;
};

// Equal in every field but those that change along a run's training (CheckpointRows.h): a row
// that is, is kept as columns beside its template.
bool sameButCurve(const Run& a, const Run& b) {
    auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    return a.runId == b.runId && a.name == b.name && a.dataset == b.dataset && a.status == b.status &&
           a.series == b.series && a.family == b.family && a.experimentSet == b.experimentSet && same(a.context, b.context) &&
           a.dModel == b.dModel && a.nLayers == b.nLayers && a.nHeads == b.nHeads && a.nKvHeads == b.nKvHeads &&
           a.dQk == b.dQk && a.dHv == b.dHv && a.dFf == b.dFf && a.vocab == b.vocab && a.chunk == b.chunk &&
           same(a.params, b.params) && same(a.budget, b.budget) && same(a.batchSize, b.batchSize) &&
           same(a.steps, b.steps) && same(a.learningRate, b.learningRate) && a.sweepLeftOut == b.sweepLeftOut &&
           a.selectedInPaper == b.selectedInPaper && a.paramsSource == b.paramsSource && a.problems.empty() &&
           b.problems.empty() && a.userIncluded == b.userIncluded && a.raw.header == b.raw.header;
}

// The fields CheckpointRows keeps per row (CheckpointValues); every other mapped column is the same
// along a run's training.
bool isCurveField(RunField f) {
    return f == RunField::Step || f == RunField::Tokens || f == RunField::Flops || f == RunField::ValLoss ||
           f == RunField::TrainLoss;
}

// What the header says about every row: the column of each field.
struct TableLayout {
    std::vector<std::string> header;
    int headerLine = 0;
    std::array<int, kRunFieldCount> columns{};
    std::vector<ColumnChoice> report;
    std::shared_ptr<const std::vector<std::string>> shared;
    // The columns of fields that stay the same along a run's training (all mapped ones but the curve's).
    std::vector<int> fixedColumns;
    // No column gives N (D) and none derives it: unknown for every row (Provenance::NoColumn), and
    // why, for the table's notes.
    bool noN = false, noD = false;
    std::vector<std::string> notes;
    // The factors that turn the compute and budget columns into FLOPs (the unit their names give).
    double flopsFactor = 1, budgetFactor = 1;
};

Expected<TableLayout> layoutFor(std::vector<std::string> header, int headerLine, const std::string& file,
                                const LoadOptions& options) {
    for (auto& h : header)
        if (hasHighBytes(h) && !validUtf8(h)) h = QString::fromUtf8(h.data(), static_cast<qsizetype>(h.size())).toStdString();
    // Columns: detected spellings and patterns, then the user's mapping on top.
    std::vector<ColumnChoice> report;
    ColumnMapping mapping = ColumnMapping::detect(header, &report);
    if (options.mapping)
        for (const auto& [field, column] : options.mapping->entries()) {
            mapping.set(field, column);
            const std::string key(fieldKey(field));
            std::erase_if(report, [&](const ColumnChoice& c) { return c.field == key; });
            report.push_back({key, column, "mapping", {}});
        }
    std::array<int, kRunFieldCount> columns;
    columns.fill(-1);
    for (const auto& [field, column] : mapping.entries()) {
        std::vector<int> exact, similar;
        const std::string norm = normalizeColumnName(column);
        for (std::size_t i = 0; i < header.size(); ++i) {
            if (header[i] == column) exact.push_back(static_cast<int>(i));
            if (normalizeColumnName(header[i]) == norm) similar.push_back(static_cast<int>(i));
        }
        const std::vector<int>& hits = exact.empty() ? similar : exact;
        if (hits.empty()) {
            std::string names;
            for (std::size_t i = 0; i < header.size() && i < 40; ++i) names += (i ? ", " : "") + header[i];
            return LoadError{file, headerLine, column,
                             "the column mapping names this column for field '" + std::string(fieldKey(field)) +
                                 "', but the header has no such column (columns: " + names + ")"};
        }
        if (hits.size() > 1)
            return LoadError{file, headerLine, column,
                             "the header has this column more than once (columns " + std::to_string(hits[0] + 1) +
                                 " and " + std::to_string(hits[1] + 1) + "): which one holds " +
                                 std::string(fieldKey(field)) + " is ambiguous"};
        columns[static_cast<std::size_t>(field)] = hits.front();
    }
    auto has = [&](RunField f) { return columns[static_cast<std::size_t>(f)] >= 0; };
    // A few of a field's spellings, for messages (check's report lists every choice).
    auto spellings = [](RunField f) {
        const auto& all = fieldSpellings(f);
        std::vector<std::string_view> some(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(all.size(), 5)));
        return joinNames(some) + (all.size() > 5 ? ", ..." : "");
    };
    const std::string delimiterHint =
        header.size() == 1 && headerLine > 0
            ? " (the header reads as a single column '" + header[0].substr(0, 60) +
                  "': is the file comma-, tab- or semicolon-separated?)"
            : "";
    auto missing = [&](RunField f, const std::string& what) {
        return LoadError{file, headerLine, std::string(fieldKey(f)), "no column for " + what + delimiterHint};
    };
    // Two of N, D and C give the third (C = 6ND); N may also come from the architecture, D from
    // steps x batch x context, C from a nominal budget.
    // ... or from the model spec each run names (RunSpecs.h), bound when the study is put together.
    const bool specColumn = std::any_of(header.begin(), header.end(), [](const std::string& h) { return normalizeColumnName(h) == kSpecColumn; });
    const bool haveN = has(RunField::Params) || specColumn ||
                       (has(RunField::Family) && has(RunField::DModel) && has(RunField::NLayers) && has(RunField::NHeads));
    const bool haveD = has(RunField::Tokens) || (has(RunField::Steps) && has(RunField::BatchSize) && has(RunField::Context));
    const bool haveC = has(RunField::Flops) || has(RunField::Budget);
    // A table without N or D still loads when it has a loss: its rows serve laws over the file's own
    // columns; the analyses that need N and D say the study has none. Planned runs (no loss) need both.
    const std::string nMissing = "N, the parameter count (expected a column such as " + spellings(RunField::Params) +
                                 "; the architecture columns model_family, d_model, n_layers, n_heads; "
                                 "a spec column naming each run's model spec; or both D and C, to derive N = C/6D)";
    const std::string dMissing = "D, the training tokens (expected a column such as " + spellings(RunField::Tokens) +
                                 "; num_train_steps, global_batch_size and context_length; "
                                 "or compute C, such as " + spellings(RunField::Flops) + ", to derive D = C/6N)";
    const bool noN = !haveN && !(haveD && haveC), noD = !haveD && !(haveN && haveC);
    if (options.lossRequired && !has(RunField::ValLoss) && !has(RunField::TrainLoss))
        return missing(RunField::ValLoss, "the loss (expected a column such as " + spellings(RunField::ValLoss) + ", " +
                                              spellings(RunField::TrainLoss) + ")");
    if (!options.lossRequired && noN) return missing(RunField::Params, nMissing);
    if (!options.lossRequired && noD) return missing(RunField::Tokens, dMissing);
    TableLayout layout;
    layout.header = header;
    layout.headerLine = headerLine;
    layout.columns = columns;
    for (std::size_t f = 0; f < kRunFieldCount; ++f)
        if (columns[f] >= 0 && !isCurveField(static_cast<RunField>(f))) layout.fixedColumns.push_back(columns[f]);
    std::sort(layout.fixedColumns.begin(), layout.fixedColumns.end());
    layout.fixedColumns.erase(std::unique(layout.fixedColumns.begin(), layout.fixedColumns.end()), layout.fixedColumns.end());
    layout.report = std::move(report);
    layout.noN = noN;
    layout.noD = noD;
    // Compute in the unit its column's name gives (GFLOPs, PF-days, ...), read as FLOPs.
    for (RunField f : {RunField::Flops, RunField::Budget}) {
        const int c = columns[static_cast<std::size_t>(f)];
        if (c < 0) continue;
        const ComputeUnit unit = computeUnit(header[static_cast<std::size_t>(c)]);
        if (unit.name.empty()) continue;
        (f == RunField::Flops ? layout.flopsFactor : layout.budgetFactor) = unit.factor;
        char factor[32];
        std::snprintf(factor, sizeof factor, "%g", unit.factor);
        layout.notes.push_back("column '" + header[static_cast<std::size_t>(c)] + "' is in " + unit.name + ": read as " +
                               std::string(fieldKey(f)) + " in FLOPs (x " + factor + ")");
    }
    constexpr const char* kWithout =
        "; the analyses that need N and D (L(N,D), IsoFLOP, over-training slopes, Pareto, context, compute-optimal) have "
        "none; a law over the file's columns can be fitted (scalex fit law --formula)";
    if (noN) layout.notes.push_back("no column for " + nMissing + kWithout);
    if (noD) layout.notes.push_back("no column for " + dMissing + kWithout);
    layout.shared = std::make_shared<const std::vector<std::string>>(std::move(header));
    return layout;
}

// Builds the table row by row as the reader hands them out. Rows of a run along its training
// that differ from the run's first row only in what changes along training are kept as columns
// (CheckpointRows); at the end each run's last checkpoint, duplicates, and every row of a table
// that is no table of checkpoints or is small become full runs again.
class TableBuilder {
public:
    TableBuilder(TableLayout layout, const std::string& file, const LoadOptions& options, bool csvLike)
        : layout_(std::move(layout)), file_(file), options_(options), csvLike_(csvLike), stem_(fileStem(file)),
          derivation_{options.convention, options.recomputeFlops},
          store_(std::make_shared<CheckpointRows>(layout_.shared)) {}

    std::size_t rows() const { return location_.size(); }
    void reserve(std::size_t rows) {
        location_.reserve(rows);
        hashes_.reserve(rows);
        store_->reserve(rows);
    }

    void add(RecordView& rec) {
        Run run = build(rec, fixed_);
        place(std::move(run), rec.cells.data(), rec.cells.size(), hashCells(rec.cells.data(), rec.cells.size(), joined_));
    }

    // A hash of a row's cells as RawCells::joined holds them (0: no cells, never a duplicate);
    // `scratch` is the caller's buffer, so that any thread can hash.
    static std::uint64_t hashCells(const std::string_view* cells, std::size_t count, std::string& scratch) {
        if (count == 0) return 0;
        join(cells, count, scratch);
        return std::hash<std::string_view>{}(scratch) | 1u;
    }
    static void join(const std::string_view* cells, std::size_t count, std::string& out) {
        out.clear();
        for (std::size_t i = 0; i < count; ++i) {
            if (i) out += '\x1f';
            out += cells[i];
        }
    }

    // The last row built in full, for the rows of the same run after it (buildAlong). Views into
    // the text: valid while the text is.
    struct Previous {
        bool valid = false;
        Run read;   // as read from the cells, before derivation
        Run built;  // as built
        std::string flopMode;
        double fileBudget = kUnknown;
        std::vector<std::string_view> cells;
        // The run buildAlong made last, and whether it was made from this `read` (then only what
        // reading the curve, derivation and the checks change differs from `read`).
        Run along;
        bool alongOfRead = false;
    };

    // The run of a record that repeats the previous row's cells in every field that stays the same
    // along training: the previous row's fields with this row's curve read and derived again, as
    // build() would make it, in prev.along. False (and prev.along unspecified) where that is not so
    // or the row has a problem; build() then reads it in full.
    bool buildAlong(const RecordView& rec, Previous& prev) const {
        if (!prev.valid || !rec.notes.empty() || rec.cells.size() != layout_.header.size()) return false;
        for (int c : layout_.fixedColumns)
            if (rec.cells[static_cast<std::size_t>(c)] != prev.cells[static_cast<std::size_t>(c)]) return false;
        for (std::string_view c : rec.cells)
            if (hasHighBytes(c)) return false;
        Run& out = prev.along;
        if (!prev.alongOfRead) {
            out = prev.read;
            prev.alongOfRead = true;
        } else {
            // What deriveColumns and checkPlausibility write beside the curve (readCurve sets the rest).
            out.params = prev.read.params;
            out.paramsSource = prev.read.paramsSource;
            out.budget = prev.read.budget;
            out.problems.clear();
        }
        out.sourceLine = rec.line;
        RowReader r(layout_.header, layout_.columns, rec.cells, out);
        readCurve(r, out);
        if (!out.problems.empty()) return false;
        deriveColumns(out, prev.flopMode, derivation_, prev.fileBudget);
        markNoColumn(out);
        checkPlausibility(out);
        return out.problems.empty() && known(out.step) && sameButCurve(out, prev.built);
    }

    // The run a record stands for (touches nothing of the builder: any thread may build while
    // another places). Cells re-read as UTF-8 are kept in `fixed`. With `prev`: kept there for the
    // rows after it.
    Run build(RecordView& rec, std::deque<std::string>& fixed, Previous* prev = nullptr) const {
        const std::vector<std::string>& header = layout_.header;
        Run run;
        run.sourceLine = rec.line;
        run.dataset = stem_;
        for (std::size_t idx = 0; idx < rec.cells.size(); ++idx) {
            const std::string_view c = rec.cells[idx];
            if (hasHighBytes(c) && !validUtf8(c)) {
                fixed.push_back(QString::fromUtf8(c.data(), static_cast<qsizetype>(c.size())).toStdString());
                rec.cells[idx] = fixed.back();
                rec.notes.emplace_back(static_cast<int>(idx), "invalid UTF-8 (the bad bytes read as U+FFFD)");
            }
        }
        for (const auto& [col, note] : rec.notes)
            run.problems.push_back(col >= 0 && static_cast<std::size_t>(col) < header.size()
                                       ? header[static_cast<std::size_t>(col)] + ": " + note
                                   : col >= 0 ? "field " + std::to_string(col + 1) + ": " + note
                                              : note);
        if (csvLike_ && rec.cells.size() != header.size())
            run.problems.push_back("the row has " + std::to_string(rec.cells.size()) +
                                   (rec.cells.size() == 1 ? " field" : " fields") + ", the header " +
                                   std::to_string(header.size()) + " (a missing or extra delimiter?)");
        const auto& columns = layout_.columns;
        auto has = [&](RunField f) { return columns[static_cast<std::size_t>(f)] >= 0; };
        const DerivationSettings& derivation = derivation_;
        RowReader r(header, columns, rec.cells, run);

        run.runId = r.text(RunField::RunId);
        run.name = r.text(RunField::Name);
        if (has(RunField::Dataset) && !r.text(RunField::Dataset).empty()) run.dataset = r.text(RunField::Dataset);
        run.status = lower(r.text(RunField::Status));
        // A family the accounting does not know is no problem: the run has a series and no architecture.
        if (has(RunField::Family)) run.family = accounting::parseFamily(r.text(RunField::Family));
        run.series = r.text(RunField::Series);
        double fileBudget = kUnknown;
        if (has(RunField::Budget)) {
            const std::string b = lower(r.text(RunField::Budget));
            if (!b.empty() && b != "extra" && b != "none" && b != "off-grid") fileBudget = r.number(RunField::Budget) * layout_.budgetFactor;
        }
        if (has(RunField::ExperimentSet)) {
            const std::string e = normalizeColumnName(r.text(RunField::ExperimentSet));
            run.experimentSet = e == "isoflop" ? ExperimentSet::IsoFlop
                              : (e == "tokenparam" || e == "token_param") ? ExperimentSet::TokenParam
                                                                          : ExperimentSet::Other;
        } else if (known(fileBudget))
            run.experimentSet = ExperimentSet::IsoFlop;
        run.context = r.number(RunField::Context);
        run.dModel = r.count(RunField::DModel);
        run.nLayers = r.count(RunField::NLayers);
        run.nHeads = r.count(RunField::NHeads);
        run.nKvHeads = r.count(RunField::NKvHeads);
        run.dQk = r.count(RunField::DQk);
        run.dHv = r.count(RunField::DHv);
        run.dFf = r.count(RunField::DFf);
        run.vocab = r.count(RunField::Vocab);
        run.chunk = r.count(RunField::Chunk);
        run.params = r.number(RunField::Params);
        if (known(run.params)) run.paramsSource = Provenance::FromFile;
        readCurve(r, run);
        bool ok = true;
        if (has(RunField::SelectedInPaper)) {
            run.selectedInPaper = parseBool(r.text(RunField::SelectedInPaper), &ok);
            if (!ok) r.problem(RunField::SelectedInPaper, "'" + r.text(RunField::SelectedInPaper) + "' is not true or false");
        }
        if (has(RunField::Included)) {
            run.userIncluded = parseBool(r.text(RunField::Included), &ok);
            if (!ok) r.problem(RunField::Included, "'" + r.text(RunField::Included) + "' is not true or false");
        }

        const std::string flopMode = lower(r.text(RunField::FlopMode));
        // Only a whole row of a run along its training (a step and a name) is kept for the rows after it.
        if (prev) prev->valid = run.problems.empty() && rec.cells.size() == header.size() && known(run.step) &&
                                !(run.runId.empty() && run.name.empty());
        if (prev && prev->valid) {
            prev->read = run;
            prev->alongOfRead = false;
            prev->flopMode = flopMode;
            prev->fileBudget = fileBudget;
        }
        deriveColumns(run, flopMode, derivation, fileBudget);
        markNoColumn(run);
        checkPlausibility(run);
        if (prev && prev->valid) {
            prev->valid = run.problems.empty();
            prev->built = run;
            prev->cells.assign(rec.cells.begin(), rec.cells.end());
        }
        return run;
    }

    // N and D of a table without their columns are unknown by the table, not by the row.
    void markNoColumn(Run& run) const {
        if (layout_.noN && !known(run.params)) run.paramsSource = Provenance::NoColumn;
        if (layout_.noD && !known(run.tokens)) run.tokensSource = Provenance::NoColumn;
    }

    // What changes along training (D, C, the step and the losses), the numbers read between them
    // (so that problems keep the columns' order) and the provenance of N, D and C (whose columns read
    // as the file gives them, or else as known or missing).
    void readCurve(RowReader& r, Run& run) const {
        run.tokens = r.number(RunField::Tokens);
        run.flops = r.number(RunField::Flops) * layout_.flopsFactor;
        run.batchSize = r.number(RunField::BatchSize);
        run.steps = r.number(RunField::Steps);
        run.learningRate = r.number(RunField::LearningRate);
        run.step = kUnknown;
        if (const std::string cell = r.text(RunField::Step); !cell.empty()) run.step = cell == "0" ? 0.0 : r.number(RunField::Step);
        run.valLoss = r.number(RunField::ValLoss);
        run.trainLoss = r.number(RunField::TrainLoss);
        run.tokensSource = known(run.tokens) ? Provenance::FromFile : Provenance::Missing;
        run.flopsSource = known(run.flops) ? Provenance::FromFile : Provenance::Missing;
        const std::pair<RunField, Provenance*> sources[] = {{RunField::ParamsSource, &run.paramsSource},
                                                             {RunField::TokensSource, &run.tokensSource},
                                                             {RunField::FlopsSource, &run.flopsSource}};
        for (auto [field, target] : sources) {
            const std::string s = r.text(field);
            if (s.empty()) continue;
            if (*target == Provenance::Missing) {
                // Written from a table without the column: unknown by the table, as it was there.
                if (lower(s) == "no_column") *target = Provenance::NoColumn;
                continue;
            }
            bool ok = false;
            const Provenance p = parseProvenance(s, &ok);
            if (ok) *target = p;
            else r.problem(field, "'" + s + "' is not a provenance (expected file, derived, 6nd_fallback or nominal_budget)");
        }
    }

    // Keeps a built run: as columns beside its run's first row, or as a full run.
    void place(Run run, const std::string_view* cells, std::size_t cellCount, std::uint64_t hash) {
        const auto ordinal = static_cast<std::uint32_t>(location_.size());
        // Rows without cells are never duplicates of each other (as the reader always had it).
        hashes_.push_back(hash);

        Key* key = nullptr;
        if (const std::string& k = !run.runId.empty() ? run.runId : run.name; known(run.step) && !k.empty()) {
            // A run's rows come together: its key is looked up again only when it changes.
            if (!lastKey_ || k != lastKeyText_) {
                lastKey_ = &keys_[k];
                lastKeyText_ = k;
            }
            key = lastKey_;
            advance(*key, run.step, run.tokens, ordinal);
        }
        const bool whole = run.problems.empty() && cellCount == layout_.header.size();
        run.raw.header = layout_.shared;
        previousTemplate_ = kNone;
        if (key && whole && key->templateRun != kNone && sameButCurve(runs_[key->templateRun], run)) {
            previousTemplate_ = key->templateRun;
            appendCompact(CheckpointValues::of(run), cells);
            return;
        }
        if (key && whole && key->templateRun == kNone) previousTemplate_ = key->templateRun = static_cast<std::uint32_t>(runs_.size());
        join(cells, cellCount, run.raw.joined);
        location_.push_back(static_cast<std::uint32_t>(runs_.size()));
        runs_.push_back(std::move(run));
    }

    // Keeps a row buildAlong made: it belongs to the run of the row placed before it and equals
    // that row but for `point`.
    void placeAlong(const CheckpointValues& point, const std::string_view* cells, std::size_t cellCount, std::uint64_t hash) {
        if (previousTemplate_ == kNone) {
            // The row before was kept in full (it differs from its run's first row): so is this one.
            Run run = runs_.back();
            point.into(run);
            place(std::move(run), cells, cellCount, hash);
            return;
        }
        const auto ordinal = static_cast<std::uint32_t>(location_.size());
        hashes_.push_back(hash);
        advance(*lastKey_, point.step, point.tokens, ordinal);
        appendCompact(point, cells);
    }

    Expected<RunTable> finish() {
        RunTable table;
        table.source = file_;
        table.mapping = std::move(layout_.report);
        table.notes = layout_.notes;
        const std::size_t n = location_.size();
        const bool keepCompact =
            checkpoints_ && static_cast<std::int64_t>(n) >= options_.compactCheckpointsFrom && store_->size() > 0;

        // Identical rows: equal hashes, then equal cells; each names the first of its kind.
        std::unordered_map<std::uint32_t, int> duplicateOf;
        {
            // The rows in order of the top 32 bits of their hash (rows in source order within),
            // by two stable counting passes of 16 bits: a few times faster than a comparison sort.
            auto top = [&](std::uint32_t o) { return static_cast<std::uint32_t>(hashes_[o] >> 32); };
            std::vector<std::uint32_t> order, byLow;
            order.reserve(n);
            for (std::uint32_t o = 0; o < n; ++o)
                if (hashes_[o]) order.push_back(o);
            byLow.resize(order.size());
            for (int shift : {0, 16}) {
                std::vector<std::size_t> start((1u << 16) + 1, 0);
                for (std::uint32_t o : order) ++start[((top(o) >> shift) & 0xFFFFu) + 1];
                for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
                for (std::uint32_t o : order) byLow[start[(top(o) >> shift) & 0xFFFFu]++] = o;
                order.swap(byLow);
            }
            byLow = {};
            for (std::size_t i = 0; i < order.size();) {
                std::size_t j = i + 1;
                while (j < order.size() && top(order[j]) == top(order[i])) ++j;
                for (std::size_t k = i + 1; k < j; ++k) {
                    std::optional<std::string> cells;
                    for (std::size_t e = i; e < k; ++e) {
                        if (hashes_[order[e]] != hashes_[order[k]] || duplicateOf.count(order[e])) continue;
                        if (!cells) cells = joinedOf(order[k]);
                        if (joinedOf(order[e]) == *cells) {
                            duplicateOf.emplace(order[k], lineOf(order[e]));
                            break;
                        }
                    }
                }
                i = j;
            }
            hashes_ = {};
        }
       
        std::vector<bool> last(n, false);
        std::size_t rowsAlong = 0;
        for (const auto& [k, key] : keys_) {
            last[key.last] = true;
            rowsAlong += key.rows;
        }

        // The runs in source order: full rows, and the compact rows that become full runs.
        std::vector<Run> runs;
        std::vector<std::uint32_t> ordinals, newIndex(runs_.size());
        std::vector<bool> keep(store_->size(), false);
        std::size_t kept = 0;
        for (std::uint32_t o = 0; o < n; ++o) {
            const std::uint32_t loc = location_[o];
            if (!(loc & kCompact)) {
                newIndex[loc] = static_cast<std::uint32_t>(runs.size());
                runs.push_back(std::move(runs_[loc]));
                ordinals.push_back(o);
                continue;
            }
            const std::size_t c = loc & ~kCompact;
            const std::uint32_t templ = newIndex[store_->templateRun(c)];
            if (keepCompact && !last[o] && !duplicateOf.count(o)) {
                store_->setTemplateRun(c, templ);
                store_->setRunsBefore(c, static_cast<std::uint32_t>(runs.size()));
                keep[c] = true;
                ++kept;
                continue;
            }
            Run run;
            store_->fill(c, runs[templ], run);
            run.intermediateCheckpoint = false;
            runs.push_back(std::move(run));
            ordinals.push_back(o);
        }
        runs_ = {};
        location_ = {};
        if (kept == 0) store_.reset();
        else if (kept < keep.size()) store_->keepRows(keep);

        // Checkpoints: every row of a run but its last is an intermediate one.
        if (checkpoints_)
            for (std::size_t i = 0; i < runs.size(); ++i) {
                const Run& r = runs[i];
                const std::string& k = !r.runId.empty() ? r.runId : r.name;
                if (known(r.step) && !k.empty()) runs[i].intermediateCheckpoint = !last[ordinals[i]];
            }
        // Duplicates: identical rows; run ids twice, unless the table is one of checkpoints.
        std::unordered_map<std::string, int> ids;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            Run& r = runs[i];
            if (auto d = duplicateOf.find(ordinals[i]); d != duplicateOf.end()) {
                r.problems.push_back("duplicate: identical to the row on line " + std::to_string(d->second));
                continue;
            }
            if (!checkpoints_ && !r.runId.empty()) {
                auto [it, fresh] = ids.emplace(r.runId, r.sourceLine);
                if (!fresh)
                    r.problems.push_back("duplicate run id '" + r.runId + "' (first on line " + std::to_string(it->second) + ")");
            }
        }
        if (checkpoints_)
            table.notes.push_back("checkpoints: " + std::to_string(rowsAlong) + " rows along " + std::to_string(keys_.size()) +
                                  " runs; each run's last checkpoint stands for the run in the analyses, the others are its "
                                  "loss curve (a checkpoint's loss is not that of a run trained to that point)");
        if (const auto atOrBelowZero = std::count_if(runs.begin(), runs.end(), [](const Run& r) { return r.loss() <= 0; }))
            table.notes.push_back("loss: " + std::to_string(atOrBelowZero) + (atOrBelowZero == 1 ? " row" : " rows") +
                                  " at or below zero (a normalised loss?): kept for laws over the loss; the analyses that "
                                  "take log L (L(N,D), IsoFLOP, over-training slopes, Pareto, context, compute-optimal) "
                                  "leave them out");
        table.runs = std::move(runs);
        if (store_) table.compactCheckpoints.push_back({std::move(store_), 0});
        if (auto e = groupRunsBy(table, options_.seriesBy)) return *e;
        return table;
    }

private:
    static constexpr std::uint32_t kCompact = 1u << 31;
    static constexpr std::uint32_t kNone = ~0u;
    struct Key {
        std::uint32_t templateRun = kNone;  // the first whole row of the run, kept full
        std::uint32_t rows = 0, last = 0;
        double firstStep = 0, lastStep = 0, lastTokens = 0;
    };

    void advance(Key& key, double step, double tokens, std::uint32_t ordinal) {
        if (key.rows++ == 0) {
            key.firstStep = step;
            key.last = ordinal;
            key.lastStep = step;
            key.lastTokens = tokens;
            return;
        }
        if (step != key.firstStep) checkpoints_ = true;
        // The last checkpoint: the largest step, then the most tokens, then the later row.
        if (step > key.lastStep || (step == key.lastStep && !(tokens < key.lastTokens))) {
            key.last = ordinal;
            key.lastStep = step;
            key.lastTokens = tokens;
        }
    }

    void appendCompact(const CheckpointValues& point, const std::string_view* cells) {
        location_.push_back(kCompact | static_cast<std::uint32_t>(store_->size()));
        store_->append(previousTemplate_, static_cast<std::uint32_t>(runs_.size()), point, cells);
    }

    std::string joinedOf(std::uint32_t ordinal) const {
        const std::uint32_t loc = location_[ordinal];
        return loc & kCompact ? store_->joinedCells(loc & ~kCompact) : runs_[loc].raw.joined;
    }
    int lineOf(std::uint32_t ordinal) const {
        const std::uint32_t loc = location_[ordinal];
        return loc & kCompact ? store_->sourceLine(loc & ~kCompact) : runs_[loc].sourceLine;
    }

    TableLayout layout_;
    std::string file_;
    const LoadOptions& options_;
    bool csvLike_;
    std::string stem_;
    DerivationSettings derivation_;
    std::shared_ptr<CheckpointRows> store_;
    std::vector<Run> runs_;
    std::vector<std::uint32_t> location_;  // per source row: its index in runs_, or kCompact | its row in store_
    std::vector<std::uint64_t> hashes_;    // per source row: of its cells (0: none)
    std::unordered_map<std::string, Key> keys_;
    Key* lastKey_ = nullptr;
    std::uint32_t previousTemplate_ = kNone;  // the template of the row placed last, when it is compact or one
    std::string lastKeyText_;
    bool checkpoints_ = false;
    std::string joined_;
    std::deque<std::string> fixed_;  // cells re-read as UTF-8
};

Expected<RunTable> noDataRows(const std::string& file, int headerLine) {
    return LoadError{file, headerLine, "",
                     "no data rows: the header is on line " + std::to_string(headerLine) +
                         " but no run follows (expected one row per run)"};
}

Expected<RunTable> buildTable(RawTable raw, const std::string& file, const LoadOptions& options) {
    if (raw.rows.empty()) return noDataRows(file, raw.headerLine);
    auto layout = layoutFor(std::move(raw.header), raw.headerLine, file, options);
    if (!layout) return layout.error();
    TableBuilder builder(std::move(*layout), file, options, raw.headerLine > 0);
    RecordView view;
    for (auto& rec : raw.rows) {
        view.line = rec.line;
        view.cells.assign(rec.cells.begin(), rec.cells.end());
        view.notes = std::move(rec.notes);
        builder.add(view);
    }
    return builder.finish();
}

// Gives the memory of the text read so far back to the system while a table is read (the text is
// read once, front to back): a table of millions of rows is then never held whole twice, as text
// and as columns. Only for a buffer the reader owns and nobody reads after it; a page given back
// reads as zeros, so nothing that still points into it may lie before the offset released to.
class TextRelease {
public:
    TextRelease(std::string_view text, bool enabled) : text_(text), enabled_(enabled) {}
    void before(std::size_t offset) {
#ifdef __linux__
        static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
        if (!enabled_ || offset <= released_) return;
        const auto base = reinterpret_cast<std::uintptr_t>(text_.data());
        const std::uintptr_t begin = (base + released_ + page - 1) / page * page, end = (base + offset) / page * page;
        if (end > begin + (4u << 20) && madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) == 0)
            released_ = end - base;  // in steps of a few MiB
#else
        (void)offset;
#endif
    }

private:
    std::string_view text_;
    bool enabled_;
    std::size_t released_ = 0;
};

// CSV and TSV straight from the text, one record at a time. `releaseText`: the text's buffer is the
// reader's own and may be given back as it is read (TextRelease).
Expected<RunTable> buildDelimited(std::string_view text, const std::string& file, char delimiter, const LoadOptions& options,
                                  bool releaseText) {
    DelimitedScanner scanner(text, delimiter);
    RecordView rec;
    auto first = scanner.next(rec, file, nullptr);
    if (!first) return first.error();
    if (!*first) return LoadError{file, 0, "", "the file is empty (expected a header line and one row per run)"};
    std::vector<std::string> header(rec.cells.begin(), rec.cells.end());
    for (auto& h : header) {
        std::size_t b = 0, e = h.size();
        while (b < e && (h[b] == ' ' || h[b] == '\t')) ++b;
        while (e > b && (h[e - 1] == ' ' || h[e - 1] == '\t')) --e;
        h = h.substr(b, e - b);
    }
    const int headerLine = rec.line;
    auto layout = layoutFor(header, headerLine, file, options);
    std::int64_t rows = 0;
    if (!layout) {
        // The reader's own errors (a quote never closed, too many rows) and an empty table come first.
        for (;;) {
            auto more = scanner.next(rec, file, &header);
            if (!more) return more.error();
            if (!*more) break;
            if (rows++ >= options.maxRows)
                return LoadError{file, rec.line, "", "more than " + std::to_string(options.maxRows) + " rows (the run-table row limit)"};
        }
        if (rows == 0) return noDataRows(file, headerLine);
        return layout.error();
    }
    TableBuilder builder(std::move(*layout), file, options, true);
    // About one row per line: reserving once keeps the columns from growing by copies.
    builder.reserve(static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(scanner.position()), text.end(), '\n')) + 1);

    // Two threads: one reads records and builds their runs, the other places them (the two halves
    // of a row's work take about as long). Batches keep the order of the rows.
    struct Batch {
        std::vector<Run> runs;          // rows built in full
        std::vector<CheckpointValues> points;  // rows built along the row before them
        std::vector<bool> along;        // per row: which of the two
        std::vector<std::string_view> cells;  // the rows' cells back to back
        std::vector<std::size_t> cellEnd;
        std::vector<std::uint64_t> hashes;
        std::deque<std::string> owned;  // cells not in the text (unescaped quotes, re-read UTF-8)
        std::size_t textEnd = 0;        // where in the text its last row ends
        std::optional<LoadError> error;
        bool last = false;
    };
    constexpr std::size_t kBatchRows = 4096, kQueued = 3;
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Batch> queue;
    bool stop = false;
    // The text before the rows still to be placed, and before the cells the reader compares rows
    // with (those of the last row built in full), is read: given back as the reading goes on.
    std::atomic<std::size_t> placedTo{0};
    TextRelease release(text, releaseText);
    std::thread reader([&] {
        std::string scratch;
        TableBuilder::Previous previous;
        for (;;) {
            std::size_t inUse = placedTo.load();
            if (previous.valid)
                for (std::string_view c : previous.cells)
                    if (c.data() >= text.data() && c.data() <= text.data() + text.size())
                        inUse = std::min(inUse, static_cast<std::size_t>(c.data() - text.data()));
            release.before(inUse);
            Batch b;
            if (options.progress && !options.progress(static_cast<double>(scanner.position()) / static_cast<double>(text.size()))) {
                b.error = LoadError{file, 0, "", kLoadCancelled};
                b.last = true;
            }
            b.along.reserve(kBatchRows);
            while (!b.last && b.along.size() < kBatchRows) {
                auto more = scanner.next(rec, file, &header);
                if (!more) b.error = more.error();
                else if (*more && rows++ >= options.maxRows)
                    b.error = LoadError{file, rec.line, "", "more than " + std::to_string(options.maxRows) + " rows (the run-table row limit)"};
                if (!more || !*more || b.error) {
                    b.last = true;
                    break;
                }
                bool inText = true;
                for (auto& c : rec.cells)
                    if (c.data() < text.data() || c.data() + c.size() > text.data() + text.size()) {
                        c = b.owned.emplace_back(c);
                        inText = false;
                    }
                const bool along = builder.buildAlong(rec, previous);
                b.along.push_back(along);
                if (along) b.points.push_back(CheckpointValues::of(previous.along));
                else {
                    b.runs.push_back(builder.build(rec, b.owned, &previous));
                    // The cells of a row kept for the next one must outlive this batch.
                    if (!inText) previous.valid = false;
                }
                b.hashes.push_back(TableBuilder::hashCells(rec.cells.data(), rec.cells.size(), scratch));
                b.cells.insert(b.cells.end(), rec.cells.begin(), rec.cells.end());
                b.cellEnd.push_back(b.cells.size());
            }
            b.textEnd = scanner.position();
            const bool last = b.last;
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return stop || queue.size() < kQueued; });
            if (stop) return;
            queue.push_back(std::move(b));
            changed.notify_all();
            if (last) return;
        }
    });
    std::optional<LoadError> error;
    for (bool last = false; !last;) {
        Batch b;
        {
            std::unique_lock lock(mutex);
            changed.wait(lock, [&] { return !queue.empty(); });
            b = std::move(queue.front());
            queue.pop_front();
            changed.notify_all();
        }
        std::size_t begin = 0, run = 0, point = 0;
        for (std::size_t i = 0; i < b.along.size(); ++i) {
            const std::string_view* cells = b.cells.data() + begin;
            if (b.along[i]) builder.placeAlong(b.points[point++], cells, b.cellEnd[i] - begin, b.hashes[i]);
            else builder.place(std::move(b.runs[run++]), cells, b.cellEnd[i] - begin, b.hashes[i]);
            begin = b.cellEnd[i];
        }
        last = b.last;
        error = std::move(b.error);
        placedTo = b.textEnd;
    }
    {
        std::lock_guard lock(mutex);
        stop = true;
        changed.notify_all();
    }
    reader.join();
    if (error) return *error;
    if (rows == 0) return noDataRows(file, headerLine);
    return builder.finish();
}

RunTableFormat formatFromName(const std::string& name) {
    std::string n = lower(name);
    if (endsWith(n, ".gz")) n.resize(n.size() - 3);
    if (endsWith(n, ".tsv") || endsWith(n, ".tab")) return RunTableFormat::Tsv;
    if (endsWith(n, ".jsonl") || endsWith(n, ".ndjson")) return RunTableFormat::JsonLines;
    if (endsWith(n, ".json")) return RunTableFormat::Json;
    if (endsWith(n, ".csv")) return RunTableFormat::Csv;
    return RunTableFormat::Auto;
}

RunTableFormat sniffFormat(std::string_view text) {
    const std::string_view t = trim(text);
    if (t.empty()) return RunTableFormat::Csv;
    if (t.front() == '[') return RunTableFormat::Json;
    if (t.front() != '{') return RunTableFormat::Csv;
    // One object per line, or one object spread over lines.
    const std::size_t eol = t.find('\n');
    if (eol == std::string_view::npos) return RunTableFormat::Json;
    const std::string_view first = trim(t.substr(0, eol));
    QJsonParseError err{};
    QJsonDocument::fromJson(QByteArray(first.data(), static_cast<qsizetype>(first.size())), &err);
    return err.error == QJsonParseError::NoError ? RunTableFormat::JsonLines : RunTableFormat::Json;
}

}  // namespace

Expected<QByteArray> gunzip(const QByteArray& compressed, const std::string& name, std::int64_t maxBytes) {
    QByteArray out;
    z_stream zs{};
    // 16 + MAX_WBITS: gzip header and trailer (qUncompress reads only zlib streams).
    if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) return LoadError{name, 0, "", "cannot start gzip decompression"};
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.constData()));
    zs.avail_in = static_cast<uInt>(compressed.size());
    std::array<char, 1 << 16> buf{};
    int rc = Z_OK;
    for (;;) {
        zs.next_out = reinterpret_cast<Bytef*>(buf.data());
        zs.avail_out = static_cast<uInt>(buf.size());
        rc = inflate(&zs, Z_NO_FLUSH);
        const auto produced = static_cast<qsizetype>(buf.size() - zs.avail_out);
        if (out.size() + produced > maxBytes) {
            inflateEnd(&zs);
            return LoadError{name, 0, "",
                             "the decompressed data exceeds the run-table limit of " + std::to_string(maxBytes >> 20) +
                                 " MiB (LoadOptions::maxBytes)"};
        }
        out.append(buf.data(), produced);
        if (rc == Z_STREAM_END) {
            // Concatenated gzip members continue after the first one's trailer.
            if (zs.avail_in > 0 && inflateReset(&zs) == Z_OK) continue;
            break;
        }
        if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
            inflateEnd(&zs);
            return LoadError{name, 0, "", "the gzip data ends early (the file is truncated)"};
        }
        if (rc != Z_OK) {
            const std::string msg = zs.msg ? zs.msg : "error " + std::to_string(rc);
            inflateEnd(&zs);
            return LoadError{name, 0, "", "the gzip data is corrupt (zlib: " + msg + ")"};
        }
    }
    inflateEnd(&zs);
    return out;
}

namespace {

// parseRunTable; `owned`: the caller hands over its only reference to the bytes, which the reader
// may then give back to the system as it reads them.
Expected<RunTable> parseText(QByteArray bytes, const std::string& name, const LoadOptions& options, bool owned) {
    if (bytes.size() > options.maxBytes)
        return LoadError{name, 0, "",
                         "the file has " + std::to_string(bytes.size()) + " bytes, over the run-table limit of " +
                             std::to_string(options.maxBytes >> 20) + " MiB (LoadOptions::maxBytes)"};
    const bool gzipMagic = bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
                           static_cast<unsigned char>(bytes[1]) == 0x8b;
    if (gzipMagic) {
        auto inflated = gunzip(bytes, name, options.maxBytes);
        if (!inflated) return inflated.error();
        bytes = std::move(*inflated);
        owned = true;  // the inflated text is the reader's alone
    } else if (endsWith(lower(name), ".gz"))
        return LoadError{name, 0, "", "the name ends in .gz but the data is not gzip (no gzip header)"};

    std::string_view text(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    if (text.size() >= 2 && ((static_cast<unsigned char>(text[0]) == 0xFF && static_cast<unsigned char>(text[1]) == 0xFE) ||
                             (static_cast<unsigned char>(text[0]) == 0xFE && static_cast<unsigned char>(text[1]) == 0xFF)))
        return LoadError{name, 1, "", "the file is UTF-16 encoded; expected UTF-8 text (save it as UTF-8)"};
    if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    if (trim(text).empty()) return LoadError{name, 0, "", "the file is empty (expected a header line and one row per run)"};
    if (const void* nul = std::memchr(text.data(), '\0', text.size()))
        return LoadError{name, lineOfOffset(text, static_cast<std::size_t>(static_cast<const char*>(nul) - text.data())), "",
                         "binary data (a NUL byte): expected UTF-8 text (CSV, TSV, JSON or JSON Lines)"};
    {
        const std::size_t scan = std::min<std::size_t>(text.size(), 1 << 16);
        std::size_t controls = 0;
        // Control characters inside quotes are text (a name as a CSV writer quotes it); binary
        // data has them everywhere, and its stray quote bytes leave about half of them counted.
        bool quoted = false;
        for (std::size_t i = 0; i < scan; ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (c == '"') quoted = !quoted;
            else if (!quoted && ((c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f)) ++controls;
        }
        if (controls * 100 > scan)
            return LoadError{name, 0, "", "binary data (control characters): expected UTF-8 text (CSV, TSV, JSON or JSON Lines)"};
    }

    RunTableFormat format = options.format;
    if (format == RunTableFormat::Auto) format = formatFromName(name);
    if (format == RunTableFormat::Auto) format = sniffFormat(text);

    Expected<RawTable> raw = LoadError{};
    switch (format) {
        case RunTableFormat::Json:
            raw = readJson(text, QByteArray::fromRawData(text.data(), static_cast<qsizetype>(text.size())), name,
                           options.maxRows);
            break;
        case RunTableFormat::JsonLines: raw = readJsonLines(text, name, options.maxRows); break;
        case RunTableFormat::Tsv: return buildDelimited(text, name, detectDelimiter(text, '\t'), options, owned);
        default: return buildDelimited(text, name, detectDelimiter(text, ','), options, owned);
    }
    if (!raw) return raw.error();
    return buildTable(std::move(*raw), name, options);
}

}  // namespace

Expected<RunTable> parseRunTable(const QByteArray& bytes, const std::string& name, const LoadOptions& options) {
    return parseText(bytes, name, options, false);
}

Expected<RunTable> loadRunTable(const std::string& path, const LoadOptions& options) {
    QFile f(QString::fromStdString(path));
    if (!f.exists()) return LoadError{path, 0, "", "no such file"};
    if (!f.open(QIODevice::ReadOnly)) return LoadError{path, 0, "", "cannot open: " + f.errorString().toStdString()};
    if (f.size() > options.maxBytes)
        return LoadError{path, 0, "",
                         "the file has " + std::to_string(f.size()) + " bytes, over the run-table limit of " +
                             std::to_string(options.maxBytes >> 20) + " MiB (LoadOptions::maxBytes)"};
    QByteArray bytes = f.readAll();
    f.close();
    return parseText(std::move(bytes), path, options, true);
}

std::string formatField(const Run& r, RunField field) {
    auto count = [](std::int64_t v) { return v > 0 ? std::to_string(v) : std::string{}; };
    auto flag = [](const std::optional<bool>& b) { return std::string(b ? (*b ? "true" : "false") : ""); };
    switch (field) {
        case RunField::RunId: return r.runId;
        case RunField::Name: return r.name;
        case RunField::Dataset: return r.dataset;
        case RunField::Series: return r.series;
        case RunField::Family: return r.family ? std::string(accounting::familyName(*r.family)) : std::string();
        case RunField::ExperimentSet:
            return r.experimentSet == ExperimentSet::IsoFlop      ? "isoflop"
                   : r.experimentSet == ExperimentSet::TokenParam ? "tokenparam"
                                                                  : "other";
        case RunField::Status: return r.status;
        case RunField::Context: return formatNumber(r.context);
        case RunField::DModel: return count(r.dModel);
        case RunField::NLayers: return count(r.nLayers);
        case RunField::NHeads: return count(r.nHeads);
        case RunField::NKvHeads: return count(r.nKvHeads);
        case RunField::DQk: return count(r.dQk);
        case RunField::DHv: return count(r.dHv);
        case RunField::DFf: return count(r.dFf);
        case RunField::Vocab: return count(r.vocab);
        case RunField::Chunk: return count(r.chunk);
        case RunField::Params: return formatNumber(r.params);
        case RunField::Tokens: return formatNumber(r.tokens);
        case RunField::Flops: return formatNumber(r.flops);
        case RunField::Budget: return formatNumber(r.budget);
        case RunField::BatchSize: return formatNumber(r.batchSize);
        case RunField::Steps: return formatNumber(r.steps);
        case RunField::LearningRate: return formatNumber(r.learningRate);
        case RunField::Step: return formatNumber(r.step);
        case RunField::ValLoss: return formatNumber(r.valLoss);
        case RunField::TrainLoss: return formatNumber(r.trainLoss);
        case RunField::SelectedInPaper: return flag(r.selectedInPaper);
        case RunField::ParamsSource: return std::string(provenanceName(r.paramsSource));
        case RunField::TokensSource: return std::string(provenanceName(r.tokensSource));
        case RunField::FlopsSource: return std::string(provenanceName(r.flopsSource));
        case RunField::Included: return flag(r.userIncluded);
        case RunField::FlopMode: return {};
    }
    return {};
}

QByteArray writeRunTableCsv(const RunTable& table) {
    std::vector<RunField> fields;
    std::set<std::string> canonical;
    for (int i = 0; i < kRunFieldCount; ++i)
        if (static_cast<RunField>(i) != RunField::FlopMode) {
            fields.push_back(static_cast<RunField>(i));
            canonical.insert(std::string(fieldKey(static_cast<RunField>(i))));
        }
    // The source columns no canonical name stands for, in the order first seen.
    std::vector<std::string> extra;
    {
        std::set<std::string> seen;
        const std::vector<std::string>* last = nullptr;
        auto add = [&](const std::shared_ptr<const std::vector<std::string>>& header) {
            if (!header || header.get() == last) return;
            last = header.get();
            for (const auto& h : *last)
                if (!canonical.count(normalizeColumnName(h)) && seen.insert(normalizeColumnName(h)).second) extra.push_back(h);
        };
        for (const Run& r : table.runs) add(r.raw.header);
        for (const auto& b : table.compactCheckpoints) add(b.rows->header());
    }
    std::string out;
    out.reserve(64 * (table.rowCount() + 1));
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) out += ',';
        out += fieldKey(fields[i]);
    }
    for (const auto& h : extra) out += ',' + quoteField(h);
    out += '\n';
    // Which cell holds each extra column, per source header (rows share their table's header).
    const std::vector<std::string>* cachedHeader = nullptr;
    std::vector<int> extraCell;
    forEachRow(table, [&](const Run& r) {
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (i) out += ',';
            out += quoteField(formatField(r, fields[i]));
        }
        if (!extra.empty()) {
            if (r.raw.header.get() != cachedHeader) {
                cachedHeader = r.raw.header.get();
                extraCell.assign(extra.size(), -1);
                for (std::size_t k = 0; cachedHeader && k < extra.size(); ++k) {
                    const std::string want = normalizeColumnName(extra[k]);
                    for (std::size_t c = 0; c < cachedHeader->size(); ++c)
                        if (normalizeColumnName((*cachedHeader)[c]) == want) {
                            extraCell[k] = static_cast<int>(c);
                            break;
                        }
                }
            }
            const auto cells = r.raw.split();
            for (std::size_t k = 0; k < extra.size(); ++k) {
                out += ',';
                if (extraCell[k] >= 0 && static_cast<std::size_t>(extraCell[k]) < cells.size())
                    out += quoteField(cells[static_cast<std::size_t>(extraCell[k])]);
            }
        }
        out += '\n';
    });
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

std::optional<LoadError> saveRunTableCsv(const RunTable& table, const std::string& path) {
    QSaveFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::WriteOnly)) return LoadError{path, 0, "", "cannot write: " + f.errorString().toStdString()};
    f.write(writeRunTableCsv(table));
    if (!f.commit()) return LoadError{path, 0, "", "cannot write: " + f.errorString().toStdString()};
    return std::nullopt;
}

}  // namespace scalex::data
