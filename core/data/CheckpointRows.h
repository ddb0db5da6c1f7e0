#pragma once
// The intermediate checkpoints of a table of checkpoints, stored as columns (issue "Millions of
// rows"). A row here equals a full run of the table (its template, the first row of the same run)
// in every field but those that change along training: line, step, D, C, losses, the provenance of
// D and C, and the source cells, which are kept for every column. Rows with problems, and rows that
// differ from their run in anything else, stay full runs in RunTable::runs; so does each run's last
// checkpoint. `fill` gives a row back as the Run the reader would have made of it.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/data/TextColumn.h"

namespace scalex::data {

struct Run;
enum class Provenance;

// What a checkpoint row holds beside its template: the fields that change along training.
struct CheckpointValues {
    int line = 0;
    double step = 0, tokens = 0, flops = 0, valLoss = 0, trainLoss = 0;
    Provenance tokensSource{}, flopsSource{};
    static CheckpointValues of(const Run& run);
    // Writes these fields into `run` (whose other fields are its template's).
    void into(Run& run) const;
};

class CheckpointRows {
public:
    using Header = std::shared_ptr<const std::vector<std::string>>;
    explicit CheckpointRows(Header header);

    std::size_t size() const { return line_.size(); }
    const Header& header() const { return header_; }
    void reserve(std::size_t rows);

    // Appends `row` (read from `cells`, one per header column), whose other fields equal those of the table's run
    // `templateRun`; `runsBefore` of the table's runs come before it in the source.
    void append(std::uint32_t templateRun, std::uint32_t runsBefore, const CheckpointValues& row, const std::string_view* cells);

    std::uint32_t templateRun(std::size_t i) const { return template_[i]; }
    std::uint32_t runsBefore(std::size_t i) const { return runsBefore_[i]; }
    void setTemplateRun(std::size_t i, std::uint32_t run) { template_[i] = run; }
    void setRunsBefore(std::size_t i, std::uint32_t n) { runsBefore_[i] = n; }

    int sourceLine(std::size_t i) const { return line_[i]; }
    double step(std::size_t i) const { return step_[i]; }
    double tokens(std::size_t i) const { return tokens_[i]; }
    double flops(std::size_t i) const { return flops_[i]; }
    double valLoss(std::size_t i) const { return valLoss_[i]; }
    double trainLoss(std::size_t i) const { return trainLoss_[i]; }
    double loss(std::size_t i) const;  // as Run::loss
    CheckpointValues point(std::size_t i) const;
    std::size_t columns() const { return cells_.size(); }
    std::string_view cell(std::size_t i, std::size_t column) const { return cells_[column].at(i); }
    // The cells as RawCells::joined holds them.
    std::string joinedCells(std::size_t i) const;

    // Row i as a run: `templ` (its template run) with this row's values; intermediateCheckpoint set.
    // withCells false: no source cells (raw empty), for callers that read fields only.
    void fill(std::size_t i, const Run& templ, Run& out, bool withCells = true) const;

    // Keeps the rows whose `keep` is true, in order.
    void keepRows(const std::vector<bool>& keep);
    // Bytes held (for reports and benchmarks).
    std::size_t bytes() const;

private:
    Header header_;
    std::vector<std::uint32_t> template_, runsBefore_;
    std::vector<std::int32_t> line_;
    std::vector<double> step_, tokens_, flops_, valLoss_, trainLoss_;
    std::vector<std::uint8_t> sources_;  // provenance of D (low nibble) and C (high nibble)
    std::vector<TextColumn> cells_;      // one per header column (a compact row has every cell)
};

// The compact rows of one source table inside a (possibly merged) RunTable: their template
// indices count from runOffset in RunTable::runs.
struct CheckpointBlock {
    std::shared_ptr<const CheckpointRows> rows;
    std::size_t runOffset = 0;
};

}  // namespace scalex::data
