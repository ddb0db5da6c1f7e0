#include "core/data/LossCurves.h"

#include <QFile>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/data/ColumnMapping.h"
#include "core/data/CsvReader.h"
#include "core/data/RunTableIo.h"

namespace scalex::data {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool parseNumber(const std::string& cell, double* out) {
    if (cell.empty()) return *out = kNaN, true;
    const char* end = cell.data() + cell.size();
    const auto r = std::from_chars(cell.data(), end, *out);
    return r.ec == std::errc() && r.ptr == end;
}
}  // namespace

double LossCurve::finalValLoss() const {
    for (auto it = points.rbegin(); it != points.rend(); ++it)
        if (!std::isnan(it->valLoss)) return it->valLoss;
    return kNaN;
}

std::size_t LossCurves::pointCount() const {
    std::size_t n = 0;
    for (const auto& c : curves) n += c.points.size();
    return n;
}

const LossCurve* LossCurves::find(const std::string& runId) const {
    for (const auto& c : curves)
        if (c.runId == runId) return &c;
    return nullptr;
}

bool looksLikeLossCurves(const std::vector<std::string>& header) {
    // A run table of checkpoints (as writeRunTableCsv writes every table) has run_id and step too,
    // but also says how large each model is.
    for (const auto& column : header)
        if (const auto field = fieldBySpelling(column); field == RunField::Params || field == RunField::DModel || field == RunField::Flops)
            return false;
    return std::find(header.begin(), header.end(), "run_id") != header.end() &&
           std::find(header.begin(), header.end(), "step") != header.end();
}

Expected<LossCurves> loadLossCurves(const std::string& path) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) return LoadError{path, 0, "", "cannot open: " + file.errorString().toStdString()};
    if (file.size() > kDefaultMaxBytes)
        return LoadError{path, 0, "", "the file is larger than the " + std::to_string(kDefaultMaxBytes >> 20) + " MiB limit"};
    return parseLossCurves(file.readAll(), path);
}

Expected<LossCurves> parseLossCurves(const QByteArray& bytes, const std::string& path) {
    auto raw = readDelimited(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), path, ',');
    if (!raw) return raw.error();
    const auto& h = raw->header;
    auto column = [&h](const char* name) {
        const auto it = std::find(h.begin(), h.end(), name);
        return it == h.end() ? -1 : static_cast<int>(it - h.begin());
    };
    const int id = column("run_id"), step = column("step");
    if (id < 0) return LoadError{path, raw->headerLine, "run_id", "no run_id column (a curves file has run_id and step)"};
    if (step < 0) return LoadError{path, raw->headerLine, "step", "no step column (a curves file has run_id and step)"};
    const int tokens = column("tokens"), train = column("train_loss"), val = column("val_loss"), lr = column("lr");
    LossCurves out;
    out.source = path;
    std::map<std::string, std::size_t> index;
    for (const auto& row : raw->rows) {
        auto cell = [&row](int c) -> std::string { return c >= 0 && c < static_cast<int>(row.cells.size()) ? row.cells[static_cast<std::size_t>(c)] : std::string(); };
        const std::string runId = cell(id);
        if (runId.empty()) return LoadError{path, row.line, "run_id", "empty run_id"};
        CurvePoint p;
        if (!parseNumber(cell(step), &p.step) || !(p.step >= 0))
            return LoadError{path, row.line, "step", "expected a step number >= 0, got '" + cell(step) + "'"};
        const std::pair<int, double*> optional[] = {{tokens, &p.tokens}, {train, &p.trainLoss}, {val, &p.valLoss}, {lr, &p.lr}};
        for (const auto& [c, target] : optional) {
            if (c < 0) {
                *target = kNaN;
                continue;
            }
            if (!parseNumber(cell(c), target))
                return LoadError{path, row.line, h[static_cast<std::size_t>(c)], "expected a number, got '" + cell(c) + "'"};
        }
        auto [it, added] = index.try_emplace(runId, out.curves.size());
        if (added) out.curves.push_back({runId, {}});
        out.curves[it->second].points.push_back(p);
    }
    return out;
}

}  // namespace scalex::data
