#include "core/data/CsvReader.h"

#include <algorithm>
#include <array>

namespace scalex::data {

namespace {

std::string trimmed(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
    return std::string(s.substr(b, e - b));
}

}  // namespace

char detectDelimiter(std::string_view text, char preferred) {
    constexpr std::array<char, 4> candidates{',', '\t', ';', '|'};
    std::array<int, 4> counts{};
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') quoted = !quoted;
        else if (!quoted && (c == '\n' || c == '\r')) {
            if (std::any_of(counts.begin(), counts.end(), [](int n) { return n > 0; })) break;
            continue;  // blank lines before the header
        } else if (!quoted)
            for (std::size_t k = 0; k < candidates.size(); ++k)
                if (c == candidates[k]) ++counts[k];
    }
    int best = -1;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
        if (counts[k] == 0) continue;
        if (best < 0 || counts[k] > counts[static_cast<std::size_t>(best)] ||
            (counts[k] == counts[static_cast<std::size_t>(best)] && candidates[k] == preferred))
            best = static_cast<int>(k);
    }
    return best < 0 ? preferred : candidates[static_cast<std::size_t>(best)];
}

Expected<bool> DelimitedScanner::next(RecordView& rec, const std::string& file, const std::vector<std::string>* header) {
    const std::string_view text = text_;
    const char delim = delimiter_;
    const std::size_t n = text.size();
    std::size_t& i = i_;
    int& line = line_;
    // Blank lines carry no data.
    while (i < n && (text[i] == '\n' || text[i] == '\r')) {
        if (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n') ++i;
        ++i;
        ++line;
    }
    if (i >= n) return false;
    rec.line = line;
    rec.cells.clear();
    rec.notes.clear();
    std::size_t scratch = 0;
    auto columnName = [&](std::size_t index) {
        if (header && index < header->size()) return (*header)[index];
        return "#" + std::to_string(index + 1);
    };
    for (;;) {
        if (i < n && text[i] == '"') {
            const int openLine = line;
            const std::size_t open = ++i;
            std::string* cell = nullptr;  // set once the cell differs from its bytes
            std::size_t end = open;
            for (;;) {
                if (i >= n)
                    return LoadError{file, openLine, columnName(rec.cells.size()),
                                     "a quoted field opened here is never closed (truncated file, or a stray '\"'?)"};
                const std::size_t q = text.find('"', i);
                const std::size_t stop = q == std::string_view::npos ? n : q;
                const std::string_view chunk = text.substr(i, stop - i);
                line += static_cast<int>(std::count(chunk.begin(), chunk.end(), '\n'));
                if (cell) cell->append(chunk);
                i = stop;
                if (i >= n) continue;
                if (i + 1 < n && text[i + 1] == '"') {
                    // A doubled quote: from here on the cell is unescaped into a buffer.
                    if (!cell) {
                        if (scratch == unquoted_.size()) unquoted_.emplace_back();
                        cell = &unquoted_[scratch++];
                        cell->assign(text.substr(open, i - open));
                    }
                    *cell += '"';
                    i += 2;
                    continue;
                }
                end = i;
                ++i;  // closing quote
                break;
            }
            const std::size_t s = i;
            while (i < n && text[i] != delim && text[i] != '\n' && text[i] != '\r') ++i;
            if (i > s) {
                if (!cell) {
                    if (scratch == unquoted_.size()) unquoted_.emplace_back();
                    cell = &unquoted_[scratch++];
                    cell->assign(text.substr(open, end - open));
                }
                cell->append(text.substr(s, i - s));
                rec.notes.emplace_back(static_cast<int>(rec.cells.size()), "text after the closing quote");
            }
            rec.cells.push_back(cell ? std::string_view(*cell) : text.substr(open, end - open));
        } else {
            const std::size_t s = i;
            while (i < n && text[i] != delim && text[i] != '\n' && text[i] != '\r') ++i;
            rec.cells.push_back(text.substr(s, i - s));
        }
        if (i < n && text[i] == delim) { ++i; continue; }
        if (i < n) {
            if (text[i] == '\r') { ++i; if (i < n && text[i] == '\n') ++i; }
            else ++i;
            ++line;
        }
        break;
    }
    return true;
}

Expected<RawTable> readDelimited(std::string_view text, const std::string& file, char delimiter, std::int64_t maxRows) {
    RawTable table;
    table.delimiter = delimiter ? delimiter : detectDelimiter(text);
    DelimitedScanner scanner(text, table.delimiter);
    RecordView rec;
    bool haveHeader = false;
    for (;;) {
        auto more = scanner.next(rec, file, haveHeader ? &table.header : nullptr);
        if (!more) return more.error();
        if (!*more) break;
        if (!haveHeader) {
            for (auto c : rec.cells) table.header.push_back(trimmed(c));
            table.headerLine = rec.line;
            haveHeader = true;
            continue;
        }
        if (static_cast<std::int64_t>(table.rows.size()) >= maxRows)
            return LoadError{file, rec.line, "", "more than " + std::to_string(maxRows) + " rows (the run-table row limit)"};
        RawRecord out;
        out.line = rec.line;
        out.cells.assign(rec.cells.begin(), rec.cells.end());
        out.notes = std::move(rec.notes);
        table.rows.push_back(std::move(out));
    }
    if (!haveHeader) return LoadError{file, 0, "", "the file is empty (expected a header line and one row per run)"};
    return table;
}

std::string quoteField(std::string_view field, char delimiter) {
    // Any delimiter the reader might detect is quoted too: a header with more tabs inside names
    // than commas between them would otherwise read back as a tab-separated file.
    const bool control = std::any_of(field.begin(), field.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u < 0x20 || u == 0x7f;
    });
    const bool needs = control || field.find_first_of(std::string{'"', '\n', '\r', delimiter, ',', '\t', ';', '|'}) != std::string_view::npos ||
                       (!field.empty() && (field.front() == ' ' || field.back() == ' ' || field.front() == '\t' ||
                                           field.back() == '\t'));
    if (!needs) return std::string(field);
    std::string out = "\"";
    for (char c : field) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
    return out;
}

}  // namespace scalex::data
