#pragma once
// Delimited text (RFC 4180): fields separated by a delimiter, records by LF or CRLF; a field in
// double quotes may hold delimiters, quotes (doubled) and line breaks. The reader keeps every
// record with the line it starts on, so later checks can name it.
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/data/LoadError.h"

namespace scalex::data {

struct RawRecord {
    int line = 0;                    // 1-based line the record starts on
    std::vector<std::string> cells;
    std::vector<std::pair<int, std::string>> notes;  // (cell index, what is odd about it)
};

struct RawTable {
    std::vector<std::string> header;  // trimmed column names
    int headerLine = 1;
    std::vector<RawRecord> rows;
    char delimiter = ',';
};

// One record as DelimitedScanner hands it out: views into the text, or into the scanner's own
// buffers for quoted cells that had to be unescaped. Valid until the scanner's next call.
struct RecordView {
    int line = 0;
    std::vector<std::string_view> cells;
    std::vector<std::pair<int, std::string>> notes;  // (cell index, what is odd about it)
};

// Reads records one at a time in one pass, without a heap allocation per field, so that a table of
// millions of rows never exists twice (as text and as cells). Blank lines are skipped.
class DelimitedScanner {
public:
    DelimitedScanner(std::string_view text, char delimiter) : text_(text), delimiter_(delimiter) {}
    // The next record into `rec`: true, false at the end, or an error for a quoted field that is
    // never closed (`header` names its column; may be null).
    Expected<bool> next(RecordView& rec, const std::string& file, const std::vector<std::string>* header);
    // Bytes read so far (for progress).
    std::size_t position() const { return i_; }

private:
    std::string_view text_;
    char delimiter_;
    std::size_t i_ = 0;
    int line_ = 1;
    std::deque<std::string> unquoted_;  // cells that differ from their bytes; reused record to record
};

// The delimiter of `text`: the most frequent of ',', '\t', ';' and '|' outside quotes in the
// first record; `preferred` when none occurs or on a tie.
char detectDelimiter(std::string_view text, char preferred = ',');

// Reads `text` (UTF-8, BOM already removed); blank lines are skipped. delimiter 0 = detect.
// The first record is the header (trimmed). Errors: a quoted field that is never closed, more than
// maxRows records, no header.
Expected<RawTable> readDelimited(std::string_view text, const std::string& file, char delimiter = 0,
                                 std::int64_t maxRows = 1'000'000);

// One field as RFC 4180 writes it: quoted when it holds the delimiter, a quote, a line break
// or leading/trailing spaces.
std::string quoteField(std::string_view field, char delimiter = ',');

}  // namespace scalex::data
