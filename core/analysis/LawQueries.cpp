#include "core/analysis/LawQueries.h"
#include "core/analysis/AnalysisJson.h"

#include <QJsonValue>
#include <QString>
#include <algorithm>
#include <cmath>
#include <cstdio>

namespace scalex::analysis {

namespace {


std::string number(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

}  // namespace

std::string intervalMethodName(LawIntervalMethod method) { return fit::lawIntervalMethodName(method); }

std::variant<LawQuerySpec, std::string> parseLawPoint(const std::string& text) {
    LawQuerySpec spec;
    for (const QString& part : QString::fromStdString(text).split(',', Qt::SkipEmptyParts)) {
        const auto eq = part.indexOf('=');
        if (eq <= 0) return "expected NAME=VALUE[,NAME=VALUE...], got '" + part.trimmed().toStdString() + "'";
        const std::string name = part.left(eq).trimmed().toStdString();
        bool ok = false;
        const double v = part.mid(eq + 1).trimmed().toDouble(&ok);
        if (!ok || !std::isfinite(v)) return "'" + name + "': not a number: '" + part.mid(eq + 1).trimmed().toStdString() + "'";
        for (const auto& [n, x] : spec.given)
            if (n == name) return "'" + name + "' is given twice";
        spec.given.emplace_back(name, v);
    }
    if (spec.given.empty()) return "expected NAME=VALUE[,NAME=VALUE...]";
    return spec;
}

std::variant<fit::LawQuery, std::string> resolveLawQuery(const fit::CompiledLaw& law, const LawQuerySpec& spec) {
    fit::LawQuery q;
    q.kind = spec.kind;
    q.value = spec.value;
    std::string vars;
    for (const auto& v : law.variables) vars += (vars.empty() ? "" : ", ") + v;
    if (spec.kind == fit::LawQueryKind::At) {
        for (const auto& [name, value] : spec.given)
            if (std::find(law.variables.begin(), law.variables.end(), name) == law.variables.end())
                return "the law has no variable '" + name + "' (it reads " + vars + ")";
        for (const auto& v : law.variables) {
            auto it = std::find_if(spec.given.begin(), spec.given.end(), [&](const auto& g) { return g.first == v; });
            if (it == spec.given.end()) return "no value for the law's variable '" + v + "' (it reads " + vars + ")";
            q.point.push_back(it->second);
        }
    }
    if (auto bad = fit::checkLawQuery(law, q); !bad.empty()) return bad;
    return q;
}

std::string describeLawQuery(const LawQuerySpec& spec) {
    switch (spec.kind) {
    case fit::LawQueryKind::At: {
        std::string t = "loss at ";
        for (std::size_t i = 0; i < spec.given.size(); ++i) t += (i ? ", " : "") + spec.given[i].first + "=" + number(spec.given[i].second);
        return t;
    }
    case fit::LawQueryKind::OptimalAt: return "optimum at C=" + number(spec.value) + " (C = 6ND)";
    case fit::LawQueryKind::BudgetForLoss: return "budget for loss " + number(spec.value) + " (C = 6ND)";
    }
    return {};
}

QJsonObject lawQueryJson(const LawQueryAnswer& a, fit::LawIntervalMethod method, int resamples, double level) {
    QJsonObject o{{"kind", QString::fromStdString(fit::lawQueryKindName(a.spec.kind))},
                  {"interval", QString::fromStdString(fit::lawIntervalMethodName(method))},
                  {"level", level}};
    if (method == fit::LawIntervalMethod::Bootstrap) o.insert("resamples", resamples);
    QJsonObject given;
    if (a.spec.kind == fit::LawQueryKind::At) {
        for (const auto& [name, v] : a.spec.given) given.insert(QString::fromStdString(name), v);
        o.insert("given", given);
        o.insert("value", jsonNumber(a.values.empty() ? NAN : a.values[0]));
        o.insert("lower", jsonNumber(a.lower.empty() ? NAN : a.lower[0]));
        o.insert("upper", jsonNumber(a.upper.empty() ? NAN : a.upper[0]));
        return o;
    }
    given.insert(a.spec.kind == fit::LawQueryKind::OptimalAt ? "C" : "loss", a.spec.value);
    o.insert("given", given);
    o.insert("compute", "6ND");
    QJsonObject values;
    for (std::size_t j = 0; j < a.outputs.size() && j < a.values.size(); ++j)
        values.insert(QString::fromStdString(a.outputs[j]),
                      QJsonObject{{"value", jsonNumber(a.values[j])}, {"lower", jsonNumber(a.lower[j])}, {"upper", jsonNumber(a.upper[j])}});
    o.insert("values", values);
    return o;
}

}  // namespace scalex::analysis
