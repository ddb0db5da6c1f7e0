#include "core/data/ProjectSettings.h"

#include <QJsonArray>
#include <cmath>

#include "core/accounting/FlopCount.h"

namespace scalex::data {

namespace {
const QString kConvention = QStringLiteral("flop_convention");
const QString kContext = QStringLiteral("context_length");
const QString kAllRuns = QStringLiteral("all_runs");
const QString kHuberDelta = QStringLiteral("huber_delta");
const QString kGamma = QStringLiteral("gamma");
const QString kBudgetRange = QStringLiteral("budget_range");
}  // namespace

std::string ProjectSettings::flopConvention() const {
    return common_.value(kConvention).toString(QStringLiteral("study")).toStdString();
}
void ProjectSettings::setFlopConvention(const std::string& name) { common_[kConvention] = QString::fromStdString(name); }

double ProjectSettings::contextLength() const { return common_.value(kContext).toDouble(8192); }
void ProjectSettings::setContextLength(double tokens) { common_[kContext] = tokens; }

bool ProjectSettings::selectedOnly() const { return !common_.value(kAllRuns).toBool(false); }
void ProjectSettings::setSelectedOnly(bool on) { common_[kAllRuns] = !on; }

double ProjectSettings::huberDelta() const { return common_.value(kHuberDelta).toDouble(1e-3); }
void ProjectSettings::setHuberDelta(double delta) { common_[kHuberDelta] = delta; }

GammaMode ProjectSettings::gammaMode() const {
    return common_.value(kGamma).toString() == QLatin1String("fixed_1") ? GammaMode::FixedOne : GammaMode::Free;
}
void ProjectSettings::setGammaMode(GammaMode mode) {
    common_[kGamma] = mode == GammaMode::FixedOne ? QStringLiteral("fixed_1") : QStringLiteral("free");
}

std::optional<std::pair<double, double>> ProjectSettings::budgetRange() const {
    const QJsonArray a = common_.value(kBudgetRange).toArray();
    if (a.size() != 2) return std::nullopt;
    return std::make_pair(a[0].toDouble(), a[1].toDouble());
}
void ProjectSettings::setBudgetRange(std::optional<std::pair<double, double>> range) {
    if (range)
        common_[kBudgetRange] = QJsonArray{range->first, range->second};
    else
        common_.remove(kBudgetRange);
}

bool jsonEquivalent(const QJsonValue& a, const QJsonValue& b) {
    if (a.isDouble() && b.isDouble()) return a.toDouble() == b.toDouble();  // 8192 and 8192.0 alike
    if (a.type() != b.type()) return false;
    if (a.isObject()) {
        const QJsonObject x = a.toObject(), y = b.toObject();
        if (x.keys() != y.keys()) return false;
        for (auto it = x.begin(); it != x.end(); ++it)
            if (!jsonEquivalent(it.value(), y.value(it.key()))) return false;
        return true;
    }
    if (a.isArray()) {
        const QJsonArray x = a.toArray(), y = b.toArray();
        if (x.size() != y.size()) return false;
        for (qsizetype i = 0; i < x.size(); ++i)
            if (!jsonEquivalent(x[i], y[i])) return false;
        return true;
    }
    return a == b;
}

bool operator==(const ProjectSettings& a, const ProjectSettings& b) { return jsonEquivalent(a.toJson(), b.toJson()); }

QJsonObject ProjectSettings::toJson() const {
    return {{"common", common_}, {"analyses", analyses_}, {"views", views_}};
}

Expected<ProjectSettings> ProjectSettings::fromJson(const QJsonObject& object, const std::string& file) {
    ProjectSettings s;
    for (const char* key : {"common", "analyses", "views"}) {
        const QJsonValue v = object.value(QLatin1String(key));
        if (!v.isUndefined() && !v.isObject()) return LoadError{file, 0, key, "expected a JSON object", true};
    }
    s.common_ = object.value("common").toObject();
    s.analyses_ = object.value("analyses").toObject();
    s.views_ = object.value("views").toObject();
    for (const QString& name : s.analyses_.keys())
        if (!s.analyses_.value(name).isObject())
            return LoadError{file, 0, "analyses." + name.toStdString(), "expected a JSON object", true};
    for (const QString& name : s.views_.keys())
        if (!s.views_.value(name).isObject())
            return LoadError{file, 0, "views." + name.toStdString(), "expected a JSON object", true};

    const QJsonObject& c = s.common_;
    auto field = [&](const QString& key) { return "common." + key.toStdString(); };
    if (c.contains(kConvention)) {
        if (!c.value(kConvention).isString() || !accounting::conventionByName(c.value(kConvention).toString().toStdString()))
            return LoadError{file, 0, field(kConvention), "expected one of study, appendix, chinchilla, 6nd", true};
    }
    if (c.contains(kContext) && !(c.value(kContext).isDouble() && c.value(kContext).toDouble() >= 1))
        return LoadError{file, 0, field(kContext), "expected a context length of at least 1 token", true};
    if (c.contains(kAllRuns) && !c.value(kAllRuns).isBool())
        return LoadError{file, 0, field(kAllRuns), "expected true or false", true};
    if (c.contains(kHuberDelta) && !(c.value(kHuberDelta).isDouble() && c.value(kHuberDelta).toDouble() > 0))
        return LoadError{file, 0, field(kHuberDelta), "expected a positive number", true};
    if (c.contains(kGamma) && c.value(kGamma).toString() != QLatin1String("free") &&
        c.value(kGamma).toString() != QLatin1String("fixed_1"))
        return LoadError{file, 0, field(kGamma), "expected \"free\" or \"fixed_1\"", true};
    if (c.contains(kBudgetRange)) {
        const QJsonArray a = c.value(kBudgetRange).toArray();
        if (!c.value(kBudgetRange).isArray() || a.size() != 2 || !a[0].isDouble() || !a[1].isDouble() ||
            !(a[0].toDouble() > 0) || !(a[1].toDouble() >= a[0].toDouble()))
            return LoadError{file, 0, field(kBudgetRange), "expected [low, high] with 0 < low <= high", true};
    }
    return s;
}

}  // namespace scalex::data
