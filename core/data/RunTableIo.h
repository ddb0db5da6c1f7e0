#pragma once
// Reading and writing run tables: CSV and TSV (delimiter detected, RFC 4180 quoting), JSON (an
// array of run objects or {"runs": [...]}), JSON Lines, each optionally gzip-compressed
// (.csv.gz). Columns are mapped by common spellings (ColumnMapping::detect) or by the user's
// mapping. A file that cannot be used yields one LoadError; rows with problems are kept and
// marked (Run::problems), never dropped.
#include <QByteArray>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/FlopCount.h"
#include "core/data/ColumnMapping.h"
#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::data {

enum class RunTableFormat { Auto, Csv, Tsv, Json, JsonLines };

// Limits that keep a wrong or hostile file (a gzip bomb) from exhausting memory while letting a
// logged study open: 2 GiB of (uncompressed) text is ~40M rows of a five-column training log.
inline constexpr std::int64_t kDefaultMaxBytes = 2ll << 30;
inline constexpr std::int64_t kDefaultMaxRows = 50'000'000;
// Tables of checkpoints from this many rows on keep their intermediate checkpoints as columns
// (RunTable::compactCheckpoints); smaller ones keep every row a full run.
inline constexpr std::int64_t kDefaultCompactCheckpointsFrom = 50'000;

struct LoadOptions {
    RunTableFormat format = RunTableFormat::Auto;  // Auto: from the name, else from the content
    std::optional<ColumnMapping> mapping;          // fields set here win over detected ones
    std::vector<std::string> seriesBy;             // group runs by these columns (Series.h); empty: default
    // Convention for C derived from the architecture; empty: the row's attention_flop_calc_mode
    // (chinchilla -> chinchilla, else study).
    std::optional<accounting::FlopConvention> convention;
    bool recomputeFlops = false;  // replace the file's C by the architecture's count
    bool lossRequired = true;     // false for a table of planned runs, whose losses are not known yet
    std::int64_t maxBytes = kDefaultMaxBytes;  // file size, and text size after gunzip
    std::int64_t maxRows = kDefaultMaxRows;
    std::int64_t compactCheckpointsFrom = kDefaultCompactCheckpointsFrom;
    // Called now and then while a delimited table is read, from the reading thread, with the share
    // of the text read (0 to 1); returning false stops the load, which then fails with kLoadCancelled.
    std::function<bool(double)> progress;
};

inline constexpr const char* kLoadCancelled = "the load was cancelled";

Expected<RunTable> loadRunTable(const std::string& path, const LoadOptions& options = {});

// The same from bytes in memory; `name` stands for the file in errors and picks the format.
Expected<RunTable> parseRunTable(const QByteArray& bytes, const std::string& name, const LoadOptions& options = {});

// CSV (RFC 4180, LF line ends) with the canonical column names (fieldKey), then every column of
// the source that no canonical name stands for, as it was; reading it back gives the same table,
// and grouping or filtering by a source column works on it as on the source. Provenance, the
// series and the user's include toggle are written as columns.
QByteArray writeRunTableCsv(const RunTable& table);
// A field of a run as the CSV writer writes it (empty when unknown).
std::string formatField(const Run& run, RunField field);
// Writes with QSaveFile (temporary file + rename).
std::optional<LoadError> saveRunTableCsv(const RunTable& table, const std::string& path);

// Inflates gzip data (one or more members) up to maxBytes of output.
Expected<QByteArray> gunzip(const QByteArray& compressed, const std::string& name, std::int64_t maxBytes);

}  // namespace scalex::data
