#include "gpu/BenchJson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace scalex::gpu {

namespace {

[[noreturn]] void fail(const QString& key, const char* expected) {
    throw std::runtime_error((key + ": expected " + QString::fromLatin1(expected)).toStdString());
}

double number(const QJsonObject& o, const QString& key, const QString& where) {
    const QJsonValue v = o.value(key);
    if (!v.isDouble()) fail(where + key, "a number");
    return v.toDouble();
}

int integer(const QJsonObject& o, const QString& key, const QString& where) {
    const double d = number(o, key, where);
    // Range first: converting a double outside int's range is undefined.
    if (!(d >= std::numeric_limits<int>::min() && d <= std::numeric_limits<int>::max()) || d != std::floor(d))
        fail(where + key, "an integer");
    return static_cast<int>(d);
}

std::string text(const QJsonObject& o, const QString& key, const QString& where) {
    const QJsonValue v = o.value(key);
    if (!v.isString()) fail(where + key, "a string");
    return v.toString().toStdString();
}

QJsonObject object(const QJsonObject& o, const QString& key, const QString& where) {
    const QJsonValue v = o.value(key);
    if (!v.isObject()) fail(where + key, "an object");
    return v.toObject();
}

QJsonArray array(const QJsonObject& o, const QString& key) {
    const QJsonValue v = o.value(key);
    if (!v.isArray()) fail(key, "an array");
    return v.toArray();
}

QString q(const std::string& s) { return QString::fromStdString(s); }

}  // namespace

QJsonObject toJson(const BenchReport& r) {
    const DeviceInfo& d = r.device;
    QJsonObject device{{"backend", q(d.backend)},           {"name", q(d.name)},
                       {"compute_units", d.computeUnits},   {"clock_ghz", d.clockGHz},
                       {"memory_bytes", d.memoryBytes},     {"peak_bandwidth", d.peakBandwidth},
                       {"compute_capability", q(d.computeCapability)}};
    QJsonObject roofs{{"compute_fp32", r.roofs.computeF32},
                      {"compute_16bit", r.roofs.compute16},
                      {"bandwidth", r.roofs.bandwidth},
                      {"theoretical_fp32", r.roofs.theoreticalF32},
                      {"peak_formula", q(r.roofs.peakFormula)}};
    QJsonArray rows;
    for (const auto& m : r.measurements)
        rows.append(QJsonObject{{"kernel", q(m.kernel)},       {"precision", q(m.precision)},
                                {"variant", q(m.variant)},     {"m", m.m},
                                {"n", m.n},                    {"k", m.k},
                                {"elements", m.elements},      {"batch", m.batch},
                                {"heads", m.heads},            {"kv_heads", m.kvHeads},
                                {"d_qk", m.dQk},               {"d_hv", m.dHv},
                                {"tokens", m.tokens},          {"chunk", m.chunk},
                                {"flops", m.flops},            {"bytes", m.bytes},
                                {"seconds", m.seconds},        {"reps", m.reps},
                                {"flop_rate", m.flopRate},     {"byte_rate", m.byteRate},
                                {"intensity", m.intensity},    {"roof_fraction", m.roofFraction}});
    QJsonArray checks;
    for (const auto& v : r.verification)
        checks.append(QJsonObject{{"kernel", q(v.kernel)}, {"shape", q(v.shape)}, {"error", v.error},
                                  {"tolerance", v.tolerance}, {"pass", v.pass()}});
    QJsonArray errors;
    for (const auto& e : r.errors) errors.append(q(e));
    return {{"format", "scalex-bench"}, {"version", kBenchJsonVersion}, {"created", q(r.created)},
            {"threads", r.threads},     {"quick", r.quick},             {"device", device},
            {"roofs", roofs},           {"measurements", rows},        {"verification", checks},
            {"errors", errors}};
}

BenchReport benchReportFromJson(const QJsonObject& o) {
    if (o.value("format").toString() != "scalex-bench") fail("format", "\"scalex-bench\"");
    if (integer(o, "version", "") != kBenchJsonVersion) fail("version", "1");
    BenchReport r;
    r.created = text(o, "created", "");
    r.threads = integer(o, "threads", "");
    if (!o.value("quick").isBool()) fail("quick", "true or false");
    r.quick = o.value("quick").toBool();
    const QJsonObject d = object(o, "device", "");
    r.device.backend = text(d, "backend", "device.");
    r.device.name = text(d, "name", "device.");
    r.device.computeUnits = integer(d, "compute_units", "device.");
    r.device.clockGHz = number(d, "clock_ghz", "device.");
    r.device.memoryBytes = number(d, "memory_bytes", "device.");
    r.device.peakBandwidth = number(d, "peak_bandwidth", "device.");
    r.device.computeCapability = text(d, "compute_capability", "device.");
    const QJsonObject f = object(o, "roofs", "");
    r.roofs.computeF32 = number(f, "compute_fp32", "roofs.");
    r.roofs.compute16 = number(f, "compute_16bit", "roofs.");
    r.roofs.bandwidth = number(f, "bandwidth", "roofs.");
    r.roofs.theoreticalF32 = number(f, "theoretical_fp32", "roofs.");
    r.roofs.peakFormula = text(f, "peak_formula", "roofs.");
    const QJsonArray rows = array(o, "measurements");
    for (int i = 0; i < rows.size(); ++i) {
        const QString w = QStringLiteral("measurements[%1].").arg(i);
        if (!rows[i].isObject()) fail(w.chopped(1), "an object");
        const QJsonObject x = rows[i].toObject();
        Measurement m;
        m.kernel = text(x, "kernel", w);
        m.precision = text(x, "precision", w);
        m.variant = text(x, "variant", w);
        m.m = integer(x, "m", w);
        m.n = integer(x, "n", w);
        m.k = integer(x, "k", w);
        m.elements = number(x, "elements", w);
        m.batch = integer(x, "batch", w);
        m.heads = integer(x, "heads", w);
        m.kvHeads = integer(x, "kv_heads", w);
        m.dQk = integer(x, "d_qk", w);
        m.dHv = integer(x, "d_hv", w);
        m.tokens = integer(x, "tokens", w);
        m.chunk = integer(x, "chunk", w);
        m.flops = number(x, "flops", w);
        m.bytes = number(x, "bytes", w);
        m.seconds = number(x, "seconds", w);
        m.reps = integer(x, "reps", w);
        m.flopRate = number(x, "flop_rate", w);
        m.byteRate = number(x, "byte_rate", w);
        m.intensity = number(x, "intensity", w);
        m.roofFraction = number(x, "roof_fraction", w);
        r.measurements.push_back(m);
    }
    const QJsonArray checks = array(o, "verification");
    for (int i = 0; i < checks.size(); ++i) {
        const QString w = QStringLiteral("verification[%1].").arg(i);
        if (!checks[i].isObject()) fail(w.chopped(1), "an object");
        const QJsonObject x = checks[i].toObject();
        r.verification.push_back({text(x, "kernel", w), text(x, "shape", w), number(x, "error", w), number(x, "tolerance", w)});
    }
    // "errors" came after the first files of version 1 were written: absent means none.
    const QJsonArray errors = o.contains("errors") ? array(o, "errors") : QJsonArray{};
    for (int i = 0; i < errors.size(); ++i) {
        if (!errors[i].isString()) fail(QStringLiteral("errors[%1]").arg(i), "a string");
        r.errors.push_back(errors[i].toString().toStdString());
    }
    return r;
}

void saveBenchReport(const BenchReport& report, const QString& path) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        throw std::runtime_error((path + ": cannot write: " + file.errorString()).toStdString());
    file.write(QJsonDocument(toJson(report)).toJson(QJsonDocument::Indented));
    if (!file.commit()) throw std::runtime_error((path + ": cannot write: " + file.errorString()).toStdString());
}

BenchReport loadBenchReport(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw std::runtime_error((path + ": cannot read: " + file.errorString()).toStdString());
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &err);
    if (err.error != QJsonParseError::NoError)
        throw std::runtime_error((path + QStringLiteral(": offset %1: ").arg(err.offset) + err.errorString()).toStdString());
    if (!doc.isObject()) throw std::runtime_error((path + ": expected a JSON object").toStdString());
    try {
        return benchReportFromJson(doc.object());
    } catch (const std::runtime_error& e) {
        throw std::runtime_error((path + ": " + QString::fromStdString(e.what())).toStdString());
    }
}

}  // namespace scalex::gpu
