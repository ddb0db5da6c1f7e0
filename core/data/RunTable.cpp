#include "core/data/RunTable.h"

#include "core/data/ColumnMapping.h"

namespace scalex::data {

std::vector<std::string_view> RawCells::split() const {
    std::vector<std::string_view> out;
    if (!header) return out;
    std::string_view s = joined;
    std::size_t b = 0;
    for (;;) {
        const std::size_t e = s.find('\x1f', b);
        if (e == std::string_view::npos) {
            out.push_back(s.substr(b));
            break;
        }
        out.push_back(s.substr(b, e - b));
        b = e + 1;
    }
    return out;
}

std::optional<std::string> RawCells::value(std::string_view column) const {
    if (!header) return std::nullopt;
    const std::string want = normalizeColumnName(column);
    for (std::size_t i = 0; i < header->size(); ++i)
        if ((*header)[i] == column || normalizeColumnName((*header)[i]) == want) {
            const auto cells = split();
            return i < cells.size() ? std::string(cells[i]) : std::string();
        }
    return std::nullopt;
}

std::size_t RunTable::compactRows() const {
    std::size_t n = 0;
    for (const auto& b : compactCheckpoints) n += b.rows ? b.rows->size() : 0;
    return n;
}

void forEachRow(const RunTable& table, const std::function<void(const Run&)>& f, bool withCells) {
    // Each block's rows come after `runOffset + runsBefore` runs; blocks are in table order.
    std::vector<std::size_t> next(table.compactCheckpoints.size(), 0);
    Run scratch;
    const Run* filledFrom = nullptr;  // the template `scratch` holds, when only the curve changes row to row
    auto compactUpTo = [&](std::size_t runsDone) {
        for (std::size_t b = 0; b < table.compactCheckpoints.size(); ++b) {
            const CheckpointBlock& block = table.compactCheckpoints[b];
            if (!block.rows) continue;
            for (std::size_t& i = next[b]; i < block.rows->size() && block.runOffset + block.rows->runsBefore(i) <= runsDone; ++i) {
                const Run& templ = table.templateOf(block, i);
                if (!withCells && &templ == filledFrom) block.rows->point(i).into(scratch);
                else block.rows->fill(i, templ, scratch, withCells);
                filledFrom = withCells ? nullptr : &templ;
                f(scratch);
            }
        }
    };
    for (std::size_t r = 0; r < table.runs.size(); ++r) {
        compactUpTo(r);
        f(table.runs[r]);
    }
    compactUpTo(table.runs.size());
}

}  // namespace scalex::data
