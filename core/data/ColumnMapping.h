#pragma once
// Which column of a run table holds which field of a Run. Detected from the header by common
// spellings, or set by the user (and saved as JSON) for files whose names are unusual.
#include <QByteArray>
#include <QJsonObject>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::data {

enum class RunField {
    RunId, Name, Dataset, Series, Family, ExperimentSet, Status, Context,
    DModel, NLayers, NHeads, NKvHeads, DQk, DHv, DFf, Vocab, Chunk,
    Params, Tokens, Flops, Budget, BatchSize, Steps, LearningRate, Step,
    ValLoss, TrainLoss, SelectedInPaper, FlopMode,
    ParamsSource, TokensSource, FlopsSource, Included,
};
inline constexpr int kRunFieldCount = static_cast<int>(RunField::Included) + 1;

// Stable key of a field, used in mapping JSON and as the column name the CSV writer uses
// (e.g. Params -> "num_params", FlopMode -> "attention_flop_calc_mode").
std::string_view fieldKey(RunField field);
std::optional<RunField> fieldByKey(std::string_view key);
// The field a column name stands for: its key or any of its spellings.
std::optional<RunField> fieldBySpelling(std::string_view name);
// Spellings recognised automatically, in order of preference (compared case-insensitively,
// with spaces, dots and hyphens read as underscores).
const std::vector<std::string_view>& fieldSpellings(RunField field);
// Lower-case, trimmed, [ .-/] -> '_': the form header names are compared in.
std::string normalizeColumnName(std::string_view name);
// The factor that turns a compute column's values into FLOPs, from the unit its name gives:
// "throughput/total_gflops" -> 1e9, "PF-days" / "petaflop_days" -> 8.64e19 (1e15 FLOP/s for a
// day), "tflops" -> 1e12, "pflops" -> 1e15, "eflops" -> 1e18, "zflops" -> 1e21; 1 for plain FLOPs.
// The unit's name as the column says it, for reports ("GFLOPs"); empty for plain FLOPs.
struct ComputeUnit {
    double factor = 1;
    std::string name;
};
ComputeUnit computeUnit(std::string_view column);
// Column names that say what a run is (its model or method), after the family column, in order of
// preference: the default grouping of runs into series when the user names none.
const std::vector<std::string_view>& seriesColumnSpellings();

class ColumnMapping {
public:
    // Field -> column name as it appears in the header.
    void set(RunField field, std::string column) { columns_[field] = std::move(column); }
    void clear(RunField field) { columns_.erase(field); }
    std::optional<std::string> column(RunField field) const;
    const std::map<RunField, std::string>& entries() const { return columns_; }
    bool empty() const { return columns_.empty(); }

    // The mapping for `header`: each field takes the first of its spellings the header has; a field with
    // none takes the column its name pattern matches (a word "loss" with no "train"; of several, the one with
    // the fewest other words, then the leftmost); a configuration field still without one, a spelling after a
    // W&B prefix ending in '.' or '/' (model.context_length). `report` gets every choice and what it passed over.
    static ColumnMapping detect(const std::vector<std::string>& header, std::vector<ColumnChoice>* report = nullptr);

    // {"num_params": "Params (M)", ...}; unknown keys or non-string values are errors.
    QJsonObject toJson() const;
    static Expected<ColumnMapping> fromJson(const QJsonObject& object, const std::string& file = "mapping");
    QByteArray toJsonBytes() const;
    static Expected<ColumnMapping> fromJsonBytes(const QByteArray& bytes, const std::string& file = "mapping");
    // Saved with QSaveFile (temporary file + rename).
    std::optional<LoadError> save(const std::string& path) const;
    static Expected<ColumnMapping> load(const std::string& path);

    friend bool operator==(const ColumnMapping&, const ColumnMapping&) = default;

private:
    std::map<RunField, std::string> columns_;
};

}  // namespace scalex::data
