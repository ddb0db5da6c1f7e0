#include "core/analysis/AnalysisSettings.h"

#include <QJsonArray>
#include <algorithm>

#include "core/accounting/FlopCount.h"
#include "core/analysis/StudyReading.h"

namespace scalex::analysis {

namespace {

const QString kConvention = QStringLiteral("flop_convention");
const QString kContextLength = QStringLiteral("context_length");
const QString kHuberDelta = QStringLiteral("huber_delta");
const QString kGamma = QStringLiteral("gamma");
const QString kBudgetRange = QStringLiteral("budget_range");
const QString kAllRuns = QStringLiteral("all_runs");
const QString kSeriesBy = QStringLiteral("series_by");
const QString kSeries = QStringLiteral("series");
const QString kRunContext = QStringLiteral("run_context");
const QString kExperimentSet = QStringLiteral("experiment_set");
const QString kWhere = QStringLiteral("where");
const QString kCheckpoints = QStringLiteral("include_checkpoints");
const QString kKeepOutliers = QStringLiteral("keep_outliers");
const QString kAllSweepRuns = QStringLiteral("all_sweep_runs");
const QString kKeptBudgets = QStringLiteral("kept_budgets");
const QString kRoles = QStringLiteral("roles");

QJsonArray strings(const std::vector<std::string>& v) {
    QJsonArray a;
    for (const auto& s : v) a.append(QString::fromStdString(s));
    return a;
}

}  // namespace

RunFilter Scope::filter(std::optional<std::string> oneSeries, std::optional<double> atContext) const {
    RunFilter f;
    f.series = std::move(oneSeries);
    f.context = atContext ? atContext : context;
    f.experimentSet = experimentSet;
    f.selectedOnly = !allRuns;
    f.includeCheckpoints = includeCheckpoints;
    f.allSweepRuns = allSweepRuns;
    f.where = where;
    return f;
}

bool Scope::containsSeries(const std::string& name) const {
    return series.empty() || std::find(series.begin(), series.end(), name) != series.end();
}

std::optional<bool> parseFitGamma(const std::string& text) {
    if (text == "free") return true;
    if (text == "fixed_1" || text == "fixed" || text == "1") return false;
    return std::nullopt;
}

std::optional<data::ExperimentSet> parseExperimentSet(const std::string& name) {
    if (name == "isoflop") return data::ExperimentSet::IsoFlop;
    if (name == "tokenparam") return data::ExperimentSet::TokenParam;
    if (name == "other") return data::ExperimentSet::Other;
    return std::nullopt;
}

std::string experimentSetName(data::ExperimentSet set) {
    switch (set) {
        case data::ExperimentSet::IsoFlop: return "isoflop";
        case data::ExperimentSet::TokenParam: return "tokenparam";
        default: return "other";
    }
}

QJsonObject AnalysisSettings::toJson() const {
    QJsonObject o{{kConvention, QString::fromStdString(convention)},
                  {kContextLength, contextLength},
                  {kHuberDelta, huberDelta},
                  {kGamma, fitGamma ? QStringLiteral("free") : QStringLiteral("fixed_1")},
                  {kAllRuns, scope.allRuns}};
    if (budgetRange) o.insert(kBudgetRange, QJsonArray{budgetRange->first, budgetRange->second});
    if (!seriesBy.empty()) o.insert(kSeriesBy, strings(seriesBy));
    if (!scope.series.empty()) o.insert(kSeries, strings(scope.series));
    if (scope.context) o.insert(kRunContext, *scope.context);
    if (scope.experimentSet) o.insert(kExperimentSet, QString::fromStdString(experimentSetName(*scope.experimentSet)));
    if (scope.includeCheckpoints) o.insert(kCheckpoints, true);
    if (keepOutliers) o.insert(kKeepOutliers, true);
    if (scope.allSweepRuns) o.insert(kAllSweepRuns, true);
    if (!keptBudgets.empty()) {
        QJsonArray b;
        for (double v : keptBudgets) b.append(v);
        o.insert(kKeptBudgets, b);
    }
    if (!roles.empty()) {
        QJsonObject r;
        for (const auto& [column, role] : roles) r.insert(QString::fromStdString(column), QString::fromStdString(role));
        o.insert(kRoles, r);
    }
    if (!scope.where.empty()) {
        QJsonArray w;
        for (const auto& c : scope.where) w.append(QString::fromStdString(c.text()));
        o.insert(kWhere, w);
    }
    return o;
}

data::Expected<AnalysisSettings> AnalysisSettings::fromJson(const QJsonObject& c, const std::string& file) {
    AnalysisSettings s;
    auto error = [&](const QString& key, const std::string& what) {
        return data::LoadError{file, 0, "common." + key.toStdString(), what, true};
    };
    auto stringList = [&](const QString& key, std::vector<std::string>& out) -> std::optional<data::LoadError> {
        if (!c.contains(key)) return std::nullopt;
        if (!c.value(key).isArray()) return error(key, "expected an array of strings");
        for (const auto& v : c.value(key).toArray()) {
            if (!v.isString()) return error(key, "expected an array of strings");
            out.push_back(v.toString().toStdString());
        }
        return std::nullopt;
    };
    if (c.contains(kConvention)) {
        const std::string name = c.value(kConvention).toString().toStdString();
        if (!accounting::conventionByName(name)) return error(kConvention, "expected one of study, appendix, chinchilla, 6nd");
        s.convention = name;
    }
    if (c.contains(kContextLength)) {
        if (!(c.value(kContextLength).toDouble(0) >= 1)) return error(kContextLength, "expected a context length of at least 1 token");
        s.contextLength = c.value(kContextLength).toDouble();
    }
    if (c.contains(kHuberDelta)) {
        if (!(c.value(kHuberDelta).toDouble(0) > 0)) return error(kHuberDelta, "expected a positive number");
        s.huberDelta = c.value(kHuberDelta).toDouble();
    }
    if (c.contains(kGamma)) {
        const auto fitGamma = parseFitGamma(c.value(kGamma).toString().toStdString());
        if (!fitGamma) return error(kGamma, "expected \"free\" or \"fixed_1\" (or \"fixed\", \"1\")");
        s.fitGamma = *fitGamma;
    }
    if (c.contains(kBudgetRange)) {
        const QJsonArray a = c.value(kBudgetRange).toArray();
        if (a.size() != 2 || !(a[0].toDouble(0) > 0) || !(a[1].toDouble(0) >= a[0].toDouble(0)))
            return error(kBudgetRange, "expected [low, high] with 0 < low <= high");
        s.budgetRange = std::pair{a[0].toDouble(), a[1].toDouble()};
    }
    if (c.contains(kAllRuns)) {
        if (!c.value(kAllRuns).isBool()) return error(kAllRuns, "expected true or false");
        s.scope.allRuns = c.value(kAllRuns).toBool();
    }
    if (c.contains(kCheckpoints)) {
        if (!c.value(kCheckpoints).isBool()) return error(kCheckpoints, "expected true or false");
        s.scope.includeCheckpoints = c.value(kCheckpoints).toBool();
    }
    if (c.contains(kKeepOutliers)) {
        if (!c.value(kKeepOutliers).isBool()) return error(kKeepOutliers, "expected true or false");
        s.keepOutliers = c.value(kKeepOutliers).toBool();
    }
    if (c.contains(kAllSweepRuns)) {
        if (!c.value(kAllSweepRuns).isBool()) return error(kAllSweepRuns, "expected true or false");
        s.scope.allSweepRuns = c.value(kAllSweepRuns).toBool();
    }
    if (c.contains(kKeptBudgets)) {
        if (!c.value(kKeptBudgets).isArray()) return error(kKeptBudgets, "expected an array of positive budgets");
        for (const auto& v : c.value(kKeptBudgets).toArray()) {
            if (!(v.toDouble(0) > 0)) return error(kKeptBudgets, "expected an array of positive budgets");
            s.keptBudgets.push_back(v.toDouble());
        }
    }
    if (auto e = stringList(kSeriesBy, s.seriesBy)) return *e;
    if (auto e = stringList(kSeries, s.scope.series)) return *e;
    if (c.contains(kRunContext)) {
        if (!(c.value(kRunContext).toDouble(0) >= 1)) return error(kRunContext, "expected a context length of at least 1 token");
        s.scope.context = c.value(kRunContext).toDouble();
    }
    if (c.contains(kExperimentSet)) {
        s.scope.experimentSet = parseExperimentSet(c.value(kExperimentSet).toString().toStdString());
        if (!s.scope.experimentSet) return error(kExperimentSet, "expected isoflop, tokenparam or other");
    }
    if (c.contains(kRoles)) {
        if (!c.value(kRoles).isObject()) return error(kRoles, "expected an object of column: role");
        const QJsonObject r = c.value(kRoles).toObject();
        for (auto it = r.begin(); it != r.end(); ++it) {
            if (!it.value().isString() || !parseRole(it.value().toString().toStdString()))
                return error(kRoles, "'" + it.key().toStdString() + "': expected one of " + roleNames());
            s.roles[it.key().toStdString()] = it.value().toString().toStdString();
        }
    }
    std::vector<std::string> where;
    if (auto e = stringList(kWhere, where)) return *e;
    for (const auto& w : where) {
        auto cond = parseCondition(w);
        if (!cond) return error(kWhere, cond.error().message);
        s.scope.where.push_back(*cond);
    }
    return s;
}

data::Expected<AnalysisSettings> AnalysisSettings::fromProject(const data::ProjectSettings& settings) {
    return fromJson(settings.common());
}

void AnalysisSettings::storeIn(data::ProjectSettings& settings) const {
    // Keys this version does not know stay as they were.
    QJsonObject common = settings.common();
    for (const QString& key : {kBudgetRange, kSeriesBy, kSeries, kRunContext, kExperimentSet, kWhere, kCheckpoints,
                               kKeepOutliers, kAllSweepRuns, kKeptBudgets, kRoles, QStringLiteral("selected_only")})
        common.remove(key);
    const QJsonObject mine = toJson();
    for (auto it = mine.begin(); it != mine.end(); ++it) common.insert(it.key(), it.value());
    settings.setCommon(common);
}

}  // namespace scalex::analysis
