#include "core/analysis/LawAnalysis.h"
#include "core/analysis/StudyReading.h"
#include "core/analysis/AnalysisJson.h"

#include <QJsonArray>
#include <QJsonValue>
#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <stdexcept>

#include "core/analysis/LawVariables.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/Study.h"
#include "core/data/Series.h"
#include "core/fit/LawLibrary.h"
#include "core/fit/LawQuery.h"

namespace scalex::analysis {

namespace {

std::string runName(const data::Run& run) { return data::runLabel(run); }

}  // namespace

std::string checkLaw(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law) {
    const auto runs = runsInScope(table, settings);
    const auto compiled = fit::compileLaw(law, lawColumnTest(runs));
    if (const auto* e = std::get_if<fit::LawError>(&compiled)) return e->text();
    const auto& c = std::get<fit::CompiledLaw>(compiled);
    if (!namesStudyLoss(c.target) && !lawColumnTest(runs)(c.target)) return "the target '" + c.target + "' is not a column of the runs";
    return {};
}

LawAnalysis fitLawAnalysis(const Study& study, const fit::LawDefinition& law, const LawFitOptions& options, const fit::FitControl& control) {
    return fitLawAnalysis(study.runs(), study.settings(), law, options, control);
}

namespace {

QJsonValue keyConditions(const std::optional<std::vector<RowCondition>>& conditions) {
    if (!conditions) return QJsonValue();
    QJsonArray out;
    for (const auto& c : *conditions) out.append(QString::fromStdString(c.text()));
    return out;
}

// The options of a law fit as a key of ResultCache.
QJsonObject keyJson(const LawFitOptions& o) {
    QJsonArray shared, queries;
    for (const auto& s : o.shared) shared.append(QString::fromStdString(s));
    for (const auto& q : o.queries) {
        QJsonArray given;
        for (const auto& [name, value] : q.given) given.append(QJsonArray{QString::fromStdString(name), keyNumber(value)});
        queries.append(QJsonObject{{"kind", static_cast<int>(q.kind)}, {"given", given}, {"value", keyNumber(q.value)}});
    }
    const fit::LawFitSettings& f = o.fit;
    return {{"group", o.groupColumn ? QJsonValue(QString::fromStdString(*o.groupColumn)) : QJsonValue()},
            {"shared", shared},
            {"train", keyConditions(o.train)},
            {"test", keyConditions(o.test)},
            {"held_out_from", o.heldOutFrom ? QJsonValue(static_cast<qint64>(*o.heldOutFrom)) : QJsonValue()},
            {"leave_one_out", o.leaveOneOut ? QJsonValue(QString::fromStdString(*o.leaveOneOut)) : QJsonValue()},
            {"fit", QJsonObject{{"starts", f.starts}, {"seed", QString::number(f.seed)}, {"projection", f.projection},
                                {"screen_stop", keyNumber(f.screenStop)}, {"stop_delta", keyNumber(f.stopDelta)},
                                {"refine_count", f.refineCount}, {"max_iterations", f.maxIterations},
                                {"spread_tolerance", keyNumber(f.spreadTolerance)}}},
            {"resamples", o.resamples},
            {"level", keyNumber(o.level)},
            {"seed", QString::number(o.seed)},
            {"queries", queries},
            {"interval", static_cast<int>(o.interval)}};
}

}  // namespace

LawAnalysis fitLawAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                           const LawFitOptions& options, const fit::FitControl& control) {
    // Kept by the law, the options and every cell of the runs (a law may read any column).
    const QJsonObject key{{"law", lawToJson(law)}, {"settings", settings.toJson()}, {"options", keyJson(options)}};
    return ResultCache::shared().getUnlessCancelled<LawAnalysis>(
        {"law-fit", law.name, canonicalJson(key), selectionRevision(table, settings.scope.filter())},
        [&] { return computeLawAnalysis(table, settings, law, options, control); }, control,
        [&] {
            LawAnalysis cancelled;  // while another thread fitted the same
            cancelled.law = law;
            cancelled.error = "cancelled";
            return cancelled;
        });
}

LawAnalysis computeLawAnalysis(const data::RunTable& table, const AnalysisSettings& settings, const fit::LawDefinition& law,
                               const LawFitOptions& options, const fit::FitControl& control) {
    LawAnalysis a;
    a.law = law;
    a.level = options.level;
    // Bounds that keep a typo from asking for days of work or all the memory.
    if (options.fit.starts < 1 || options.fit.starts > 1000000) {
        a.error = "starts must lie in 1 ... 1000000, got " + std::to_string(options.fit.starts);
        return a;
    }
    if (options.resamples < 0 || options.resamples > 100000) {
        a.error = "resamples must lie in 0 ... 100000, got " + std::to_string(options.resamples);
        return a;
    }
    if (!(options.level > 0 && options.level < 1)) {
        a.error = "the interval level must lie in (0, 1), got " + std::to_string(options.level);
        return a;
    }
    // A law over a knob (a column the study's sweeps tune: analysis/StudyReading.h) is a law of
    // every setting, so every run of its sweeps counts, not only the best of each.
    const AnalysisSettings lawSettings = [&] {
        AnalysisSettings every = settings;
        if (settings.scope.allSweepRuns) return every;
        every.scope.allSweepRuns = true;
        const auto compiled = fit::compileLaw(law, lawColumnTest(runsInScope(table, every)));
        const auto* c = std::get_if<fit::CompiledLaw>(&compiled);
        if (!c) return settings;
        const StudyReading reading = readStudy(table, settings.scope.filter(), ReadingOptions{settings.seriesBy, settings.roles});
        for (const auto& v : c->variables)
            if (std::find(reading.knobs.begin(), reading.knobs.end(), v) != reading.knobs.end()) return every;
        return settings;
    }();
    a.everySweepRun = lawSettings.scope.allSweepRuns && !settings.scope.allSweepRuns;
    const auto scoped = runsInScope(table, lawSettings);
    if (scoped.empty()) {
        a.error = "no runs in scope";
        return a;
    }
    if (options.heldOutFrom && *options.heldOutFrom < table.runs.size()) {
        a.heldOutRows = table.runs.size() - *options.heldOutFrom;
        a.heldOutOutsideScope = a.heldOutRows - static_cast<std::size_t>(std::count_if(scoped.begin(), scoped.end(), [&](const data::Run* r) {
                                    return static_cast<std::size_t>(r - table.runs.data()) >= *options.heldOutFrom;
                                }));
    }
    const auto compiledOr = fit::compileLaw(law, lawColumnTest(scoped));
    if (const auto* e = std::get_if<fit::LawError>(&compiledOr)) {
        a.error = "formula '" + law.formula + "': " + e->text();
        return a;
    }
    const auto& compiled = std::get<fit::CompiledLaw>(compiledOr);
    std::vector<fit::LawQuery> queries;
    for (const auto& spec : options.queries) {
        auto resolved = resolveLawQuery(compiled, spec);
        if (const auto* bad = std::get_if<std::string>(&resolved)) {
            a.error = describeLawQuery(spec) + ": " + *bad;
            return a;
        }
        queries.push_back(std::get<fit::LawQuery>(resolved));
    }
    a.interval = options.interval;
    a.target = namesStudyLoss(compiled.target) ? (compiled.target.empty() ? "loss" : compiled.target) : compiled.target;
    a.variables = compiled.variables;
    if (!namesStudyLoss(compiled.target) && !lawColumnTest(scoped)(compiled.target)) {
        a.error = "the target '" + compiled.target + "' is not a column of the runs";
        return a;
    }
    for (const auto* conditions : {&options.train, &options.test})
        if (*conditions)
            if (auto bad = checkColumns(table, **conditions)) {
                a.error = bad->column + ": " + bad->message;
                return a;
            }
    if (options.groupColumn && !lawColumnTest(scoped)(*options.groupColumn) &&
        !std::any_of(scoped.begin(), scoped.end(), [&](const data::Run* r) { return data::runValue(*r, *options.groupColumn).has_value(); })) {
        a.error = "--group: no column '" + *options.groupColumn + "' in the runs";
        return a;
    }
    if (options.leaveOneOut && (options.train || options.test)) {
        a.error = "give either a leave-one-out column or a train/test split, not both";
        return a;
    }
    if (options.heldOutFrom && (options.train || options.test || options.leaveOneOut)) {
        a.error = "--holdout scores the rows of another file: give it without --train, --test or --leave-one-out";
        return a;
    }
    if (options.leaveOneOut &&
        !std::any_of(scoped.begin(), scoped.end(), [&](const data::Run* r) { return data::runValue(*r, *options.leaveOneOut).has_value(); })) {
        a.error = "--leave-one-out: no column '" + *options.leaveOneOut + "' in the runs";
        return a;
    }
    a.split = options.train.has_value() || options.test.has_value() || options.leaveOneOut.has_value() ||
              options.heldOutFrom.has_value();

    // Each run's variables, target, group and side of the split.
    struct Row {
        const data::Run* run;
        std::vector<double> values;
        double target;
        bool train;
        std::string fold;  // its value of the leave-one-out column
    };
    std::vector<std::string> groupOrder;
    std::map<std::string, std::vector<Row>> groups;
    for (const data::Run* run : scoped) {
        Row row{run, {}, 0, true, {}};
        if (options.leaveOneOut) row.fold = data::runValue(*run, *options.leaveOneOut).value_or("");
        std::string missing;
        for (const auto& v : compiled.variables) {
            const auto x = lawVariableOf(*run, v);
            if (!x || !std::isfinite(*x)) {
                missing = v;
                break;
            }
            row.values.push_back(*x);
        }
        const auto y = lawVariableOf(*run, a.target);
        if (missing.empty() && (!y || !std::isfinite(*y))) missing = a.target;
        if (!missing.empty()) {
            a.skipped.push_back(describeRun(*run, "no number for '" + missing + "'"));
            continue;
        }
        row.target = *y;
        if (options.train && options.test) {
            const bool inTrain = meetsAll(*run, *options.train), inTest = meetsAll(*run, *options.test);
            if (!inTrain && !inTest) continue;
            row.train = inTrain;  // a run in both trains (and is not scored)
        } else if (options.train) {
            row.train = meetsAll(*run, *options.train);
        } else if (options.test) {
            row.train = !meetsAll(*run, *options.test);
        } else if (options.heldOutFrom) {
            row.train = static_cast<std::size_t>(run - table.runs.data()) < *options.heldOutFrom;
        }
        // By default each series at each context length apart, as every fit of the study.
        const std::string group = options.groupColumn ? data::runValue(*run, *options.groupColumn).value_or("")
                                                      : SeriesGroup{run->series, run->context, {}}.label();
        if (!groups.count(group)) groupOrder.push_back(group);
        groups[group].push_back(std::move(row));
    }
    if (groupOrder.empty()) {
        a.error = "no run in scope has a number for every name of the law (" + std::to_string(a.skipped.size()) + " skipped)";
        return a;
    }

    // The fits of one split: every group apart, or all at once with the shared parameters in
    // common. A group that cannot be fitted gets its error.
    struct Fitted {
        fit::LawFitResult fit;
        std::string error;
    };
    auto fitGroups = [&](const std::vector<fit::LawData>& trains) {
        std::vector<Fitted> out(trains.size());
        if (!options.shared.empty()) {
            try {
                auto joint = fit::fitLawJoint(compiled, trains, options.shared, options.fit, control);
                for (std::size_t k = 0; k < joint.size(); ++k) out[k].fit = std::move(joint[k]);
            } catch (const std::invalid_argument& e) {
                for (auto& f : out) f.error = e.what();
            }
        } else {
            for (std::size_t k = 0; k < trains.size(); ++k) {
                if (control.cancelled()) {
                    out[k].error = "cancelled";
                    continue;
                }
                try {
                    out[k].fit = fit::fitLaw(compiled, trains[k], options.fit, control);
                } catch (const std::invalid_argument& e) {
                    out[k].error = e.what();
                }
            }
        }
        for (auto& f : out)
            if (f.error.empty() && !std::isfinite(f.fit.objective))
                f.error = f.fit.warnings.empty() ? "no start reached a finite objective" : f.fit.warnings.front();
        return out;
    };
    // Predictions of held-out runs with their intervals (with shared parameters, the intervals
    // refit the group's own ones, the shared held at the joint fit's values).
    std::vector<double> pooledObserved, pooledPredicted;
    auto predictHeldOut = [&](LawGroupFit& g, const fit::LawFitResult& f, const fit::LawData& train, const fit::LawData& test,
                              const std::vector<const Row*>& rows, const std::string& fold) {
        fit::CompiledLaw conditional = compiled;
        for (const auto& name : options.shared)
            for (std::size_t j = 0; j < conditional.parameterCount(); ++j)
                if (conditional.parameterName(j) == name) conditional.lower[j] = conditional.upper[j] = f.params[j];
        const auto predicted = fit::predictLaw(compiled, test, f.params);
        const auto intervals = fit::lawPredictionIntervals(conditional, train, f.params, test, options.resamples, options.seed,
                                                           options.level, options.fit, control);
        g.intervalResamples = g.intervalResamples == 0 ? intervals.resamples : std::min(g.intervalResamples, intervals.resamples);
        for (std::size_t i = 0; i < test.size(); ++i) {
            const data::Run& run = *rows[i]->run;
            g.predictions.push_back({static_cast<int>(&run - table.runs.data()), runName(run), run.sourceLine, test.target[i], predicted[i],
                                     intervals.lower[i], intervals.upper[i], fold});
            pooledObserved.push_back(test.target[i]);
            pooledPredicted.push_back(predicted[i]);
        }
    };
    auto scoreGroup = [](LawGroupFit& g) {
        if (g.predictions.empty()) return;
        std::vector<double> observed, predicted;
        for (const auto& p : g.predictions) observed.push_back(p.observed), predicted.push_back(p.predicted);
        g.test = fit::scoreHeldOut(observed, predicted);
    };

    // Each group's training and held-out runs, and the fit of each group.
    const std::size_t nGroups = groupOrder.size();
    std::vector<fit::LawData> trains(nGroups), tests(nGroups);
    std::vector<std::vector<const Row*>> testRows(nGroups);
    for (std::size_t k = 0; k < nGroups; ++k) {
        trains[k].variableCount = tests[k].variableCount = compiled.variables.size();
        for (const auto& r : groups[groupOrder[k]]) {
            if (r.train) trains[k].add(r.values, r.target);
            else tests[k].add(r.values, r.target), testRows[k].push_back(&r);
        }
        LawGroupFit g;
        g.name = groupOrder[k];
        g.nTrain = trains[k].size();
        g.nTest = tests[k].size();
        a.groups.push_back(std::move(g));
    }
    auto fitted = fitGroups(trains);
    for (std::size_t k = 0; k < nGroups; ++k) {
        LawGroupFit& g = a.groups[k];
        g.error = fitted[k].error;
        if (!g.error.empty()) continue;
        g.fit = std::move(fitted[k].fit);
        g.quality = fit::assessLawFit(compiled, trains[k], g.fit.params);
        if (tests[k].size() > 0) predictHeldOut(g, g.fit, trains[k], tests[k], testRows[k], {});
        if (queries.empty()) continue;
        // As for held-out runs: with shared parameters the intervals refit the group's own.
        fit::CompiledLaw conditional = compiled;
        for (const auto& name : options.shared)
            for (std::size_t j = 0; j < conditional.parameterCount(); ++j)
                if (conditional.parameterName(j) == name) conditional.lower[j] = conditional.upper[j] = g.fit.params[j];
        const auto intervals = fit::lawQueryIntervals(conditional, trains[k], g.fit.params, queries, options.interval, options.resamples,
                                                      options.seed, options.level, options.fit, control);
        g.queryResamples = intervals.resamples;
        for (std::size_t qi = 0; qi < queries.size(); ++qi) {
            const auto value = fit::answerLawQuery(compiled, g.fit.params, queries[qi]);
            if (!value.error.empty()) {
                // A target no budget reaches: the answer the user asked for does not exist.
                a.error = (nGroups > 1 ? g.name + ": " : std::string()) + describeLawQuery(options.queries[qi]) + ": " + value.error;
                return a;
            }
            g.queries.push_back({options.queries[qi], fit::lawQueryOutputs(queries[qi].kind), value.values, intervals.lower[qi], intervals.upper[qi]});
        }
    }

    // Leave one out: each value of the column held out in turn, the law refitted on the others.
    if (options.leaveOneOut) {
        std::vector<std::string> folds;
        for (const auto& name : groupOrder)
            for (const auto& r : groups[name])
                if (std::find(folds.begin(), folds.end(), r.fold) == folds.end()) folds.push_back(r.fold);
        for (const auto& fold : folds) {
            std::vector<fit::LawData> foldTrains(nGroups), foldTests(nGroups);
            std::vector<std::vector<const Row*>> foldRows(nGroups);
            for (std::size_t k = 0; k < nGroups; ++k) {
                foldTrains[k].variableCount = foldTests[k].variableCount = compiled.variables.size();
                for (const auto& r : groups[groupOrder[k]]) {
                    if (r.fold != fold) foldTrains[k].add(r.values, r.target);
                    else foldTests[k].add(r.values, r.target), foldRows[k].push_back(&r);
                }
            }
            const auto foldFits = fitGroups(foldTrains);
            for (std::size_t k = 0; k < nGroups; ++k) {
                if (foldTests[k].size() == 0 || !a.groups[k].error.empty()) continue;
                if (!foldFits[k].error.empty()) {
                    a.groups[k].foldErrors.push_back(*options.leaveOneOut + " = " + fold + ": " + foldFits[k].error);
                    continue;
                }
                a.groups[k].nTest += foldTests[k].size();
                predictHeldOut(a.groups[k], foldFits[k].fit, foldTrains[k], foldTests[k], foldRows[k], fold);
            }
        }
    }
    for (auto& g : a.groups) scoreGroup(g);
    if (a.split) a.test = fit::scoreHeldOut(pooledObserved, pooledPredicted);
    if (std::all_of(a.groups.begin(), a.groups.end(), [](const LawGroupFit& g) { return !g.error.empty(); }))
        a.error = a.groups.size() == 1 ? a.groups.front().error : "no group could be fitted (" + a.groups.front().name + ": " + a.groups.front().error + ")";
    return a;
}

// ---- JSON -----------------------------------------------------------------------------------

namespace {

QJsonObject scoreJson(const fit::HeldOutScore& s) {
    if (s.n == 0) return {{"n", 0}, {"r2", QJsonValue::Null}, {"mape", QJsonValue::Null}, {"max_rel_error", QJsonValue::Null}};  // nothing scored
    return {{"n", static_cast<qint64>(s.n)}, {"r2", jsonNumber(s.r2)}, {"mape", jsonNumber(s.mape)}, {"max_rel_error", jsonNumber(s.maxRelError)}};
}

QJsonArray parametersJson(const fit::LawDefinition& law) {
    QJsonArray a;
    for (const auto& p : law.parameters) {
        QJsonObject o{{"name", jsonText(p.name)}, {"lower", jsonNumber(p.lower)}, {"upper", jsonNumber(p.upper)}};
        if (p.start) o.insert("start", *p.start);
        a.append(o);
    }
    return a;
}

}  // namespace

QJsonObject lawToJson(const fit::LawDefinition& law) {
    QJsonObject o{{"formula", jsonText(law.formula)},
                  {"parameters", parametersJson(law)},
                  {"space", jsonText(fit::lawSpaceName(law.space))},
                  {"loss", jsonText(fit::lawLossName(law.loss))}};
    if (!law.name.empty()) o.insert("name", jsonText(law.name));
    if (law.loss == fit::LawLoss::Huber) o.insert("huber_delta", law.huberDelta);
    if (!law.linear.empty()) {
        o.insert("linear", stringsJson(law.linear));
    }
    if (!law.citation.empty()) o.insert("citation", jsonText(law.citation));
    if (!law.description.empty()) o.insert("description", jsonText(law.description));
    return o;
}

data::Expected<fit::LawDefinition> lawFromJson(const QJsonObject& o) {
    auto bad = [](const std::string& key, const std::string& what) { return data::LoadError{"law", 0, key, what}; };
    fit::LawDefinition law;
    if (!o.value("formula").isString()) return bad("formula", "expected the formula as a string");
    law.formula = o.value("formula").toString().toStdString();
    auto text = [&](const char* key, std::string& out) -> bool {
        if (!o.contains(QLatin1String(key))) return true;
        if (!o.value(QLatin1String(key)).isString()) return false;
        out = o.value(QLatin1String(key)).toString().toStdString();
        return true;
    };
    if (!text("name", law.name)) return bad("name", "expected a string");
    if (!text("citation", law.citation)) return bad("citation", "expected a string");
    if (!text("description", law.description)) return bad("description", "expected a string");
    std::string space = "linear", loss = "squared";
    if (!text("space", space) || !fit::parseLawSpace(space)) return bad("space", "expected \"linear\" or \"log\"");
    if (!text("loss", loss) || !fit::parseLawLoss(loss)) return bad("loss", "expected \"squared\" or \"huber\"");
    law.space = *fit::parseLawSpace(space);
    law.loss = *fit::parseLawLoss(loss);
    if (o.contains("huber_delta")) {
        if (!o.value("huber_delta").isDouble() || !(o.value("huber_delta").toDouble() > 0)) return bad("huber_delta", "expected a positive number");
        law.huberDelta = o.value("huber_delta").toDouble();
    }
    if (o.contains("linear")) {
        if (!o.value("linear").isArray()) return bad("linear", "expected an array of parameter names");
        for (const auto& v : o.value("linear").toArray()) {
            if (!v.isString()) return bad("linear", "expected an array of parameter names");
            law.linear.push_back(v.toString().toStdString());
        }
    }
    if (!o.value("parameters").isArray()) return bad("parameters", "expected an array of {name, lower, upper, start}");
    for (const auto& v : o.value("parameters").toArray()) {
        const QJsonObject p = v.toObject();
        if (!v.isObject() || !p.value("name").isString()) return bad("parameters", "each parameter needs a name");
        fit::LawParameter lp;
        lp.name = p.value("name").toString().toStdString();
        for (const auto& [key, out] : {std::pair{"lower", &lp.lower}, std::pair{"upper", &lp.upper}}) {
            if (!p.contains(QLatin1String(key))) continue;  // missing bounds: compileLaw names the parameter
            if (!p.value(QLatin1String(key)).isDouble()) return bad("parameters", "parameter '" + lp.name + "': " + key + " is not a number");
            *out = p.value(QLatin1String(key)).toDouble();
        }
        if (p.contains("start")) {
            if (!p.value("start").isDouble()) return bad("parameters", "parameter '" + lp.name + "': start is not a number");
            lp.start = p.value("start").toDouble();
        }
        law.parameters.push_back(lp);
    }
    return law;
}

QJsonArray shippedLawsJson() {
    QJsonArray a;
    for (const auto& l : fit::shippedLaws()) a.append(lawToJson(l));
    return a;
}

std::string shippedLawsText() {
    std::string t;
    for (const auto& l : fit::shippedLaws()) {
        t += l.name + ": " + l.description + "\n    " + lawSummary(l) + "\n    params:";
        for (const auto& p : l.parameters) {
            char buf[96];
            std::snprintf(buf, sizeof buf, " %s=%g:%g", p.name.c_str(), p.lower, p.upper);
            t += buf;
        }
        t += "\n    source: " + l.citation + "\n";
    }
    return t;
}

std::string lawSummary(const fit::LawDefinition& law) {
    return law.formula + "  (" + fit::lawSpaceName(law.space) + " space, " + fit::lawLossName(law.loss) + ")";
}

data::Expected<fit::LawDefinition> lawFromRequest(const LawRequest& r) {
    auto bad = [](const char* option, const std::string& what) { return data::LoadError{"law", 0, option, what}; };
    const bool named = !r.law.empty(), typed = !r.formula.empty();
    if (named && typed) return bad("law", "give either a shipped law or a formula, not both");
    if (!named && !typed) return bad("formula", "no formula (TARGET = EXPRESSION) and no shipped law");
    fit::LawDefinition law;
    if (named) {
        auto shipped = fit::shippedLaw(r.law);
        if (!shipped) {
            std::string names;
            for (const auto& l : fit::shippedLaws()) names += (names.empty() ? "" : ", ") + l.name;
            return bad("law", "unknown law '" + r.law + "' (shipped laws: " + names + ")");
        }
        law = *shipped;
    } else {
        law.formula = r.formula;
    }
    for (const auto& text : r.parameters) {
        auto parsed = fit::parseLawParameter(text);
        if (const auto* e = std::get_if<std::string>(&parsed)) return bad("param", *e);
        const auto& given = std::get<fit::LawParameter>(parsed);
        auto it = std::find_if(law.parameters.begin(), law.parameters.end(), [&](const auto& x) { return x.name == given.name; });
        if (named && it == law.parameters.end()) return bad("param", "law '" + law.name + "' has no parameter '" + given.name + "'");
        if (!named && it != law.parameters.end()) return bad("param", "parameter '" + given.name + "' is given twice");
        if (it != law.parameters.end()) *it = given;
        else law.parameters.push_back(given);
    }
    if (!r.loss.empty()) {
        const auto loss = fit::parseLawLoss(r.loss);
        if (!loss) return bad("loss", "expected squared or huber, got '" + r.loss + "'");
        law.loss = *loss;
    }
    if (!r.space.empty()) {
        const auto space = fit::parseLawSpace(r.space);
        if (!space) return bad("space", "expected linear or log, got '" + r.space + "'");
        law.space = *space;
    }
    if (r.huberDelta) {
        if (!(*r.huberDelta > 0)) return bad("huber-delta", "must be positive");
        law.huberDelta = *r.huberDelta;
    }
    return law;
}

QJsonObject toJson(const LawAnalysis& a) {
    QJsonObject o{{"law", lawToJson(a.law)}, {"target", jsonText(a.target)}};
    o.insert("variables", stringsJson(a.variables));
    if (a.error) o.insert("error", jsonText(*a.error));
    QJsonArray groups;
    for (const auto& g : a.groups) {
        QJsonObject j{{"name", jsonText(g.name)}, {"n_train", static_cast<qint64>(g.nTrain)}, {"n_test", static_cast<qint64>(g.nTest)}};
        if (!g.error.empty()) {
            j.insert("error", jsonText(g.error));
            groups.append(j);
            continue;
        }
        QJsonObject params;
        for (std::size_t k = 0; k < g.fit.params.size() && k < a.law.parameters.size(); ++k)
            params.insert(jsonText(a.law.parameters[k].name), jsonNumber(g.fit.params[k]));
        j.insert("objective", jsonNumber(g.fit.objective));
        j.insert("params", params);
        j.insert("r2", jsonNumber(g.quality.r2));
        j.insert("rmse", jsonNumber(g.quality.rmse));
        j.insert("aic", jsonNumber(g.quality.aic));
        j.insert("bic", jsonNumber(g.quality.bic));
        j.insert("n_params", static_cast<qint64>(g.quality.k));
        j.insert("projected", g.fit.projected);
        if (!g.fit.sharedParameters.empty()) {
            j.insert("shared", stringsJson(g.fit.sharedParameters));
            j.insert("joint_objective", jsonNumber(g.fit.jointObjective));
        }
        if (g.fit.projected) {
            QJsonArray lin;
            for (const auto& l : g.fit.linearCoefficients) lin.append(jsonText(l));
            j.insert("linear_coefficients", lin);
        }
        j.insert("starts", static_cast<qint64>(g.fit.nStarts));
        j.insert("converged", static_cast<qint64>(g.fit.nConverged));
        j.insert("near_best", static_cast<qint64>(g.fit.nNearBest));
        j.insert("doubt", g.fit.doubt.empty() ? QJsonValue() : QJsonValue(jsonText(g.fit.doubt)));
        j.insert("seconds", g.fit.seconds);
        QJsonArray warnings;
        for (const auto& w : g.fit.warnings) warnings.append(jsonText(w));
        j.insert("warnings", warnings);
        if (g.test) {
            QJsonObject test = scoreJson(*g.test);
            test.insert("doubtful_optimum", !g.fit.doubt.empty());
            j.insert("test", test);
            QJsonArray preds;
            for (const auto& p : g.predictions) {
                QJsonObject o{{"run", jsonText(p.label)},
                              {"line", p.line},
                              {"observed", p.observed},
                              {"predicted", jsonNumber(p.predicted)},
                              {"lower", jsonNumber(p.lower)},
                              {"upper", jsonNumber(p.upper)}};
                if (!p.fold.empty()) o.insert("held_out", jsonText(p.fold));  // leave one out: the value held out
                preds.append(o);
            }
            j.insert("predictions", preds);
            j.insert("interval_resamples", g.intervalResamples);
        }
        if (!g.queries.empty()) {
            QJsonArray qs;
            for (const auto& answer : g.queries) qs.append(lawQueryJson(answer, a.interval, g.queryResamples, a.level));
            j.insert("queries", qs);
        }
        if (!g.foldErrors.empty()) {
            QJsonArray folds;
            for (const auto& e : g.foldErrors) folds.append(jsonText(e));
            j.insert("fold_errors", folds);
        }
        groups.append(j);
    }
    o.insert("groups", groups);
    if (a.test) {
        QJsonObject t = scoreJson(*a.test);
        t.insert("level", a.level);
        const std::string doubt = lawAnalysisDoubt(a);
        t.insert("doubtful_optimum", !doubt.empty());
        if (!doubt.empty()) t.insert("doubt", jsonText(doubt));
        if (a.heldOutRows > 0) {
            t.insert("held_out_rows", static_cast<qint64>(a.heldOutRows));
            t.insert("outside_scope", static_cast<qint64>(a.heldOutOutsideScope));
        }
        o.insert("test", t);
    }
    o.insert("skipped", stringsJson(a.skipped));
    if (a.everySweepRun) o.insert("every_sweep_run", true);
    return o;
}

std::string lawAnalysisDoubt(const LawAnalysis& a) {
    std::string out;
    for (const auto& g : a.groups) {
        if (g.fit.doubt.empty()) continue;
        if (!out.empty()) out += "; ";
        out += a.groups.size() > 1 ? g.name + ": " + g.fit.doubt : g.fit.doubt;
    }
    return out;
}

}  // namespace scalex::analysis
