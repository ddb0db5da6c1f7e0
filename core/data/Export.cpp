#include "core/data/Export.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/data/CsvReader.h"
#include "core/data/RunTableIo.h"

namespace scalex::data {

namespace {

// Shortest text that reads back as the same double.
std::string roundTrip(double v) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

// Three significant digits, trailing zeros (and a trailing '.') dropped: 1.30 -> "1.3", 15.0 -> "15".
std::string threeSignificant(double v) {
    char buf[32];
    const int digitsBefore = v == 0 ? 1 : static_cast<int>(std::floor(std::log10(std::abs(v)))) + 1;
    const int decimals = std::max(0, 3 - digitsBefore);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string s = buf;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s;
}

}  // namespace

std::string formatScientific(double value) {
    if (!std::isfinite(value)) return "";
    if (value == 0) return "0";
    int exponent = static_cast<int>(std::floor(std::log10(std::abs(value))));
    double mantissa = value / std::pow(10.0, exponent);
    // Rounding to three digits may carry into the next power (9.996e20 -> 1e21).
    if (std::abs(std::round(mantissa * 100) / 100) >= 10) {
        ++exponent;
        mantissa /= 10;
    }
    return threeSignificant(std::round(mantissa * 100) / 100) + "e" + std::to_string(exponent);
}

std::string formatCount(double value) {
    if (!std::isfinite(value)) return "";
    static const struct {
        double scale;
        const char* suffix;
    } units[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
    for (const auto& u : units) {
        const double scaled = value / u.scale;
        // 999.6M reads as 1B once rounded to three digits.
        if (std::abs(scaled) >= 0.9995) {
            const double digitsBefore = std::floor(std::log10(std::abs(scaled))) + 1;
            const double step = std::pow(10.0, std::max(0.0, 3 - digitsBefore));
            const double rounded = std::round(scaled * step) / step;
            if (rounded >= 1000 && u.scale < 1e12) {
                const std::string higher = formatCount(rounded * u.scale);
                return higher;
            }
            return threeSignificant(rounded) + u.suffix;
        }
    }
    return threeSignificant(value);
}

std::string formatCell(const ExportCell& cell, CellStyle style) {
    if (std::holds_alternative<std::monostate>(cell)) return "";
    if (const auto* s = std::get_if<std::string>(&cell)) return style == CellStyle::Symbol ? latexSymbol(*s) : latexEscape(*s);
    const double v = std::get<double>(cell);
    if (!std::isfinite(v)) return "";
    char buf[64];
    switch (style) {
        case CellStyle::Integer: std::snprintf(buf, sizeof buf, "%.0f", v); return buf;
        case CellStyle::Fixed1: std::snprintf(buf, sizeof buf, "%.1f", v); return buf;
        case CellStyle::Fixed2: std::snprintf(buf, sizeof buf, "%.2f", v); return buf;
        case CellStyle::Fixed3: std::snprintf(buf, sizeof buf, "%.3f", v); return buf;
        case CellStyle::Fixed4: std::snprintf(buf, sizeof buf, "%.4f", v); return buf;
        case CellStyle::Scientific: return formatScientific(v);
        case CellStyle::Count: return formatCount(v);
        case CellStyle::Text:
        case CellStyle::Symbol: return roundTrip(v);
    }
    return roundTrip(v);
}

namespace {

// One character of text for LaTeX, in text mode or in math mode (where ~, ^ and \ are symbols).
void appendEscaped(std::string& out, char c, bool math) {
    switch (c) {
        case '&': case '%': case '$': case '#': case '_': case '{': case '}':
            out += '\\';
            out += c;
            break;
        case '~': out += math ? "\\sim{}" : "\\textasciitilde{}"; break;
        case '^': out += math ? "\\wedge{}" : "\\textasciicircum{}"; break;
        case '\\': out += math ? "\\backslash{}" : "\\textbackslash{}"; break;
        default: out += c;
    }
}

}  // namespace

std::string latexEscape(const std::string& text) {
    std::string out;
    for (char c : text) appendEscaped(out, c, false);
    return out;
}

std::string latexSymbol(const std::string& text) {
    static const std::set<std::string> commands{
        "log",   "ln",    "exp",   "alpha", "beta",    "gamma", "delta", "epsilon", "zeta",  "eta",   "theta",
        "iota",  "kappa", "lambda", "mu",   "nu",      "xi",    "pi",    "rho",     "sigma", "tau",   "upsilon",
        "phi",   "chi",   "psi",   "omega", "Gamma",   "Delta", "Theta", "Lambda",  "Xi",    "Pi",    "Sigma",
        "Upsilon", "Phi", "Psi",   "Omega"};
    if (text.empty()) return "";
    std::string out = "$";
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(' ', start), text.size());
        const std::string word = text.substr(start, end - start);
        if (!word.empty()) {
            if (out.size() > 1) out += ' ';
            if (commands.count(word)) {
                out += "\\" + word;
            } else {
                for (char c : word) {
                    if (c == '*') out += "^{*}";  // N* is N^*
                    else appendEscaped(out, c, true);
                }
            }
        }
        start = end + 1;
    }
    return out + "$";
}

QByteArray toCsv(const ExportTable& table) {
    std::string out;
    for (std::size_t i = 0; i < table.columns.size(); ++i) out += (i ? "," : "") + quoteField(table.columns[i].key);
    out += '\n';
    for (const auto& row : table.rows) {
        for (std::size_t i = 0; i < table.columns.size(); ++i) {
            if (i) out += ',';
            if (i >= row.size()) continue;
            if (const auto* s = std::get_if<std::string>(&row[i])) out += quoteField(*s);
            else if (const auto* d = std::get_if<double>(&row[i]); d && std::isfinite(*d)) out += roundTrip(*d);
        }
        out += '\n';
    }
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

QByteArray toLatex(const ExportTable& table) {
    std::string spec, header;
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
        const auto& c = table.columns[i];
        spec += c.style == CellStyle::Text || c.style == CellStyle::Symbol ? 'l' : 'r';
        header += (i ? " & " : "") + (c.label.empty() ? latexEscape(c.key) : c.label);
    }
    std::string out;
    if (!table.caption.empty() || !table.label.empty()) {
        out += "\\begin{table}[htpb]\n\\centering\n";
        if (!table.caption.empty()) out += "\\caption{" + table.caption + "}\n";
        if (!table.label.empty()) out += "\\label{" + table.label + "}\n";
    }
    out += "\\begin{tabular}{" + spec + "}\n\\toprule\n" + header + " \\\\\n\\midrule\n";
    for (const auto& row : table.rows) {
        for (std::size_t i = 0; i < table.columns.size(); ++i) {
            if (i) out += " & ";
            if (i < row.size()) out += formatCell(row[i], table.columns[i].style);
        }
        out += " \\\\\n";
    }
    out += "\\bottomrule\n\\end{tabular}\n";
    if (!table.caption.empty() || !table.label.empty()) out += "\\end{table}\n";
    return QByteArray::fromStdString(out);
}

QJsonArray toRecords(const ExportTable& table) {
    QJsonArray records;
    for (const auto& row : table.rows) {
        QJsonObject o;
        for (std::size_t i = 0; i < table.columns.size(); ++i) {
            const QString key = QString::fromStdString(table.columns[i].key);
            const ExportCell cell = i < row.size() ? row[i] : ExportCell{};
            if (const auto* s = std::get_if<std::string>(&cell)) o[key] = QString::fromStdString(*s);
            else if (const auto* d = std::get_if<double>(&cell); d && std::isfinite(*d)) o[key] = *d;
            else o[key] = QJsonValue(QJsonValue::Null);  // pandas reads null as NaN
        }
        records.append(o);
    }
    return records;
}

QByteArray toRecordsJson(const ExportTable& table) { return QJsonDocument(toRecords(table)).toJson(QJsonDocument::Indented); }

ExportTable runTableExport(const RunTable& table) {
    const QByteArray csv = writeRunTableCsv(table);
    auto raw = readDelimited(std::string_view(csv.constData(), static_cast<std::size_t>(csv.size())), "runs", ',');
    ExportTable out;
    if (!raw) return out;
    // Columns that hold numbers in every non-empty cell export as numbers.
    std::vector<bool> numeric(raw->header.size(), true);
    for (const auto& r : raw->rows)
        for (std::size_t i = 0; i < r.cells.size() && i < numeric.size(); ++i) {
            if (r.cells[i].empty()) continue;
            double v;
            const auto* end = r.cells[i].data() + r.cells[i].size();
            auto res = std::from_chars(r.cells[i].data(), end, v);
            if (res.ec != std::errc() || res.ptr != end) numeric[i] = false;
        }
    // Styles as the paper prints such columns: sizes as counts (406M), compute in "e" notation,
    // whole numbers as integers, everything else (losses, learning rates) as written.
    std::vector<CellStyle> styles(raw->header.size(), CellStyle::Text);
    for (std::size_t i = 0; i < raw->header.size(); ++i) {
        if (!numeric[i]) continue;
        bool whole = true;
        double largest = 0;
        for (const auto& r : raw->rows) {
            if (i >= r.cells.size() || r.cells[i].empty()) continue;
            const double v = std::stod(r.cells[i]);
            whole = whole && v == std::floor(v);
            largest = std::max(largest, std::fabs(v));
        }
        const std::string& name = raw->header[i];
        if (name == "num_params" || name == "num_tokens_training") styles[i] = CellStyle::Count;
        else if (largest >= 1e7) styles[i] = CellStyle::Scientific;
        else if (whole) styles[i] = CellStyle::Integer;
        else styles[i] = CellStyle::Text;  // keeps the written digits
    }
    for (std::size_t i = 0; i < raw->header.size(); ++i) out.columns.push_back({raw->header[i], "", styles[i]});
    for (const auto& r : raw->rows) {
        std::vector<ExportCell> row;
        for (std::size_t i = 0; i < r.cells.size(); ++i) {
            if (r.cells[i].empty()) row.emplace_back(std::monostate{});
            else if (numeric[i]) row.emplace_back(std::stod(r.cells[i]));  // Text style prints it as written
            else row.emplace_back(r.cells[i]);
        }
        out.rows.push_back(std::move(row));
    }
    return out;
}

ExportTable optimalConfigExport(const std::vector<OptimalConfigRow>& rows, accounting::Family family, std::int64_t context) {
    ExportTable t;
    t.caption = "Estimated optimal training FLOPs, Tokens, and Token/Param Ratio for varying model sizes (" +
                std::string(accounting::familyLabel(family)) + ", context length " + std::to_string(context) + ").";
    t.columns = {{"params", "\\#Params", CellStyle::Count},
                 {"flops", "\\#FLOPs", CellStyle::Scientific},
                 {"tokens", "\\#Tokens", CellStyle::Count},
                 {"tokens_per_param", "Token/Param Ratio", CellStyle::Fixed1}};
    std::string source;
    for (const auto& r : rows) {
        if (r.family != family || r.context != context) continue;
        if (source.empty()) source = r.sourceTable;
        if (r.sourceTable != source) continue;  // ctx 8192 appears in two tables: keep the first
        t.rows.push_back({r.params, r.flops, r.tokens, r.tokensPerParam});
    }
    return t;
}

}  // namespace scalex::data
