#pragma once
// Exporting tables: CSV (full precision, for programs), LaTeX (booktabs, numbers written the
// way the paper's appendix tables write them) and JSON records (an array of flat objects, the
// "records" orientation that pandas.read_json reads directly).
#include <QByteArray>
#include <QJsonArray>
#include <string>
#include <variant>
#include <vector>

#include "core/data/PaperTables.h"
#include "core/data/RunTable.h"

namespace scalex::data {

// How LaTeX shows a number (CSV and JSON always carry the full value).
enum class CellStyle {
    Text,
    Integer,     // 8192
    Fixed1,      // 41.7 (tokens/param ratios)
    Fixed2,      // 11.99 (fit parameters)
    Fixed3,      // 0.050 (exponents)
    Fixed4,      // 2.7331 (losses)
    Scientific,  // 1.78e20 (FLOPs, budgets): 3 significant digits, the paper's "e" notation
    Count,       // 406M, 22.8B, 1.03T (parameters, tokens): 3 significant digits
    Symbol,      // a symbol in plain words, "log A", "alpha": LaTeX math ($\log A$, $\alpha$), as is elsewhere
};

struct ExportColumn {
    std::string key;    // CSV header and JSON key
    std::string label;  // LaTeX header (may hold LaTeX, e.g. "$\\log A$"); the key when empty
    CellStyle style = CellStyle::Text;
};

using ExportCell = std::variant<std::monostate, double, std::string>;  // monostate: empty / unknown

struct ExportTable {
    std::string caption;  // LaTeX \caption, written as is (it may hold math); none when empty
    std::string label;    // LaTeX \label; none when empty
    std::vector<ExportColumn> columns;
    std::vector<std::vector<ExportCell>> rows;
};

// "1.78e20", "6e18", "1.3e18": three significant digits, trailing zeros dropped, no '+'.
std::string formatScientific(double value);
// "100M", "22.8B", "1.03T", "982B", "7B": three significant digits with K/M/B/T.
std::string formatCount(double value);
// The number as LaTeX shows it in `style`.
std::string formatCell(const ExportCell& cell, CellStyle style);
// Escapes LaTeX's special characters in plain text.
std::string latexEscape(const std::string& text);
// "log A" -> "$\log A$", "alpha" -> "$\alpha$", "N*(H)" -> "$N^{*}(H)$": Greek letter names and
// log, ln, exp become LaTeX commands, a star a superscript; other characters are escaped for math.
std::string latexSymbol(const std::string& text);

QByteArray toCsv(const ExportTable& table);
QByteArray toLatex(const ExportTable& table);
QJsonArray toRecords(const ExportTable& table);
QByteArray toRecordsJson(const ExportTable& table);

// A run table as an export table: the columns of writeRunTableCsv, numbers as numbers.
ExportTable runTableExport(const RunTable& table);
// Tab. estimated_optimal_flops_tokens_powerlaw(_context_*) rows of one family and context,
// laid out as the paper does: #Params, #FLOPs, #Tokens, Token/Param ratio.
ExportTable optimalConfigExport(const std::vector<OptimalConfigRow>& rows, accounting::Family family, std::int64_t context);

}  // namespace scalex::data
