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

}  // namespace scalex::data
