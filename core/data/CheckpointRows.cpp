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

void CheckpointRows::append(std::uint32_t templateRun, std::uint32_t runsBefore, const Run& row,
                            const std::string_view* cells) {
    template_.push_back(templateRun);
    runsBefore_.push_back(runsBefore);
    line_.push_back(row.sourceLine);
    step_.push_back(row.step);
    tokens_.push_back(row.tokens);
    flops_.push_back(row.flops);
    valLoss_.push_back(row.valLoss);
    trainLoss_.push_back(row.trainLoss);
    sources_.push_back(static_cast<std::uint8_t>(static_cast<unsigned>(row.tokensSource) |
                                                 (static_cast<unsigned>(row.flopsSource) << 4)));
    for (std::size_t c = 0; c < cells_.size(); ++c) cells_[c].push(cells[c]);
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
    out.sourceLine = line_[i];
    out.step = step_[i];
    out.tokens = tokens_[i];
    out.flops = flops_[i];
    out.valLoss = valLoss_[i];
    out.trainLoss = trainLoss_[i];
    out.tokensSource = static_cast<Provenance>(sources_[i] & 0xF);
    out.flopsSource = static_cast<Provenance>(sources_[i] >> 4);
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
        v.shrink_to_fit();
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
