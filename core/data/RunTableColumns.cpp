#include "core/data/RunTableColumns.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <unordered_map>

namespace scalex::data {

namespace {

constexpr char kMagic[16] = "scalex-columns\n";  // with its NUL, 16 bytes

template <class T>
const char* typeName() {
    if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, std::int64_t>) return "i64";
    else if constexpr (std::is_same_v<T, std::int32_t>) return "i32";
    else if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
    else return "u8";
}

// Fixed-width values in little-endian byte order whatever the machine's.
template <class T>
void storeLe(char* p, T v) {
    std::memcpy(p, &v, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(p, p + sizeof(T));
}
template <class T>
T loadLe(const char* p) {
    char b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if constexpr (std::endian::native == std::endian::big) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}

QJsonArray strings(const std::vector<std::string>& v) {
    QJsonArray a;
    for (const auto& s : v) a.append(QString::fromStdString(s));
    return a;
}
std::vector<std::string> strings(const QJsonValue& v) {
    std::vector<std::string> out;
    for (const auto& s : v.toArray()) out.push_back(s.toString().toStdString());
    return out;
}

class ColumnWriter {
public:
    template <class T, class Get>
    void numbers(const std::string& name, std::size_t n, Get get) {
        char* p = grow(name, typeName<T>(), n * sizeof(T));
        for (std::size_t i = 0; i < n; ++i) storeLe<T>(p + i * sizeof(T), static_cast<T>(get(i)));
    }
    // get(i) gives a view that stays valid while the column is written.
    template <class Get>
    void text(const std::string& name, std::size_t n, Get get) {
        std::unordered_map<std::string_view, std::uint32_t> index;
        std::vector<std::string_view> dictionary;
        std::vector<std::uint32_t> codes(n);
        std::size_t textBytes = 0;
        index.reserve(std::min<std::size_t>(n, 1 << 16));
        for (std::size_t i = 0; i < n; ++i) {
            // A run's rows repeat its cells one after another: those need no lookup.
            const std::string_view cell = get(i);
            if (i > 0 && cell == dictionary[codes[i - 1]]) {
                codes[i] = codes[i - 1];
                continue;
            }
            const auto [it, fresh] = index.try_emplace(cell, static_cast<std::uint32_t>(dictionary.size()));
            if (fresh) {
                dictionary.push_back(it->first);
                textBytes += it->first.size();
            }
            codes[i] = it->second;
        }
        char* p = grow(name, "text", 4 + 4 * dictionary.size() + textBytes + 4 * n);
        storeLe<std::uint32_t>(p, static_cast<std::uint32_t>(dictionary.size()));
        p += 4;
        for (const auto s : dictionary) {
            storeLe<std::uint32_t>(p, static_cast<std::uint32_t>(s.size()));
            std::memcpy(p + 4, s.data(), s.size());
            p += 4 + s.size();
        }
        for (const auto c : codes) {
            storeLe<std::uint32_t>(p, c);
            p += 4;
        }
    }
    const QJsonArray& directory() const { return directory_; }
    const QByteArray& payload() const { return payload_; }

private:
    char* grow(const std::string& name, const char* type, std::size_t bytes) {
        directory_.append(QJsonObject{{"name", QString::fromStdString(name)}, {"type", QLatin1String(type)},
                                      {"bytes", static_cast<qint64>(bytes)}});
        const qsizetype start = payload_.size();
        payload_.resize(start + static_cast<qsizetype>(bytes));
        return payload_.data() + start;
    }

    QJsonArray directory_;
    QByteArray payload_;
};

class ColumnReader {
public:
    ColumnReader(const QByteArray& bytes, std::string file) : bytes_(bytes), file_(std::move(file)) {}

    std::optional<LoadError> open() {
        if (bytes_.size() < 24 || std::memcmp(bytes_.constData(), kMagic, 16) != 0)
            return fail({}, "not a Scalex run-table column file (it does not start with \"scalex-columns\")");
        const auto version = loadLe<std::uint32_t>(bytes_.constData() + 16);
        if (version < 1) return fail({}, "column format version 0 is not one Scalex writes (damaged?)");
        if (version > kRunColumnsVersion)
            return fail({}, "column format version " + std::to_string(version) + " is newer than this Scalex reads (" +
                                std::to_string(kRunColumnsVersion) + "); open it with a newer Scalex");
        const auto jsonBytes = loadLe<std::uint32_t>(bytes_.constData() + 20);
        if (jsonBytes > static_cast<std::uint64_t>(bytes_.size() - 24))
            return fail({}, "truncated: its directory of " + std::to_string(jsonBytes) + " bytes runs past the end");
        QJsonParseError err;
        const QJsonDocument doc = QJsonDocument::fromJson(bytes_.mid(24, jsonBytes), &err);
        if (err.error != QJsonParseError::NoError || !doc.isObject())
            return fail({}, "its directory is not a JSON object (damaged?)");
        meta_ = doc.object();
        std::int64_t at = 24 + static_cast<std::int64_t>(jsonBytes);
        for (const auto& c : meta_.value("columns").toArray()) {
            const QJsonObject o = c.toObject();
            const std::string name = o.value("name").toString().toStdString();
            const double size = o.value("bytes").toDouble(-1);
            if (name.empty() || size < 0 || size != std::floor(size))
                return fail(name, "the directory gives no name or byte count for a column");
            const auto n = static_cast<std::int64_t>(size);
            if (n > bytes_.size() - at)
                return fail(name, "truncated: the column's " + std::to_string(n) + " bytes run past the end of the data (" +
                                      std::to_string(bytes_.size() - at) + " bytes left)");
            columns_[name] = {o.value("type").toString().toStdString(), at, n};
            at += n;
        }
        if (at != bytes_.size())
            return fail({}, std::to_string(bytes_.size() - at) + " bytes after the last column the directory lists (damaged?)");
        return std::nullopt;
    }

    const QJsonObject& meta() const { return meta_; }
    // The bytes of a column already checked.
    const char* data(const std::string& name) const { return bytes_.constData() + columns_.at(name).offset; }
    std::optional<LoadError> error;

    // Rows a fixed-width column holds, or -1 (and an error) when it is missing or of another type.
    template <class T>
    std::int64_t rows(const std::string& name) {
        const Column* c = column(name, typeName<T>());
        if (!c) return -1;
        if (c->bytes % sizeof(T) != 0) {
            fail(name, "wrong length: " + std::to_string(c->bytes) + " bytes is not a whole number of " + typeName<T>() + " values");
            return -1;
        }
        return c->bytes / static_cast<std::int64_t>(sizeof(T));
    }

    // Whether a fixed-width column holds n values.
    template <class T>
    bool hasRows(const std::string& name, std::size_t n) {
        const std::int64_t have = rows<T>(name);
        if (have < 0) return false;
        if (static_cast<std::size_t>(have) != n)
            return fail(name, "wrong length: " + std::to_string(have) + " values for " + std::to_string(n) + " rows"), false;
        return true;
    }

    // Calls set(i, value) for n values; set returns false for a value out of range.
    template <class T, class Set>
    bool numbers(const std::string& name, std::size_t n, Set set) {
        if (!hasRows<T>(name, n)) return false;
        const char* p = bytes_.constData() + columns_[name].offset;
        for (std::size_t i = 0; i < n; ++i) {
            const T v = loadLe<T>(p + i * sizeof(T));
            if (!set(i, v))
                return fail(name, "bad value " + std::to_string(static_cast<std::int64_t>(v)) + " at row " + std::to_string(i + 1)), false;
        }
        return true;
    }

    // The dictionary (views into the bytes) and n codes, each checked against it.
    bool text(const std::string& name, std::size_t n, std::vector<std::string_view>& dictionary, std::vector<std::uint32_t>& codes) {
        const Column* c = column(name, "text");
        if (!c) return false;
        const char* p = bytes_.constData() + c->offset;
        const char* end = p + c->bytes;
        auto truncated = [&] { return fail(name, "truncated: the column ends inside its dictionary"), false; };
        if (end - p < 4) return truncated();
        const auto d = loadLe<std::uint32_t>(p);
        p += 4;
        if (d > static_cast<std::uint64_t>(end - p) / 4) return truncated();
        dictionary.clear();
        dictionary.reserve(d);
        for (std::uint32_t k = 0; k < d; ++k) {
            if (end - p < 4) return truncated();
            const auto len = loadLe<std::uint32_t>(p);
            p += 4;
            if (len > static_cast<std::uint64_t>(end - p)) return truncated();
            dictionary.emplace_back(p, len);
            p += len;
        }
        if (static_cast<std::uint64_t>(end - p) != 4ull * n)
            return fail(name, "wrong length: " + std::to_string(end - p) + " bytes of codes for " + std::to_string(n) + " rows"), false;
        codes.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            codes[i] = loadLe<std::uint32_t>(p + 4 * i);
            if (codes[i] >= d)
                return fail(name, "bad dictionary index " + std::to_string(codes[i]) + " at row " + std::to_string(i + 1) +
                                      " (the dictionary holds " + std::to_string(d) + " values)"),
                       false;
        }
        return true;
    }

    // Calls set(i, text) for n rows.
    template <class Set>
    bool text(const std::string& name, std::size_t n, Set set) {
        std::vector<std::string_view> dictionary;
        std::vector<std::uint32_t> codes;
        if (!text(name, n, dictionary, codes)) return false;
        for (std::size_t i = 0; i < n; ++i) set(i, dictionary[codes[i]]);
        return true;
    }

    LoadError fail(const std::string& column, std::string message) {
        if (!error) error = LoadError{file_, 0, column, std::move(message)};
        return *error;
    }

private:
    struct Column {
        std::string type;
        std::int64_t offset = 0, bytes = 0;
    };
    const Column* column(const std::string& name, const std::string& type) {
        const auto it = columns_.find(name);
        if (it == columns_.end()) return fail(name, "missing column"), nullptr;
        if (it->second.type != type) return fail(name, "expected a " + type + " column, found " + it->second.type), nullptr;
        return &it->second;
    }

    const QByteArray& bytes_;
    std::string file_;
    QJsonObject meta_;
    std::map<std::string, Column> columns_;
};

// An optional flag or a small enumeration as one byte.
std::uint8_t codeOf(const std::optional<bool>& b) { return b ? (*b ? 2 : 1) : 0; }
bool decode(std::uint8_t c, std::optional<bool>& b) {
    if (c > 2) return false;
    b = c ? std::optional<bool>(c == 2) : std::nullopt;
    return true;
}
std::uint8_t codeOf(const std::optional<accounting::Family>& f) { return f ? static_cast<std::uint8_t>(*f) + 1 : 0; }
bool decode(std::uint8_t c, std::optional<accounting::Family>& f) {
    if (c > 2) return false;
    f = c ? std::optional(static_cast<accounting::Family>(c - 1)) : std::nullopt;
    return true;
}
std::uint8_t codeOf(bool b) { return b; }
bool decode(std::uint8_t c, bool& b) { return c <= 1 ? (b = c, true) : false; }
template <class E> requires std::is_enum_v<E>
std::uint8_t codeOf(E e) { return static_cast<std::uint8_t>(e); }
bool decode(std::uint8_t c, ExperimentSet& e) { return c <= 2 ? (e = static_cast<ExperimentSet>(c), true) : false; }
bool validProvenance(unsigned c) { return c <= static_cast<unsigned>(Provenance::NoColumn); }
bool decode(std::uint8_t c, Provenance& p) { return validProvenance(c) ? (p = static_cast<Provenance>(c), true) : false; }

// Every field of a run but its problems, cells and spec (the study binds specs again), named once
// for writing and reading: v.number<StoredType>(name, member), v.text(name, member), v.code(name, member).
template <class V>
void runFields(V& v) {
    v.text("run_id", &Run::runId);
    v.text("name", &Run::name);
    v.text("dataset", &Run::dataset);
    v.template number<std::int32_t>("source_line", &Run::sourceLine);
    v.text("status", &Run::status);
    v.text("series", &Run::series);
    v.code("family", &Run::family);
    v.code("experiment_set", &Run::experimentSet);
    v.template number<double>("context", &Run::context);
    v.text("spec_name", &Run::specName);
    for (auto [name, member] : {std::pair{"d_model", &Run::dModel}, {"n_layers", &Run::nLayers}, {"n_heads", &Run::nHeads},
                                {"n_kv_heads", &Run::nKvHeads}, {"d_qk", &Run::dQk}, {"d_hv", &Run::dHv}, {"d_ff", &Run::dFf},
                                {"vocab", &Run::vocab}, {"chunk", &Run::chunk}})
        v.template number<std::int64_t>(name, member);
    for (auto [name, member] : {std::pair{"params", &Run::params}, {"tokens", &Run::tokens}, {"flops", &Run::flops},
                                {"budget", &Run::budget}, {"batch_size", &Run::batchSize}, {"steps", &Run::steps},
                                {"learning_rate", &Run::learningRate}, {"step", &Run::step}, {"val_loss", &Run::valLoss},
                                {"train_loss", &Run::trainLoss}})
        v.template number<double>(name, member);
    v.code("intermediate_checkpoint", &Run::intermediateCheckpoint);
    v.text("sweep_left_out", &Run::sweepLeftOut);
    v.code("selected_in_paper", &Run::selectedInPaper);
    v.code("params_source", &Run::paramsSource);
    v.code("tokens_source", &Run::tokensSource);
    v.code("flops_source", &Run::flopsSource);
    v.code("user_included", &Run::userIncluded);
    v.text("raw_cells", [](Run& r) -> std::string& { return r.raw.joined; });
}

// Member or accessor of a run.
template <class M>
auto& field(Run& r, M m) {
    if constexpr (std::is_member_object_pointer_v<M>) return r.*m;
    else return m(r);
}

struct WriteRuns {
    ColumnWriter& w;
    const std::vector<Run>& runs;
    Run& at(std::size_t i) const { return const_cast<Run&>(runs[i]); }  // read only
    template <class T, class M>
    void number(const std::string& name, M m) { w.numbers<T>(name, runs.size(), [&](std::size_t i) { return field(at(i), m); }); }
    template <class M>
    void text(const std::string& name, M m) { w.text(name, runs.size(), [&](std::size_t i) { return std::string_view(field(at(i), m)); }); }
    template <class M>
    void code(const std::string& name, M m) { w.numbers<std::uint8_t>(name, runs.size(), [&](std::size_t i) { return codeOf(field(at(i), m)); }); }
};

// Checks the fixed-width columns' lengths, so that a damaged count allocates nothing.
struct SizeRuns {
    ColumnReader& r;
    std::size_t n;
    template <class T, class M>
    void number(const std::string& name, M) { if (!r.error) r.hasRows<T>(name, n); }
    template <class M>
    void text(const std::string&, M) {}
    template <class M>
    void code(const std::string& name, M) { if (!r.error) r.hasRows<std::uint8_t>(name, n); }
};

struct ReadRuns {
    ColumnReader& r;
    std::vector<Run>& runs;
    template <class T, class M>
    void number(const std::string& name, M m) {
        r.numbers<T>(name, runs.size(), [&](std::size_t i, T v) {
            field(runs[i], m) = static_cast<std::remove_reference_t<decltype(field(runs[i], m))>>(v);
            return true;
        });
    }
    template <class M>
    void text(const std::string& name, M m) { r.text(name, runs.size(), [&](std::size_t i, std::string_view s) { field(runs[i], m) = s; }); }
    template <class M>
    void code(const std::string& name, M m) {
        r.numbers<std::uint8_t>(name, runs.size(), [&](std::size_t i, std::uint8_t c) { return decode(c, field(runs[i], m)); });
    }
};

// Lists of strings (a run's problems, a header's names): a count per list, then every string in order.
template <class List>
void writeLists(ColumnWriter& w, const std::string& counts, const std::string& strings, std::size_t n, List list) {
    std::vector<std::string_view> all;
    for (std::size_t i = 0; i < n; ++i)
        for (const auto& s : list(i)) all.push_back(s);
    w.numbers<std::uint32_t>(counts, n, [&](std::size_t i) { return list(i).size(); });
    w.text(strings, all.size(), [&](std::size_t i) { return all[i]; });
}
template <class List>
bool readLists(ColumnReader& r, const std::string& counts, const std::string& strings, std::size_t n, List list) {
    std::vector<std::uint32_t> count(n);
    std::uint64_t total = 0;
    if (!r.numbers<std::uint32_t>(counts, n, [&](std::size_t i, std::uint32_t c) { return total += c, count[i] = c, true; })) return false;
    std::vector<std::string_view> dictionary;
    std::vector<std::uint32_t> codes;
    if (!r.text(strings, total, dictionary, codes)) return false;
    for (std::size_t i = 0, k = 0; i < n; ++i)
        for (std::uint32_t c = 0; c < count[i]; ++c) list(i).emplace_back(dictionary[codes[k++]]);
    return true;
}

std::string blockColumn(std::size_t block, const std::string& what) { return "checkpoints[" + std::to_string(block) + "]." + what; }

// The fields of a compact checkpoint row that are doubles.
constexpr std::array<const char*, 5> kCheckpointNumbers{"step", "tokens", "flops", "val_loss", "train_loss"};
double& checkpointNumber(CheckpointValues& v, std::size_t k) {
    return *std::array<double*, 5>{&v.step, &v.tokens, &v.flops, &v.valLoss, &v.trainLoss}[k];
}

}  // namespace

QByteArray encodeRunTableColumns(const RunTable& table) {
    ColumnWriter w;
    const auto& runs = table.runs;
    WriteRuns writeRuns{w, runs};
    runFields(writeRuns);

    writeLists(w, "problem_count", "problems", runs.size(), [&](std::size_t i) -> const auto& { return runs[i].problems; });

    // Headers of the source cells, each once (rows share them), -1 for none.
    std::vector<const std::vector<std::string>*> headers;
    auto headerIndex = [&](const std::shared_ptr<const std::vector<std::string>>& h) -> std::int32_t {
        if (!h) return -1;
        const auto it = std::find(headers.begin(), headers.end(), h.get());
        if (it != headers.end()) return static_cast<std::int32_t>(it - headers.begin());
        headers.push_back(h.get());
        return static_cast<std::int32_t>(headers.size() - 1);
    };
    const std::shared_ptr<const std::vector<std::string>>* last = nullptr;
    std::int32_t lastIndex = -1;
    w.numbers<std::int32_t>("raw_header", runs.size(), [&](std::size_t i) {
        if (!last || *last != runs[i].raw.header) lastIndex = headerIndex(runs[i].raw.header);
        last = &runs[i].raw.header;
        return lastIndex;
    });

    QJsonArray blocks;
    for (std::size_t b = 0; b < table.compactCheckpoints.size(); ++b) {
        const CheckpointBlock& block = table.compactCheckpoints[b];
        static const CheckpointRows kNone(nullptr);
        const CheckpointRows& rows = block.rows ? *block.rows : kNone;
        const std::size_t n = rows.size();
        blocks.append(QJsonObject{{"rows", static_cast<qint64>(n)},
                                  {"run_offset", static_cast<qint64>(block.runOffset)},
                                  {"header", headerIndex(rows.header())}});
        w.numbers<std::uint32_t>(blockColumn(b, "template"), n, [&](std::size_t i) { return rows.templateRun(i); });
        w.numbers<std::uint32_t>(blockColumn(b, "runs_before"), n, [&](std::size_t i) { return rows.runsBefore(i); });
        w.numbers<std::int32_t>(blockColumn(b, "line"), n, [&](std::size_t i) { return rows.sourceLine(i); });
        for (std::size_t k = 0; k < kCheckpointNumbers.size(); ++k)
            w.numbers<double>(blockColumn(b, kCheckpointNumbers[k]), n, [&](std::size_t i) {
                CheckpointValues v = rows.point(i);
                return checkpointNumber(v, k);
            });
        w.numbers<std::uint8_t>(blockColumn(b, "sources"), n, [&](std::size_t i) {
            const CheckpointValues v = rows.point(i);
            return static_cast<unsigned>(v.tokensSource) | (static_cast<unsigned>(v.flopsSource) << 4);
        });
        for (std::size_t c = 0; c < rows.columns(); ++c)
            w.text(blockColumn(b, "cells[" + std::to_string(c) + "]"), n, [&](std::size_t i) { return rows.cell(i, c); });
    }

    writeLists(w, "header_sizes", "headers", headers.size(), [&](std::size_t i) -> const auto& { return *headers[i]; });

    QJsonArray mapping;
    for (const auto& c : table.mapping)
        mapping.append(QJsonObject{{"field", QString::fromStdString(c.field)}, {"column", QString::fromStdString(c.column)},
                                   {"rule", QString::fromStdString(c.rule)}, {"alternatives", strings(c.alternatives)}});
    QJsonArray considered;
    for (const auto& g : table.seriesConsidered)
        considered.append(QJsonObject{{"columns", strings(g.columns)}, {"series", static_cast<qint64>(g.series)},
                                      {"clashes", static_cast<qint64>(g.clashes)}, {"single_size", g.singleSize},
                                      {"chosen", g.chosen}, {"verdict", QString::fromStdString(g.verdict)}});
    const QJsonObject meta{{"runs", static_cast<qint64>(runs.size())}, {"headers", static_cast<qint64>(headers.size())},
                           {"blocks", blocks}, {"mapping", mapping}, {"series_by", strings(table.seriesBy)},
                           {"series_considered", considered}, {"notes", strings(table.notes)}, {"columns", w.directory()}};
    const QByteArray json = QJsonDocument(meta).toJson(QJsonDocument::Compact);

    QByteArray out;
    out.reserve(24 + json.size() + w.payload().size());
    out.append(kMagic, 16);
    char word[4];
    storeLe<std::uint32_t>(word, kRunColumnsVersion);
    out.append(word, 4);
    storeLe<std::uint32_t>(word, static_cast<std::uint32_t>(json.size()));
    out.append(word, 4);
    out.append(json);
    out.append(w.payload());
    return out;
}

Expected<RunTable> decodeRunTableColumns(const QByteArray& bytes, const std::string& file) {
    ColumnReader r(bytes, file);
    if (auto e = r.open()) return *e;
    const QJsonObject& meta = r.meta();
    RunTable table;

    // Counts are checked against a column before anything is allocated for them.
    auto count = [&](const char* key, const std::string& column, std::int64_t have) -> std::optional<std::size_t> {
        const QJsonValue v = meta.value(QLatin1String(key));
        if (have < 0) return std::nullopt;
        if (!v.isDouble() || v.toDouble() != static_cast<double>(have)) {
            r.fail(column, std::string("wrong length: ") + std::to_string(have) + " rows, the directory's \"" + key + "\" says " +
                               std::to_string(static_cast<std::int64_t>(v.toDouble(-1))));
            return std::nullopt;
        }
        return static_cast<std::size_t>(have);
    };
    const auto runCount = count("runs", "source_line", r.rows<std::int32_t>("source_line"));
    if (!runCount) return *r.error;
    SizeRuns sizeRuns{r, *runCount};
    runFields(sizeRuns);
    if (r.error) return *r.error;
    table.runs.resize(*runCount);
    ReadRuns readRuns{r, table.runs};
    runFields(readRuns);
    if (r.error) return *r.error;

    if (!readLists(r, "problem_count", "problems", *runCount, [&](std::size_t i) -> auto& { return table.runs[i].problems; }))
        return *r.error;

    const auto headerCount = count("headers", "header_sizes", r.rows<std::uint32_t>("header_sizes"));
    if (!headerCount) return *r.error;
    std::vector<std::vector<std::string>> headerNames(*headerCount);
    if (!readLists(r, "header_sizes", "headers", *headerCount, [&](std::size_t i) -> auto& { return headerNames[i]; })) return *r.error;
    std::vector<CheckpointRows::Header> headers;
    for (auto& names : headerNames) headers.push_back(std::make_shared<const std::vector<std::string>>(std::move(names)));
    auto header = [&](std::int64_t i) { return i >= 0 && i < static_cast<std::int64_t>(headers.size()) ? headers[i] : nullptr; };
    auto validHeader = [&](std::int64_t i) { return i >= -1 && i < static_cast<std::int64_t>(headers.size()); };
    r.numbers<std::int32_t>("raw_header", *runCount, [&](std::size_t i, std::int32_t h) {
        table.runs[i].raw.header = header(h);
        return validHeader(h);
    });
    if (r.error) return *r.error;

    // Compact checkpoints.
    const QJsonArray blocks = meta.value("blocks").toArray();
    for (int b = 0; b < blocks.size(); ++b) {
        const QJsonObject o = blocks[b].toObject();
        const std::int64_t have = r.rows<std::uint32_t>(blockColumn(b, "template"));
        if (have < 0) return *r.error;
        const auto rowsOf = static_cast<std::size_t>(have);
        if (o.value("rows").toDouble(-1) != static_cast<double>(have))
            return r.fail(blockColumn(b, "template"), "wrong length: " + std::to_string(have) + " rows, the directory says " +
                                                          std::to_string(static_cast<std::int64_t>(o.value("rows").toDouble(-1))));
        const double offset = o.value("run_offset").toDouble(-1);
        const double h = o.value("header").toDouble(-2);
        if (offset < 0 || offset > static_cast<double>(*runCount) || offset != std::floor(offset) || !validHeader(static_cast<std::int64_t>(h)) ||
            h != std::floor(h))
            return r.fail(blockColumn(b, "template"), "the directory gives no valid run offset or header for the block");
        const auto runOffset = static_cast<std::size_t>(offset);
        auto rows = std::make_shared<CheckpointRows>(header(static_cast<std::int64_t>(h)));
        const std::size_t templates = *runCount - runOffset;

        // Every fixed-width column first, so that a damaged count allocates nothing.
        bool sized = r.hasRows<std::uint32_t>(blockColumn(b, "runs_before"), rowsOf) && r.hasRows<std::int32_t>(blockColumn(b, "line"), rowsOf) &&
                     r.hasRows<std::uint8_t>(blockColumn(b, "sources"), rowsOf);
        for (const char* k : kCheckpointNumbers) sized = sized && r.hasRows<double>(blockColumn(b, k), rowsOf);
        if (!sized) return *r.error;
        // Checked first, then read row by row straight from the bytes (no copy of the block).
        Provenance p;
        r.numbers<std::uint32_t>(blockColumn(b, "template"), rowsOf, [&](std::size_t, std::uint32_t t) { return t < templates; });
        r.numbers<std::uint32_t>(blockColumn(b, "runs_before"), rowsOf, [&](std::size_t, std::uint32_t t) { return t <= templates; });
        r.numbers<std::uint8_t>(blockColumn(b, "sources"), rowsOf, [&](std::size_t, std::uint8_t s) { return decode(s & 0xF, p) && decode(s >> 4, p); });
        const std::size_t columns = rows->header() ? rows->header()->size() : 0;
        std::vector<std::vector<std::string_view>> cellDictionary(columns);
        std::vector<std::vector<std::uint32_t>> cellCodes(columns);
        for (std::size_t c = 0; c < columns && !r.error; ++c)
            r.text(blockColumn(b, "cells[" + std::to_string(c) + "]"), rowsOf, cellDictionary[c], cellCodes[c]);
        if (r.error) return *r.error;
        rows->reserve(rowsOf);
        const char* templ = r.data(blockColumn(b, "template"));
        const char* before = r.data(blockColumn(b, "runs_before"));
        const char* line = r.data(blockColumn(b, "line"));
        const char* sources = r.data(blockColumn(b, "sources"));
        std::array<const char*, kCheckpointNumbers.size()> numbers;
        for (std::size_t k = 0; k < numbers.size(); ++k) numbers[k] = r.data(blockColumn(b, kCheckpointNumbers[k]));
        std::vector<std::string_view> cells(columns);
        for (std::size_t i = 0; i < rowsOf; ++i) {
            CheckpointValues v;
            v.line = loadLe<std::int32_t>(line + 4 * i);
            for (std::size_t k = 0; k < numbers.size(); ++k) checkpointNumber(v, k) = loadLe<double>(numbers[k] + 8 * i);
            decode(sources[i] & 0xF, v.tokensSource);
            decode(static_cast<std::uint8_t>(sources[i]) >> 4, v.flopsSource);
            for (std::size_t c = 0; c < columns; ++c) cells[c] = cellDictionary[c][cellCodes[c][i]];
            rows->append(loadLe<std::uint32_t>(templ + 4 * i), loadLe<std::uint32_t>(before + 4 * i), v, cells.data());
        }
        table.compactCheckpoints.push_back({std::move(rows), runOffset});
    }

    for (const auto& c : meta.value("mapping").toArray()) {
        const QJsonObject o = c.toObject();
        table.mapping.push_back({o.value("field").toString().toStdString(), o.value("column").toString().toStdString(),
                                 o.value("rule").toString().toStdString(), strings(o.value("alternatives"))});
    }
    table.seriesBy = strings(meta.value("series_by"));
    for (const auto& c : meta.value("series_considered").toArray()) {
        const QJsonObject o = c.toObject();
        table.seriesConsidered.push_back({strings(o.value("columns")), static_cast<std::size_t>(std::max(0.0, o.value("series").toDouble())),
                                          static_cast<std::size_t>(std::max(0.0, o.value("clashes").toDouble())), o.value("single_size").toBool(),
                                          o.value("chosen").toBool(), o.value("verdict").toString().toStdString()});
    }
    table.notes = strings(meta.value("notes"));
    return table;
}

}  // namespace scalex::data
