#include "core/data/CheckpointRows.h"

#include "core/data/RunTable.h"

namespace scalex::data {

CheckpointRows::CheckpointRows(Header header) : header_(std::move(header)) {
    cells_.resize(header_ ? header_->size() : 0);
}

void CheckpointRows::reserve(std::size_t rows) {
    for (auto* v : {&template_, &runsBefore_}) v->reserve(rows);
    line_.reserve(rows);
    for (auto* v : {&step_, &tokens_, &flops_, &valLoss_, &trainLoss_}) v->reserve(rows);
    sources_.reserve(rows);
    for (auto& c : cells_) c.reserve(rows);
}

CheckpointValues CheckpointValues::of(const Run& run) {
    return {run.sourceLine, run.step, run.tokens, run.flops, run.valLoss, run.trainLoss, run.tokensSource, run.flopsSource};
}

void CheckpointValues::into(Run& run) const {
    run.sourceLine = line;
    run.step = step;
    run.tokens = tokens;
    run.flops = flops;
    run.valLoss = valLoss;
    run.trainLoss = trainLoss;
    run.tokensSource = tokensSource;
    run.flopsSource = flopsSource;
}

void CheckpointRows::append(std::uint32_t templateRun, std::uint32_t runsBefore, const CheckpointValues& row,
                            const std::string_view* cells) {
    template_.push_back(templateRun);
    runsBefore_.push_back(runsBefore);
    line_.push_back(row.line);
    step_.push_back(row.step);
    tokens_.push_back(row.tokens);
    flops_.push_back(row.flops);
    valLoss_.push_back(row.valLoss);
    trainLoss_.push_back(row.trainLoss);
    sources_.push_back(static_cast<std::uint8_t>(static_cast<unsigned>(row.tokensSource) |
                                                 (static_cast<unsigned>(row.flopsSource) << 4)));
    for (std::size_t c = 0; c < cells_.size(); ++c) cells_[c].push(cells[c]);
}

CheckpointValues CheckpointRows::point(std::size_t i) const {
    return {line_[i], step_[i], tokens_[i], flops_[i], valLoss_[i], trainLoss_[i], static_cast<Provenance>(sources_[i] & 0xF),
            static_cast<Provenance>(sources_[i] >> 4)};
}

double CheckpointRows::loss(std::size_t i) const { return known(valLoss_[i]) ? valLoss_[i] : trainLoss_[i]; }

std::string CheckpointRows::joinedCells(std::size_t i) const {
    std::string out;
    for (std::size_t c = 0; c < cells_.size(); ++c) {
        if (c) out += '\x1f';
        out += cells_[c].at(i);
    }
    return out;
}

void CheckpointRows::fill(std::size_t i, const Run& templ, Run& out, bool withCells) const {
    out = templ;
    point(i).into(out);
    out.intermediateCheckpoint = true;
    out.raw.header = withCells ? header_ : nullptr;
    if (withCells) out.raw.joined = joinedCells(i);
    else out.raw.joined.clear();
}

void CheckpointRows::keepRows(const std::vector<bool>& keep) {
    auto filter = [&](auto& v) {
        std::size_t o = 0;
        for (std::size_t i = 0; i < v.size(); ++i)
            if (keep[i]) v[o++] = v[i];
        v.resize(o);
    };
    filter(template_);
    filter(runsBefore_);
    filter(line_);
    filter(step_);
    filter(tokens_);
    filter(flops_);
    filter(valLoss_);
    filter(trainLoss_);
    filter(sources_);
    for (auto& c : cells_) c.keepRows(keep);
}

std::size_t CheckpointRows::bytes() const {
    std::size_t b = (template_.capacity() + runsBefore_.capacity() + line_.capacity()) * 4 +
                    (step_.capacity() + tokens_.capacity() + flops_.capacity() + valLoss_.capacity() + trainLoss_.capacity()) * 8 +
                    sources_.capacity();
    for (const auto& c : cells_) b += c.bytes();
    return b;
}

}  // namespace scalex::data
