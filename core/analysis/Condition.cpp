#include "core/analysis/Condition.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

#include "core/data/ColumnMapping.h"
#include "core/data/Series.h"

namespace scalex::analysis {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

double toNumber(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    double v = data::kUnknown;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty() ? v : data::kUnknown;
}

bool sameText(std::string_view a, std::string_view b) {
    a = trim(a);
    b = trim(b);
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::string RowCondition::text() const {
    const char* ops[] = {"=", "!=", "<", ">", "<=", ">="};
    // "a==" + "=x": with a single '=' the text would read back as a==x.
    if (op == Op::Equal && value.starts_with('=')) return column + "==" + value;
    return column + ops[static_cast<int>(op)] + value;
}

data::Expected<RowCondition> parseCondition(std::string_view text) {
    // The first operator character splits column from value; two-character operators first.
    const std::size_t at = text.find_first_of("=!<>");
    const std::string expected = "expected COLUMN=VALUE, COLUMN!=VALUE, COLUMN<X, COLUMN>X, COLUMN<=X or COLUMN>=X";
    if (at == std::string_view::npos || at == 0)
        return data::LoadError{"--where", 0, std::string(text), expected};
    RowCondition c;
    c.column = std::string(trim(text.substr(0, at)));
    std::string_view rest = text.substr(at);
    using Op = RowCondition::Op;
    if (rest.starts_with("!=")) c.op = Op::NotEqual, rest.remove_prefix(2);
    else if (rest.starts_with("<=")) c.op = Op::LessEqual, rest.remove_prefix(2);
    else if (rest.starts_with(">=")) c.op = Op::GreaterEqual, rest.remove_prefix(2);
    else if (rest.starts_with("==")) c.op = Op::Equal, rest.remove_prefix(2);
    else if (rest.starts_with("=")) c.op = Op::Equal, rest.remove_prefix(1);
    else if (rest.starts_with("<")) c.op = Op::Less, rest.remove_prefix(1);
    else if (rest.starts_with(">")) c.op = Op::Greater, rest.remove_prefix(1);
    else return data::LoadError{"--where", 0, std::string(text), expected};
    if (c.column.empty()) return data::LoadError{"--where", 0, std::string(text), expected + " (no column before the operator)"};
    c.value = std::string(trim(rest));
    c.number = toNumber(c.value);
    if ((c.op != Op::Equal && c.op != Op::NotEqual) && std::isnan(c.number))
        return data::LoadError{"--where", 0, std::string(text), "'" + c.value + "' is not a number (" + expected + ")"};
    return c;
}

bool meetsAll(const data::Run& run, const std::vector<RowCondition>& conditions) {
    return std::all_of(conditions.begin(), conditions.end(), [&](const RowCondition& c) { return meets(run, c); });
}

bool meets(const data::Run& run, const RowCondition& c, bool* unknownColumn) {
    using Op = RowCondition::Op;
    if (c.op == Op::Equal || c.op == Op::NotEqual) {
        // A family is compared by what it names, so llama matches transformer.
        if (data::fieldBySpelling(c.column) == data::RunField::Family)
            if (const auto family = accounting::parseFamily(c.value)) {
                const bool equal = run.family == *family;
                return c.op == Op::Equal ? equal : !equal;
            }
        const auto v = data::runValue(run, c.column);
        if (!v) {
            if (unknownColumn) *unknownColumn = true;
            return false;
        }
        bool equal = false;
        if (!std::isnan(c.number)) {
            const auto n = data::runNumber(run, c.column);
            equal = n && !std::isnan(*n) ? *n == c.number : sameText(*v, c.value);
        } else {
            equal = sameText(*v, c.value);
        }
        return c.op == Op::Equal ? equal : !equal;
    }
    const auto n = data::runNumber(run, c.column);
    if (!n) {
        if (unknownColumn) *unknownColumn = true;
        return false;
    }
    if (std::isnan(*n)) return false;
    switch (c.op) {
        case Op::Less: return *n < c.number;
        case Op::Greater: return *n > c.number;
        case Op::LessEqual: return *n <= c.number;
        case Op::GreaterEqual: return *n >= c.number;
        default: return false;
    }
}

std::optional<data::LoadError> checkColumns(const data::RunTable& table, const std::vector<RowCondition>& conditions) {
    for (const auto& c : conditions) {
        if (data::fieldBySpelling(c.column)) continue;
        bool found = false;
        std::string names;
        std::set<std::string> seen;
        const std::vector<std::string>* last = nullptr;
        for (const auto& run : table.runs) {
            if (!run.raw.header || run.raw.header.get() == last) continue;
            last = run.raw.header.get();
            if (run.raw.value(c.column)) {
                found = true;
                break;
            }
            for (const auto& h : *last)
                if (seen.insert(h).second) names += (names.empty() ? "" : ", ") + h;
        }
        if (!found)
            return data::LoadError{"--where", 0, c.column,
                                   "no such column in the runs (" + c.text() + "; columns: " + (names.empty() ? "none" : names) + ")"};
    }
    return std::nullopt;
}

}  // namespace scalex::analysis
