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

namespace scalex::data {

enum class RunField {
    RunId, Name, Dataset, Family, ExperimentSet, Status, Context,
    DModel, NLayers, NHeads, NKvHeads, DQk, DHv, DFf, Vocab, Chunk,
    Params, Tokens, Flops, Budget, BatchSize, Steps, LearningRate,
    ValLoss, TrainLoss, SelectedInPaper, FlopMode,
    ParamsSource, TokensSource, FlopsSource, Included,
};
inline constexpr int kRunFieldCount = static_cast<int>(RunField::Included) + 1;

// Stable key of a field, used in mapping JSON and as the column name the CSV writer uses
// (e.g. Params -> "num_params", FlopMode -> "attention_flop_calc_mode").
std::string_view fieldKey(RunField field);
std::optional<RunField> fieldByKey(std::string_view key);
// Spellings recognised automatically, in order of preference (compared case-insensitively,
// with spaces, dots and hyphens read as underscores).
const std::vector<std::string_view>& fieldSpellings(RunField field);
// Lower-case, trimmed, [ .-] -> '_': the form header names are compared in.
std::string normalizeColumnName(std::string_view name);

class ColumnMapping {
public:
    // Field -> column name as it appears in the header.
    void set(RunField field, std::string column) { columns_[field] = std::move(column); }
    void clear(RunField field) { columns_.erase(field); }
    std::optional<std::string> column(RunField field) const;
    const std::map<RunField, std::string>& entries() const { return columns_; }
    bool empty() const { return columns_.empty(); }

    // The mapping the common spellings give for `header`; fields without a match stay unset.
    static ColumnMapping detect(const std::vector<std::string>& header);

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
