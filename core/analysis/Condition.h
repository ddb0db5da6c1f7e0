#pragma once
// Row conditions of `--where` and the Runs view's filter: COL=VALUE, COL!=VALUE, COL<X, COL>X,
// COL<=X, COL>=X on any column of a run (its source cells, or a field by any of its spellings).
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::analysis {

struct RowCondition {
    enum class Op { Equal, NotEqual, Less, Greater, LessEqual, GreaterEqual };
    std::string column;
    Op op = Op::Equal;
    std::string value;              // as written
    double number = data::kUnknown; // the value as a number, when it is one

    std::string text() const;  // as written: "loss<4.5"
    // `number` is NaN for a value that is no number: two such conditions are equal when they read
    // the same (a defaulted == would make every text condition differ from itself).
    friend bool operator==(const RowCondition& a, const RowCondition& b) {
        return a.column == b.column && a.op == b.op && a.value == b.value &&
               (a.number == b.number || (a.number != a.number && b.number != b.number));
    }
};

// "COL=VALUE" and the like; the error names the text and what was expected.
data::Expected<RowCondition> parseCondition(std::string_view text);

// Whether a run meets the condition. = and != compare numbers as numbers where both sides are
// numbers (so 3e19 equals 30000000000000000000), else text, case-insensitively; < and > need
// numbers, and a run whose cell is no number does not meet them. A column the run does not have
// sets `unknownColumn` (when given) and fails.
bool meets(const data::Run& run, const RowCondition& condition, bool* unknownColumn = nullptr);

// Whether the run meets every one of the conditions (it does when there are none).
bool meetsAll(const data::Run& run, const std::vector<RowCondition>& conditions);

// An error naming the first condition whose column neither a field nor any table of `table` has
// (with the columns there are), so that a typo does not silently select nothing.
std::optional<data::LoadError> checkColumns(const data::RunTable& table, const std::vector<RowCondition>& conditions);

}  // namespace scalex::analysis
