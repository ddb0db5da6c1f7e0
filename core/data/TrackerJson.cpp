#include "core/data/TrackerJson.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QLocale>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

namespace scalex::data {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

LoadError error(const std::string& file, const std::string& key, const std::string& message, int line = 0) {
    return LoadError{file, line, key, message, true};
}

std::string scalarText(const QJsonValue& v) {
    switch (v.type()) {
    case QJsonValue::Bool: return v.toBool() ? "true" : "false";
    case QJsonValue::Double: return QString::number(v.toDouble(), 'g', QLocale::FloatingPointShortest).toStdString();
    case QJsonValue::String: return v.toString().toStdString();
    case QJsonValue::Null: return "";
    default: return QJsonDocument::fromVariant(v.toVariant()).toJson(QJsonDocument::Compact).toStdString();
    }
}

// Which field of a curve point a stream's metric fills. The final evaluation is kept apart: in
// lr-schedules/ it runs on the full validation set and reads about 1 % above the periodic
// validation loss at the same step and rate.
enum class Field { TrainLoss, ValLoss, Lr, FinalVal };

struct Metric {
    const char* stream;
    const char* key;
    Field field;
};

// The streams and metrics of lr-schedules/ (fabian-sp/lr-scheduling's tracker export).
constexpr Metric kMetrics[] = {
    {"train", "train_loss", Field::TrainLoss},
    {"train", "train_lr", Field::Lr},
    {"val", "val_loss", Field::ValLoss},
    {"final-val", "final_val_loss", Field::FinalVal},
};

}  // namespace

const std::string* TrackerRun::configValue(const std::string& key) const {
    for (const auto& [k, v] : config)
        if (k == key) return &v;
    return nullptr;
}

double TrackerRun::configNumber(const std::string& key) const {
    const std::string* v = configValue(key);
    if (!v || v->empty()) return kNaN;
    bool ok = false;
    const double d = QString::fromStdString(*v).toDouble(&ok);
    return ok ? d : kNaN;
}

long TrackerRun::firstLoggedStep() const {
    for (const auto& p : curve.points)
        if (std::isfinite(p.trainLoss) || std::isfinite(p.valLoss)) return static_cast<long>(p.step);
    return -1;
}

bool looksLikeTrackerJson(const QByteArray& head) {
    const QByteArray t = head.trimmed();
    return t.startsWith('{') && t.contains("\"history\"") && t.contains("\"config\"");
}

Expected<TrackerRun> parseTrackerRun(const QByteArray& bytes, const std::string& file) {
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        const int line = 1 + static_cast<int>(bytes.left(parseError.offset).count('\n'));
        return error(file, "", "not valid JSON: " + parseError.errorString().toStdString(), line);
    }
    if (!doc.isObject()) return error(file, "", "expected a JSON object with 'config' and 'history'");
    const QJsonObject root = doc.object();
    TrackerRun run;
    run.file = file;
    if (root.contains("config") && !root.value("config").isObject()) return error(file, "config", "expected an object of the run's settings");
    const QJsonObject config = root.value("config").toObject();
    for (auto it = config.begin(); it != config.end(); ++it) run.config.emplace_back(it.key().toStdString(), scalarText(it.value()));
    if (!root.value("history").isObject()) return error(file, "history", "expected an object of logged streams (e.g. 'train', 'val')");
    const QJsonObject history = root.value("history").toObject();

    // Every logged value by step; a later entry for the same step (a resumed run logs again)
    // replaces an earlier one.
    std::map<double, CurvePoint> byStep;
    bool anyLoss = false;
    for (const Metric& m : kMetrics) {
        const std::string streamKey = std::string("history.") + m.stream;
        if (!history.contains(m.stream)) continue;
        if (!history.value(m.stream).isObject()) return error(file, streamKey, "expected an object of parallel arrays");
        const QJsonObject stream = history.value(m.stream).toObject();
        if (!stream.contains(m.key)) continue;
        const std::string valueKey = streamKey + "." + m.key;
        if (!stream.value(m.key).isArray()) return error(file, valueKey, "expected an array of logged values");
        if (!stream.value("iter").isArray()) return error(file, streamKey + ".iter", "expected the array of logged steps beside '" + std::string(m.key) + "'");
        const QJsonArray steps = stream.value("iter").toArray(), values = stream.value(m.key).toArray();
        if (steps.size() != values.size())
            return error(file, valueKey, std::to_string(values.size()) + " values for " + std::to_string(steps.size()) + " steps in '" + streamKey + ".iter'");
        std::map<double, int> seen;
        for (qsizetype i = 0; i < steps.size(); ++i) {
            const QJsonValue s = steps.at(i);
            const double step = s.isDouble() ? s.toDouble() : kNaN;
            if (!(step >= 0) || !std::isfinite(step) || step > 1e15)
                return error(file, streamKey + ".iter", "entry " + std::to_string(i) + ": expected a step >= 0, got " + scalarText(s));
            const QJsonValue v = values.at(i);
            // null / non-numeric: not logged at this step (kept out of the curve, not an error)
            const double value = v.isDouble() && std::isfinite(v.toDouble()) ? v.toDouble() : kNaN;
            if (m.field == Field::FinalVal) {
                if (std::isfinite(value)) run.finalValLoss = value, run.finalValStep = step;
                continue;
            }
            if (++seen[step] == 2 && m.field != Field::Lr) ++run.duplicateSteps;
            auto [it, inserted] = byStep.try_emplace(step, CurvePoint{step, kNaN, kNaN, kNaN, kNaN});
            (void)inserted;
            CurvePoint& p = it->second;
            if (m.field == Field::TrainLoss) p.trainLoss = value;
            else if (m.field == Field::ValLoss) p.valLoss = value;
            else p.lr = value;
            if (m.field != Field::Lr && std::isfinite(value)) anyLoss = true;
        }
    }
    if (!anyLoss) return error(file, "history", "no logged loss (expected history.train.train_loss or history.val.val_loss)");

    const auto stringKey = [&](const char* key) -> std::string {
        const QJsonValue v = config.value(key);
        return v.isString() ? v.toString().toStdString() : std::string();
    };
    run.name = root.value("name").isString() ? root.value("name").toString().toStdString() : std::string();
    if (run.name.empty()) run.name = QFileInfo(QString::fromStdString(file)).completeBaseName().toStdString();
    if (run.name.empty()) run.name = stringKey("wandb_run_prefix");
    if (run.name.empty()) run.name = "run";
    const double perStep = run.configNumber("batch_size") * std::max(1.0, std::isfinite(run.configNumber("acc_steps")) ? run.configNumber("acc_steps") : 1.0) *
                           std::max(1.0, std::isfinite(run.configNumber("world_size")) ? run.configNumber("world_size") : 1.0) *
                           run.configNumber("sequence_length");
    run.tokensPerStep = std::isfinite(perStep) && perStep > 0 ? perStep : 0;
    run.curve.runId = run.name;
    for (auto& [step, p] : byStep) {
        p.tokens = run.tokensPerStep > 0 ? step * run.tokensPerStep : kNaN;
        run.curve.points.push_back(p);
    }
    return run;
}

QByteArray trackerCurvesCsv(const TrackerRun& run) {
    QByteArray csv = "run_id,step,tokens,train_loss,val_loss,lr\n";
    QByteArray id = QByteArray::fromStdString(run.name);
    if (id.contains(',') || id.contains('"') || id.contains('\n')) id = '"' + id.replace("\"", "\"\"") + '"';
    const auto cell = [](double v) { return std::isfinite(v) ? QByteArray::number(v, 'g', 17) : QByteArray(); };
    for (const auto& p : run.curve.points)
        csv += id + ',' + cell(p.step) + ',' + cell(p.tokens) + ',' + cell(p.trainLoss) + ',' + cell(p.valLoss) + ',' + cell(p.lr) + '\n';
    return csv;
}

std::optional<std::string> trackerScheduleDescription(const TrackerRun& r) {
    const std::string* scheduler = r.configValue("scheduler");
    const double lr = r.configNumber("lr"), iterations = r.configNumber("iterations"), warmup = r.configNumber("warmup_steps");
    if (!scheduler || !(lr > 0) || !(iterations >= 1) || iterations > 1e15) return std::nullopt;
    const auto number = [](double v) { return QByteArray::number(v, 'g', 17).toStdString(); };
    const std::string common = ":peak=" + number(lr) + ",steps=" + std::to_string(static_cast<long long>(iterations)) +
                               ",warmup=" + std::to_string(warmup >= 0 && warmup <= iterations ? static_cast<long long>(warmup) : 0LL);
    if (*scheduler == "cos") {
        const double final = r.configNumber("cos_final_lr");
        return "cosine" + common + ",final=" + number(final >= 0 ? final : 0.1 * lr);
    }
    if (*scheduler != "wsd") return std::nullopt;
    const double fraction = r.configNumber("wsd_fract_decay");
    if (!(fraction > 0)) return "constant" + common;
    const std::string* decay = r.configValue("decay_type");
    return "wsd" + common + ",cooldown=" + number(fraction <= 1 ? fraction : 0) + ",decay=" + (decay && *decay == "sqrt" ? "sqrt" : "linear");
}

QByteArray trackerRunsCsv(const std::vector<TrackerRun>& runs) {
    const auto quoted = [](QByteArray v) {
        if (v.contains(',') || v.contains('"') || v.contains('\n') || v.contains('\r')) v = '"' + v.replace("\"", "\"\"") + '"';
        return v;
    };
    const std::vector<std::string> last{"step", "tokens", "train_loss", "val_loss"};
    std::vector<std::string> keys;
    for (const auto& r : runs)
        for (const auto& [k, v] : r.config)
            if (k != "run_id" && std::find(last.begin(), last.end(), k) == last.end() && std::find(keys.begin(), keys.end(), k) == keys.end())
                keys.push_back(k);
    QByteArray csv = "run_id";
    for (const auto& k : keys) csv += ',' + quoted(QByteArray::fromStdString(k));
    for (const auto& k : last) csv += ',' + QByteArray::fromStdString(k);
    csv += '\n';
    const auto number = [](double v) { return std::isfinite(v) ? QByteArray::number(v, 'g', 17) : QByteArray(); };
    for (const auto& r : runs) {
        csv += quoted(QByteArray::fromStdString(r.name));
        for (const auto& k : keys) {
            const std::string* v = r.configValue(k);
            csv += ',' + (v ? quoted(QByteArray::fromStdString(*v)) : QByteArray());
        }
        // The last point that logged each value.
        double step = kNaN, tokens = kNaN, train = kNaN, val = kNaN;
        for (const auto& p : r.curve.points) {
            step = p.step;
            if (std::isfinite(p.tokens)) tokens = p.tokens;
            if (std::isfinite(p.trainLoss)) train = p.trainLoss;
            if (std::isfinite(p.valLoss)) val = p.valLoss;
        }
        csv += ',' + number(step) + ',' + number(tokens) + ',' + number(train) + ',' + number(val) + '\n';
    }
    return csv;
}

bool isTrackerJsonFile(const QString& path) {
    if (!path.toLower().endsWith(QLatin1String(".json"))) return false;
    QFile f(path);
    // The keys may follow a large `summary`: up to 8 MiB is looked at.
    return f.open(QIODevice::ReadOnly) && looksLikeTrackerJson(f.read(8 << 20));
}

Expected<TrackerRun> loadTrackerRun(const std::string& path) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) return error(path, "", "cannot open: " + f.errorString().toStdString());
    return parseTrackerRun(f.readAll(), path);
}

std::vector<std::string> joinCooldownRuns(std::vector<TrackerRun>& runs) {
    std::vector<std::string> unjoined;
    const auto isWsd = [](const TrackerRun& r) {
        const std::string* s = r.configValue("scheduler");
        return s && *s == "wsd";
    };
    for (auto& branch : runs) {
        const double fraction = branch.configNumber("wsd_fract_decay");
        const long first = branch.firstLoggedStep();
        if (!isWsd(branch) || !(fraction > 0) || first <= 0 || !branch.joinedTo.empty()) continue;
        // A run resumed from its own step 0 (config resume_from ".../ckpts/0") is not a branch: its
        // log merely starts late.
        const std::string* resume = branch.configValue("resume_from");
        if (resume && resume->size() >= 8 && resume->compare(resume->size() - 8, 8, "/ckpts/0") == 0) continue;
        // A branch whose log starts late: its base is the constant-rate run (wsd, no cooldown)
        // with the same peak rate that logged before the branch's first step.
        const TrackerRun* base = nullptr;
        for (const auto& r : runs) {
            if (&r == &branch || !isWsd(r) || r.configNumber("wsd_fract_decay") != 0 || r.configNumber("lr") != branch.configNumber("lr")) continue;
            if (r.firstLoggedStep() >= 0 && r.firstLoggedStep() < first) {
                base = &r;
                break;
            }
        }
        if (!base) {
            unjoined.push_back(branch.file + ": logs from step " + std::to_string(first) +
                               " and no constant-rate run (scheduler wsd, wsd_fract_decay 0) with lr " +
                               (branch.configValue("lr") ? *branch.configValue("lr") : std::string("?")) + " was given to join");
            continue;
        }
        std::vector<CurvePoint> joined;
        for (const auto& p : base->curve.points)
            if (p.step < static_cast<double>(first)) joined.push_back(p);
        for (const auto& p : branch.curve.points)
            if (p.step >= static_cast<double>(first)) joined.push_back(p);
        branch.curve.points = std::move(joined);
        branch.joinedTo = base->name;
        branch.joinStep = first;
    }
    return unjoined;
}

}  // namespace scalex::data
