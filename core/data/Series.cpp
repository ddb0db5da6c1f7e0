#include "core/data/Series.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "core/data/ColumnMapping.h"
#include "core/data/RunTableIo.h"
#include "core/data/SeriesChoice.h"
#include "core/data/Sweeps.h"

namespace scalex::data {

namespace {

// The name of the column in the source header that `name` stands for (normalized match), if any.
std::optional<std::string> headerColumn(const RunTable& table, const std::string& name) {
    for (const auto& run : table.runs)
        if (run.raw.header) {
            const std::string want = normalizeColumnName(name);
            for (const auto& h : *run.raw.header)
                if (h == name || normalizeColumnName(h) == want) return h;
            return std::nullopt;
        }
    return std::nullopt;
}

std::optional<RunField> fieldNamed(const std::string& name) { return fieldBySpelling(name); }

std::string defaultSeries(const Run& run, const std::vector<std::string>& columns) {
    std::string out;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        if (i) out += " / ";
        out += runValue(run, columns[i]).value_or(std::string());
    }
    return out;
}

}  // namespace

std::optional<std::string> runValue(const Run& run, const std::string& column) {
    if (auto v = run.raw.value(column)) return v;
    if (auto f = fieldNamed(column)) return formatField(run, *f);
    return std::nullopt;
}

std::optional<double> runNumber(const Run& run, const std::string& column) {
    // The run's own numbers first, so that derived N, D, C count (the raw cell may be empty).
    if (auto f = fieldNamed(column)) {
        const std::string text = formatField(run, *f);
        if (!text.empty()) {
            double v = kUnknown;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (ec == std::errc() && end == text.data() + text.size()) return v;
        }
        if (!run.raw.value(column)) return kUnknown;
    }
    auto v = run.raw.value(column);
    if (!v) return std::nullopt;
    std::string_view s = *v;
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double x = kUnknown;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (ec != std::errc() || end != s.data() + s.size()) return kUnknown;
    return x;
}

std::optional<LoadError> checkGroupRunsBy(const RunTable& table, const std::vector<std::string>& columns) {
    if (table.runs.empty()) return std::nullopt;
    for (const auto& c : columns) {
        if (headerColumn(table, c) || fieldNamed(c)) continue;
        std::string known;
        if (table.runs.front().raw.header)
            for (const auto& h : *table.runs.front().raw.header) known += (known.empty() ? "" : ", ") + h;
        return LoadError{table.source, 0, c, "no such column to group runs by (columns: " + known + ")"};
    }
    return std::nullopt;
}

std::string seriesValue(const Run& run, const std::vector<std::string>& columns) {
    const bool familyColumn = columns.size() == 1 && [&] {
        const auto f = fieldNamed(columns.front());
        return f && *f == RunField::Family;
    }();
    std::string s;
    if (familyColumn && run.family) s = std::string(accounting::familyName(*run.family));
    else if (!columns.empty()) s = defaultSeries(run, columns);
    bool blank = true;
    for (char c : s) blank = blank && (c == ' ' || c == '/');
    return blank ? run.dataset : s;
}

std::optional<LoadError> groupRunsBy(RunTable& table, const std::vector<std::string>& columns) {
    if (table.runs.empty()) return std::nullopt;
    std::vector<std::string> by = columns;
    table.seriesConsidered.clear();
    if (by.empty()) {
        // The default: the first grouping whose series are each one experiment (data/SeriesChoice.h).
        SeriesChoice choice = chooseSeriesGrouping(table);
        by = std::move(choice.columns);
        table.seriesConsidered = std::move(choice.considered);
    } else if (auto e = checkGroupRunsBy(table, by)) {
        return e;
    }
    table.seriesBy = by;
    for (auto& run : table.runs) run.series = seriesValue(run, by);
    return std::nullopt;
}

std::vector<std::string> seriesNames(const RunTable& table) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& r : table.runs)
        if (seen.insert(r.series).second) out.push_back(r.series);
    return out;
}

std::string seriesLabel(const std::string& series) {
    if (auto f = accounting::parseFamily(series); f && series == accounting::familyName(*f))
        return std::string(accounting::familyLabel(*f));
    return series;
}

std::string runLabel(const Run& run) {
    if (!run.runId.empty()) return run.runId;
    if (!run.name.empty()) return run.name;
    return run.sourceLine > 0 ? "line " + std::to_string(run.sourceLine) : std::string("?");
}

}  // namespace scalex::data
