// The Python module `scalex` (its compiled part, scalex._scalex): a study read from files, a
// project or CSV bytes (a pandas DataFrame, see scalex/__init__.py), and the analyses the verbs of
// `scalex fit` run on it, each returning the verb's --json object (core/analysis/VerbJson.h) as
// text. It links core/analysis and core/data only, as the verbs do: every number comes from the
// same functions. Fits run with the GIL released, on a worker thread the caller can interrupt
// (Ctrl-C, KeyboardInterrupt) through fit::FitControl's cancel flag.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <QFileInfo>
#include <QSaveFile>
#include <QJsonDocument>
#include <QStringList>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/figures/BenchRoofs.h"
#include "app/python/FigureRender.h"
#include "core/analysis/AccountJson.h"
#include "core/analysis/AnalysisJson.h"
#include "core/analysis/BootstrapAnalysis.h"
#include "core/analysis/PlanCandidates.h"
#include "core/analysis/PlanReplay.h"
#include "core/analysis/StudyDesign.h"
#include "core/data/PaperTables.h"
#include "core/analysis/OptimalInputs.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/ContextStudy.h"
#include "core/analysis/CurveFits.h"
#include "core/analysis/LawAnalysis.h"
#include "core/analysis/LawQueries.h"
#include "core/analysis/ConvertQuery.h"
#include "core/analysis/GenerateQuery.h"
#include "core/analysis/LndQueries.h"
#include "core/analysis/LossSurfaceFitSettings.h"
#include "core/analysis/RuntimeQueries.h"
#include "core/analysis/RunSelection.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/Study.h"
#include "core/analysis/VerbJson.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "core/data/SpecJson.h"

namespace py = pybind11;
using namespace scalex;
using namespace scalex::analysis;

static void initScalexResources() { Q_INIT_RESOURCE(scalex); }

namespace {

// A number as one types it in an option: 1e22, 0.001, 250 (shortest round trip, no "e+").
std::string optionText(double v) {
    char buf[32];
    const auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    std::string t(buf, end);
    if (const auto e = t.find("e+"); e != std::string::npos) t.erase(e + 1, 1);
    return t;
}

// What the verbs report as a usage error ("scalex fit: <message>", analysis/VerbOptions.h), raised as scalex.Error.
using Error = analysis::UsageError;

// The options every analysis shares, named as the verbs' (--where, --ctx, --experiment-set,
// --family, --all-runs, --keep-outliers, --keep-budget, --all-sweep-runs); the messages are theirs.
struct Options {
    std::vector<std::string> where;
    std::optional<double> ctx;
    std::optional<std::string> experimentSet, family;
    bool allRuns = false, keepOutliers = false, allSweepRuns = false;
    std::vector<double> keepBudget;
    std::optional<std::pair<double, double>> budgetRange;
    int threads = 0;
};

struct PyStudy {
    Study study;
    std::string files;  // what the study was read from, for "no usable runs in ..."

    AnalysisSettings settings(const Options& s) const {
        AnalysisSettings a = study.settings();
        if (s.allRuns) a.scope.allRuns = true;
        if (s.allSweepRuns) a.scope.allSweepRuns = true;
        if (s.keepOutliers) a.keepOutliers = true;
        for (double h : s.keepBudget) {
            if (!(h > 0)) throw Error("--keep-budget expects a positive budget in FLOPs, got '" + optionText(h) + "'");
            a.keptBudgets.push_back(h);
        }
        if (s.ctx) a.scope.context = *s.ctx;
        if (s.experimentSet) {
            a.scope.experimentSet = parseExperimentSet(QString::fromStdString(*s.experimentSet).toLower().toStdString());
            if (!a.scope.experimentSet)
                throw Error("--experiment-set expects tokenparam, isoflop or other, got '" + *s.experimentSet + "'");
        }
        if (s.family) {
            const auto f = accounting::parseFamily(*s.family);
            if (!f) throw Error("--family expects transformer or xlstm (or an alias), got '" + *s.family + "'");
            a.scope.where.push_back(*parseCondition("model_family=" + std::string(accounting::familyName(*f))));
        }
        for (const auto& w : s.where) {
            auto c = parseCondition(w);
            if (!c) throw Error("--where '" + w + "': " + c.error().message);
            a.scope.where.push_back(*c);
        }
        if (auto e = checkColumns(study.runs(), a.scope.where)) throw Error(e->toString());
        if (s.budgetRange) a.budgetRange = s.budgetRange;
        return a;
    }
    [[noreturn]] void noRuns() const { throw Error("no usable runs in " + files + " match the filters"); }
    void requireScale(const AnalysisSettings& a, ScaleNeed need = ScaleNeed::NAndD) const {
        if (auto why = missingScaleColumns(study.runs(), a.scope.filter(), need)) throw Error(*why);
    }
    // The one series and context an analysis takes; several are an error listing them (as the verbs').
    SeriesGroup singleGroup(const AnalysisSettings& a) const {
        const auto groups = seriesGroups(study.runs(), a);
        if (groups.empty()) noRuns();
        if (groups.size() > 1) {
            std::string names;
            for (const auto& g : groups) names += (names.empty() ? "" : "; ") + g.label();
            throw Error("the runs form " + std::to_string(groups.size()) + " series (" + names + "): pick one with --where, --family or --ctx");
        }
        return groups.front();
    }
};

std::string compact(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString(); }

// Runs `work` on a worker thread with the GIL released; a signal (KeyboardInterrupt) sets the
// cancel flag the fits poll and is raised once the worker has stopped.
template <class Work>
auto interruptible(fit::FitControl& control, Work work) -> decltype(work()) {
    std::atomic<bool> cancel{false};
    control.cancel = &cancel;
    auto future = std::async(std::launch::async, work);
    bool interrupted = false;
    {
        py::gil_scoped_release release;
        while (future.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
            py::gil_scoped_acquire acquire;
            if (!interrupted && PyErr_CheckSignals() != 0) {
                interrupted = true;
                cancel = true;
            }
        }
    }
    if (interrupted) {
        // A fit the signal stopped may end in an error of its own ("cancelled"): the interrupt is what is raised.
        try {
            future.get();
        } catch (...) {
        }
        throw py::error_already_set();
    }
    return future.get();  // rethrows the worker's exception
}

PyStudy readFiles(const std::vector<std::string>& files) {
    initScalexResources();
    if (files.empty()) throw Error("missing required option --data (the run table), or --example");
    PyStudy in;
    QStringList names;
    const bool single = files.size() == 1 && QString::fromStdString(files[0]).toLower().endsWith(".scalex");
    for (const auto& file : files) {
        names << QString::fromStdString(file);
        if (QString::fromStdString(file).toLower().endsWith(".scalex")) {
            auto project = data::loadProject(QString::fromStdString(file));
            if (!project) throw Error(project.error().toString());
            if (single) {
                if (const std::string why = in.study.setProject(std::move(*project)); !why.empty()) throw Error(file + ": " + why);
            } else {
                for (auto& spec : project->specs) in.study.addSpec(std::move(spec));
                for (auto& t : project->tables) in.study.addRuns(std::move(t.table), t.name);
            }
        } else {
            auto loaded = data::loadRunTable(file);
            if (!loaded) throw Error(loaded.error().toString());
            in.study.addRuns(std::move(*loaded), QFileInfo(QString::fromStdString(file)).fileName().toStdString());
        }
    }
    if (!in.study.settings().seriesBy.empty())
        if (auto e = in.study.groupRunsBy(in.study.settings().seriesBy)) throw Error(e->toString());
    if (!in.study.specErrors().empty()) throw Error(in.study.specErrors().front().toString());
    in.files = names.join(", ").toStdString();
    return in;
}

PyStudy readBytes(const py::bytes& bytes, const std::string& name) {
    const std::string text = bytes;
    auto loaded = data::parseRunTable(QByteArray::fromStdString(text), name);
    if (!loaded) throw Error(loaded.error().toString());
    PyStudy in;
    in.study.addRuns(std::move(*loaded), name);
    in.files = name;
    return in;
}

PyStudy readExample() {
    initScalexResources();
    QString error;
    auto example = data::loadExampleProject(&error);
    if (!example) throw Error(error.toStdString());
    PyStudy in;
    in.study.setProject(std::move(*example));
    return in;
}

void regroup(PyStudy& in, const std::vector<std::string>& columns) {
    if (columns.empty()) return;
    if (auto e = in.study.groupRunsBy(columns)) throw Error(e->toString());
}

// ---- the analyses, as `scalex fit <verb> --json` ----------------------------------------------

std::string isoflop(const PyStudy& in, const Options& scope, std::optional<std::vector<double>> budgets, double tolerance, double atBudget) {
    fit::IsoFlopSettings s;
    if (budgets) {
        for (double b : *budgets)
            if (!(b > 0)) throw Error("--budgets expects a positive number, got '" + optionText(b) + "'");
        s.budgets = *budgets;
    }
    s.tolerance = tolerance;
    if (!(s.tolerance > 0 && s.tolerance < 1)) throw Error("--tolerance must lie in (0, 1), got " + optionText(tolerance));
    const AnalysisSettings a = in.settings(scope);
    in.requireScale(a);
    std::vector<IsoFlopAnalysis> analyses;
    for (const auto& g : seriesGroups(in.study.runs(), a))
        analyses.push_back(isoFlopAnalysis(in.study.runs(), a, studySet(in.study.runs(), g, data::ExperimentSet::IsoFlop), s, budgets.has_value()));
    if (std::none_of(analyses.begin(), analyses.end(), [](const auto& x) { return !x.runs.empty(); })) in.noRuns();
    return compact(isoFlopVerbJson(analyses, atBudget));
}

// --huber-delta, --gamma and --exhaustive of `fit lnd` (and `fit bootstrap --of lnd`) on top of the study's settings.
fit::LossSurfaceSettings lndSettings(AnalysisSettings& a, std::optional<double> huberDelta, const std::optional<std::string>& gamma,
                                     bool exhaustive) {
    if (huberDelta) {
        if (!(*huberDelta > 0)) throw Error("--huber-delta must be positive, got " + optionText(*huberDelta));
        a.huberDelta = *huberDelta;
    }
    if (gamma) {
        const auto fitGamma = parseFitGamma(*gamma);
        if (!fitGamma) throw Error("--gamma expects free or fixed_1 (or fixed, 1), got '" + *gamma + "'");
        a.fitGamma = *fitGamma;
    }
    LossSurfaceFitRequest request;
    request.exhaustive = exhaustive;
    std::string error;
    const auto s = lossSurfaceFitSettings(a, request, &error);
    if (!s) throw Error(error);
    return *s;
}

std::string lnd(const PyStudy& in, const Options& scope, std::optional<double> huberDelta, std::optional<std::string> gamma,
                bool exhaustive, bool noExtrapolation) {
    AnalysisSettings a = in.settings(scope);
    in.requireScale(a);
    const fit::LossSurfaceSettings s = lndSettings(a, huberDelta, gamma, exhaustive);
    const auto groups = seriesGroups(in.study.runs(), a);
    if (groups.empty()) in.noRuns();
    fit::FitControl control;
    control.threads = scope.threads;
    const QJsonObject o = interruptible(control, [&] {
        std::vector<std::pair<SeriesGroup, QJsonObject>> results;
        for (const auto& g : groups) {
            auto x = lossSurfaceAnalysis(in.study.runs(), a, studySet(in.study.runs(), g, data::ExperimentSet::TokenParam), s, control);
            if (x.error) {
                if (groups.size() == 1) throw Error(*x.error);
                results.push_back({g, QJsonObject{{"error", QString::fromStdString(*x.error)}}});
                continue;
            }
            if (!noExtrapolation) checkExtrapolation(x, s, control);
            results.push_back({g, lossSurfaceVerbJson(x, s, !noExtrapolation)});
        }
        return seriesJson(results);
    });
    return compact(o);
}

// --ratios, --ratio-tolerance and --min-runs of `fit slopes` (and `fit bootstrap --of slopes`).
fit::SlopeSettings slopeSettings(const std::optional<std::vector<double>>& ratios, double ratioTolerance, int minRuns) {
    fit::SlopeSettings s;
    if (ratios) s.ratios = *ratios;
    s.tolerance = ratioTolerance;
    if (!(s.tolerance > 0 && s.tolerance < 1)) throw Error("--ratio-tolerance must lie in (0, 1), got " + optionText(ratioTolerance));
    if (minRuns < 2) throw Error("--min-runs must be at least 2, got " + std::to_string(minRuns));
    s.minRuns = minRuns;
    return s;
}

std::string slopes(const PyStudy& in, const Options& scope, std::optional<std::vector<double>> ratios, double ratioTolerance, int minRuns) {
    const fit::SlopeSettings s = slopeSettings(ratios, ratioTolerance, minRuns);
    const AnalysisSettings a = in.settings(scope);
    in.requireScale(a);
    const auto analyses = slopeAnalyses(in.study.runs(), a, s);
    if (analyses.empty()) in.noRuns();
    std::vector<std::pair<SeriesGroup, QJsonObject>> results;
    for (const auto& x : analyses) results.push_back({x.group, slopeVerbJson(x)});
    return compact(seriesJson(results));
}

std::string pareto(const PyStudy& in, const Options& scope, int samples, int resamples) {
    if (samples < 2) throw Error("--samples must be at least 2, got " + std::to_string(samples));
    if (resamples < 0) throw Error("--resamples must be at least 0, got " + std::to_string(resamples));
    const AnalysisSettings a = in.settings(scope);
    in.requireScale(a, ScaleNeed::Compute);
    const auto analyses = paretoAnalyses(in.study.runs(), a);
    if (analyses.empty()) in.noRuns();
    fit::BootstrapSettings b;
    b.resamples = resamples;
    fit::FitControl control;
    control.threads = scope.threads;
    const auto compared = interruptible(control, [&] { return compareSeries(analyses, b, samples, control); });
    return compact(paretoVerbJson(analyses, compared, resamples > 0));
}

std::string context(const PyStudy& in, const Options& scope, double contextLength, double budget) {
    ContextOptions options;
    options.context = contextLength;
    options.budget = budget;
    if (!(options.context > 0)) throw Error("--context must be a positive number of tokens, got " + optionText(contextLength));
    if (!(options.budget > 0)) throw Error("--budget must be a positive number of FLOPs, got " + optionText(budget));
    const AnalysisSettings a = in.settings(scope);
    in.requireScale(a);
    Study scoped = in.study;
    scoped.setSettings(a);
    const ContextRequest request = contextRequest(scoped, options);
    fit::FitControl control;
    control.threads = scope.threads;
    const ContextResult r = interruptible(control, [&] { return contextAnalysis(scoped.runs(), a, request, control); });
    if (const std::string why = contextProblem(r); !why.empty()) throw Error(why);
    return compact(contextVerbJson(r, options));
}


// The options of `scalex fit law` that state the law and how it is fitted and scored.
struct LawOptions {
    std::string formula, law, loss, space;
    std::vector<std::string> params, shared, at;
    std::optional<double> huberDelta;
    int starts = 64, resamples = 50;
    bool noProjection = false;
    std::optional<std::string> group, leaveOneOut, holdout;
    std::optional<std::vector<std::string>> train, test;
    std::vector<double> optimalAt, budgetForLoss;
    std::string interval = "bootstrap";
    double level = 0.95;
    std::uint64_t seed = 20250601;
};

std::optional<std::vector<RowCondition>> conditions(const std::optional<std::vector<std::string>>& texts, const std::string& name) {
    if (!texts) return std::nullopt;
    std::vector<RowCondition> out;
    for (const auto& v : *texts) {
        auto c = parseCondition(v);
        if (!c) throw Error("--" + name + " '" + v + "': " + c.error().message);
        out.push_back(*c);
    }
    return out;
}

// The law --formula/--param or --law states, with --loss, --space and --huber-delta; --starts checked.
fit::LawDefinition lawDefinition(const LawOptions& o) {
    LawRequest r;
    r.law = o.law;
    r.formula = o.formula;
    if (r.law.empty() && r.formula.empty())
        throw Error("missing --formula 'TARGET = EXPRESSION' (or --law NAME; `scalex fit law --list` lists them)");
    r.parameters = o.params;
    r.loss = o.loss;
    r.space = o.space;
    r.huberDelta = o.huberDelta;
    auto definition = lawFromRequest(r);
    if (!definition) throw Error("--" + definition.error().column + ": " + definition.error().message);
    if (o.starts < 1) throw Error("--starts must be at least 1, got " + std::to_string(o.starts));
    return *definition;
}

std::string law(PyStudy& in, const Options& scope, const LawOptions& o) {
    const fit::LawDefinition definition = lawDefinition(o);
    if (o.resamples < 0) throw Error("--resamples must be at least 0, got " + std::to_string(o.resamples));
    LawFitOptions options;
    options.fit.starts = o.starts;
    options.fit.projection = !o.noProjection;
    options.resamples = o.resamples;
    options.seed = o.seed;
    options.fit.seed = o.seed;
    options.train = conditions(o.train, "train");
    options.test = conditions(o.test, "test");
    options.groupColumn = o.group;
    options.leaveOneOut = o.leaveOneOut;
    for (const auto& name : o.shared) options.shared.push_back(name);
    for (const auto& v : o.at) {
        auto spec = parseLawPoint(v);
        if (const auto* bad = std::get_if<std::string>(&spec)) throw Error("--at: " + *bad);
        options.queries.push_back(std::get<LawQuerySpec>(spec));
    }
    for (double x : o.optimalAt) options.queries.push_back({LawQueryKind::OptimalAt, {}, x});
    for (double x : o.budgetForLoss) options.queries.push_back({LawQueryKind::BudgetForLoss, {}, x});
    if (o.interval == "curvature") options.interval = LawIntervalMethod::Curvature;
    else if (o.interval != "bootstrap") throw Error("--interval: expected bootstrap or curvature, got '" + o.interval + "'");
    options.level = o.level;
    Study study = in.study;
    study.setSettings(in.settings(scope));
    if (o.holdout) {
        // Its tables after the study's: the runs from this index on are the held-out ones.
        options.heldOutFrom = study.runs().runs.size();
        const PyStudy heldOut = readFiles({*o.holdout});
        for (const auto& t : heldOut.study.loaded().tables) study.addRuns(t.table, t.name);
    }
    fit::FitControl control;
    control.threads = scope.threads;
    const LawAnalysis a = interruptible(control, [&] { return fitLawAnalysis(study, definition, options, control); });
    if (a.error) throw Error(*a.error);
    return compact(toJson(a));
}

// The options of `scalex predict optimal`.
struct OptimalOptions {
    std::optional<double> budget, params, loss, huberDelta;
    double context = 8192, inferenceTokens = 0;
    std::string method = "both";
    std::optional<std::string> reference, ladderSurface;
    std::vector<std::string> ladder;
    int resamples = 200;
};

std::string optimal(const PyStudy& in, const Options& scope, const OptimalOptions& o) {
    int given = 0;
    OptimalGiven kind = OptimalGiven::Budget;
    std::string givenName;
    double value = 0;
    for (const auto& [name, k, v] : {std::tuple{"budget", OptimalGiven::Budget, o.budget},
                                     std::tuple{"params", OptimalGiven::ModelSize, o.params},
                                     std::tuple{"loss", OptimalGiven::TargetLoss, o.loss}})
        if (v) ++given, kind = k, givenName = name, value = *v;
    if (given != 1) throw Error("give exactly one of --budget, --params and --loss");
    if (!(value > 0)) throw Error("--" + givenName + " must be positive, got " + optionText(value));
    if (!(o.context >= 64)) throw Error("--context must be at least 64 tokens, got " + optionText(o.context));
    if (!(o.inferenceTokens >= 0) || !std::isfinite(o.inferenceTokens))
        throw Error("--inference-tokens must be 0 or more, got " + optionText(o.inferenceTokens));
    if (o.method != "surface" && o.method != "laws" && o.method != "both")
        throw Error("--method: expected surface, laws or both, got '" + o.method + "'");
    if (o.reference && *o.reference != "paper" && *o.reference != "none")
        throw Error("--reference: expected paper or none, got '" + *o.reference + "'");
    if (o.resamples < 0) throw Error("--resamples must be at least 0, got " + std::to_string(o.resamples));
    AnalysisSettings settings = in.settings(scope);
    if (o.huberDelta) {
        settings.huberDelta = *o.huberDelta;
        if (!(settings.huberDelta > 0)) throw Error("--huber-delta must be positive, got " + optionText(*o.huberDelta));
    }
    if (auto why = missingScaleColumns(in.study.runs(), settings.scope.filter())) throw Error(*why);
    OptimalQuery query;
    query.given = kind;
    query.value = value;
    query.context = o.context;
    query.inferenceTokens = o.inferenceTokens;
    query.paperStudy = in.study.isPaperStudy();
    query.paperModels = o.reference ? *o.reference == "paper" : query.paperStudy;
    query.intervals.resamples = o.resamples;
    for (const auto& file : o.ladder) {
        const auto model = data::readModelFile(file);
        if (!model) throw Error("--ladder: " + model.error().toString());
        accounting::ModelLadder ladder = accounting::specLadder(model->spec);
        // Named by its file, unless that is a config.json: then by its model type.
        const QString stem = QFileInfo(QString::fromStdString(file)).completeBaseName();
        if (stem != "config") ladder.name = stem.toStdString();
        query.ladders.push_back(std::move(ladder));
    }
    if (o.ladderSurface) {
        const auto f = accounting::parseFamily(*o.ladderSurface);
        if (!f) throw Error("--ladder-surface: unknown family '" + *o.ladderSurface + "' (expected transformer or xlstm)");
        query.ladderSurface = *f;
    }
    fit::FitControl control;
    control.threads = scope.threads;
    const bool surfaceAsked = o.method != "laws", lawsAsked = o.method != "surface";
    struct Answers {
        std::vector<OptimalSeriesInput> inputs;
        OptimalAnswer bySurface, byLaws;
    };
    const Answers r = interruptible(control, [&] {
        Answers a;
        a.inputs = optimalInputs(in.study.runs(), settings, in.study.paper(), query, control);
        if (a.inputs.empty()) return a;
        OptimalQuery q = query;
        if (surfaceAsked) a.bySurface = answerOptimalQuery(a.inputs, q, control);
        if (lawsAsked) {
            q.useLaws = true;
            a.byLaws = answerOptimalQuery(a.inputs, q, control);
        }
        return a;
    });
    if (r.inputs.empty())
        throw Error("no series to answer for: no runs in scope with N, D, C and loss (--reference paper shows the paper's models)");
    if ((!surfaceAsked || !r.bySurface.problem.empty()) && (!lawsAsked || !r.byLaws.problem.empty())) {
        std::string why = surfaceAsked ? r.bySurface.problem : r.byLaws.problem;
        if (surfaceAsked && lawsAsked && r.byLaws.problem != r.bySurface.problem) why += " " + r.byLaws.problem;
        throw Error("--" + givenName + " " + optionText(value) + ": " + why);
    }
    return compact(optimalVerbJson(r.inputs, query, givenName, o.method, settings.huberDelta, r.bySurface, r.byLaws));
}

// ---- intervals, plans and accounting ----------------------------------------------------------

// The options of `scalex fit bootstrap`: which fit, the replicates, and that fit's own options.
struct BootstrapOptions {
    std::string of;
    int resamples = 1000;
    std::uint64_t seed = 20250601;
    double level = 0.95;
    std::vector<std::string> at;
    std::vector<double> atBudget;
    std::optional<double> huberDelta;
    std::optional<std::string> gamma;
    bool exhaustive = false;
    std::optional<std::vector<double>> ratios;
    double ratioTolerance = 0.18;
    int minRuns = 3;
};

std::string bootstrap(const PyStudy& in, const Options& scope, const BootstrapOptions& o) {
    if (o.of.empty()) throw Error("missing required option --of (lnd, isoflop or slopes)");
    if (o.of != "lnd" && o.of != "isoflop" && o.of != "slopes") throw Error("--of expects lnd, isoflop or slopes, got '" + o.of + "'");
    if (o.resamples < 1) throw Error("--resamples must be at least 1, got " + std::to_string(o.resamples));
    fit::BootstrapSettings b;
    b.resamples = o.resamples;
    b.seed = o.seed;
    b.level = o.level;
    if (!(b.level > 0 && b.level < 1)) throw Error("--level must lie in (0, 1), got " + optionText(o.level));
    AnalysisSettings a = in.settings(scope);
    in.requireScale(a);
    // The one series and context a bootstrap resamples; several are an error listing them (as the verb's).
    const auto group = [&] { return in.singleGroup(a).filter; };
    fit::FitControl control;
    control.threads = scope.threads;
    std::optional<fit::BootstrapResult> result;
    if (o.of == "lnd") {
        const fit::LossSurfaceSettings s = lndSettings(a, o.huberDelta, o.gamma, o.exhaustive);
        std::vector<fit::SurfaceQuery> queries;
        for (const auto& v : o.at) {
            const QStringList nd = QString::fromStdString(v).split(',');
            bool okN = false, okD = false;
            const double n = nd.size() == 2 ? nd[0].toDouble(&okN) : 0, d = nd.size() == 2 ? nd[1].toDouble(&okD) : 0;
            if (!okN || !okD || !(n > 0) || !(d > 0)) throw Error("--at expects N,D (two positive numbers), got '" + v + "'");
            queries.push_back({n, d});
        }
        const RunFilter g = group();
        result = interruptible(control, [&] { return lossSurfaceBootstrap(in.study.runs(), g, s, queries, b, control); });
    } else if (o.of == "isoflop") {
        for (double h : o.atBudget)
            if (!(h > 0)) throw Error("--at-budget expects a positive number, got '" + optionText(h) + "'");
        const RunFilter g = group();
        result = interruptible(control, [&] { return isoFlopBootstrap(in.study.runs(), a, g, o.atBudget, b, control); });
    } else {
        const fit::SlopeSettings s = slopeSettings(o.ratios, o.ratioTolerance, o.minRuns);
        const RunFilter g = group();
        result = interruptible(control, [&] { return slopeBootstrap(in.study.runs(), g, s, b, control); });
    }
    if (!result) in.noRuns();
    QJsonObject json = toJson(*result, b);
    json.insert("of", QString::fromStdString(o.of));
    return compact(json);
}

// Writes --out as the verb does (atomically); the error names the option and the file.
void writeOut(const std::optional<std::string>& path, const std::string& text) {
    if (!path) return;
    QSaveFile f(QString::fromStdString(*path));
    const QByteArray bytes = QByteArray::fromStdString(text);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        throw Error("cannot write '" + *path + "': " + f.errorString().toStdString());
}

// The options of `scalex plan` beside the law's (--replay, or the candidates of the next runs).
struct PlanOptions {
    bool replay = false;
    std::vector<std::string> pool, target;
    std::optional<std::string> candidates, gridN, gridD, cost, group, out;
    std::string strategy = "planner";
    std::optional<double> budget, misfit, misfitLength;
    std::optional<int> pick, simulate;
    std::uint64_t seed = 1;
};

fit::DesignModel designModel(const PlanOptions& o) {
    fit::DesignModel m;
    if (o.misfit) {
        if (!(*o.misfit >= 0)) throw Error("--misfit is a multiple of the residual noise, 0 or more; got " + optionText(*o.misfit));
        m.misfit = *o.misfit;
    }
    if (o.misfitLength) {
        if (!(*o.misfitLength > 0)) throw Error("--misfit-length is a positive number of decades; got " + optionText(*o.misfitLength));
        m.lengthScale = *o.misfitLength;
    }
    return m;
}

std::vector<RowCondition> required(const std::vector<std::string>& texts, const std::string& name) {
    return *conditions(std::optional(texts), name);
}

std::string planReplay(const PyStudy& in, const AnalysisSettings& a, const fit::LawDefinition& law, const fit::LawFitSettings& fit,
                       const PlanOptions& o, fit::FitControl& control) {
    PlanReplayOptions options;
    options.fit.starts = fit.starts;
    options.fit.projection = fit.projection;
    options.design = designModel(o);
    if (o.pool.empty()) throw Error("--replay needs --pool COND (the runs whose losses the planner may reveal)");
    if (o.target.empty()) throw Error("--replay needs --target COND (the runs the law is scored on)");
    options.pool = required(o.pool, "pool");
    options.target = required(o.target, "target");
    if (!o.budget) throw Error("--replay needs --budget FRACTION (of the pool's total cost, e.g. 0.1)");
    options.budget = *o.budget;
    if (o.cost) options.cost = *o.cost;
    options.seed = o.seed;
    const auto strategy = parsePlanStrategy(o.strategy);
    if (!strategy) throw Error("--strategy expects planner, random or cheapest, got '" + o.strategy + "'");
    options.strategy = *strategy;
    options.groupColumn = o.group;
    const PlanReplay r = interruptible(control, [&] { return replayPlan(in.study.runs(), a, law, options, control); });
    if (r.error) throw Error(*r.error);
    return compact(toJson(r));
}

std::string planNext(const PyStudy& in, const AnalysisSettings& a, const fit::LawDefinition& law, const fit::LawFitSettings& fit,
                     const PlanOptions& o, fit::FitControl& control) {
    PlanCandidatesOptions options;
    options.fit.starts = fit.starts;
    options.fit.projection = fit.projection;
    options.design = designModel(o);
    if (o.target.empty()) throw Error("missing --target 'N=7e9,D=2e12' (a point, repeatable) or a condition on the planned runs");
    for (const auto& text : o.target) {
        // A point gives every name with '=' and a number; anything else is a row condition.
        if (auto point = parseTargetPoint(text)) options.targetPoints.push_back(*point);
        else if (auto c = parseCondition(text); c && o.candidates) options.targetRows.push_back(*c);
        else throw Error("--target '" + text + "': " + point.error().message);
    }
    if (o.gridN || o.gridD) {
        if (o.candidates) throw Error("give --candidates FILE or --grid-n and --grid-d, not both");
        for (const auto& [name, text, axis] : {std::tuple{"grid-n", o.gridN, &options.gridN}, std::tuple{"grid-d", o.gridD, &options.gridD}}) {
            if (!text) throw Error("the grid needs both --grid-n and --grid-d");
            auto parsed = parseGridAxis(*text);
            if (!parsed) throw Error("--" + std::string(name) + " '" + *text + "': " + parsed.error().message);
            *axis = *parsed;
        }
    } else if (!o.candidates) {
        throw Error("missing --candidates FILE.csv (planned runs) or --grid-n LO:HI:K --grid-d LO:HI:K");
    }
    if (o.cost) options.cost = *o.cost;
    options.budget = o.budget;
    if (o.pick) {
        if (*o.pick < 1) throw Error("--pick: at least one run");
        options.pick = static_cast<std::size_t>(*o.pick);
    }
    options.groupColumn = o.group;
    if (o.simulate) {
        if (*o.simulate < 2) throw Error("--simulate must be at least 2, got " + std::to_string(*o.simulate));
        options.simulate = static_cast<std::size_t>(*o.simulate);
    }
    options.seed = o.seed;
    std::optional<data::RunTable> planned;
    if (o.candidates) {
        data::LoadOptions noLoss;  // planned runs have no loss yet
        noLoss.lossRequired = false;
        auto t = data::loadRunTable(*o.candidates, noLoss);
        if (!t) throw Error("--candidates: " + t.error().toString());
        planned = std::move(*t);
    }
    const PlanCandidates r =
        interruptible(control, [&] { return planCandidates(in.study.runs(), a, law, options, planned ? &*planned : nullptr, control); });
    if (r.error) throw Error(*r.error);
    writeOut(o.out, pickedRunsCsv(r));
    return compact(toJson(r));
}

// `scalex plan` on a study: --replay, or the next runs among candidates.
std::string plan(const PyStudy& in, const Options& scope, const LawOptions& lawOptions, const PlanOptions& o) {
    const fit::LawDefinition law = lawDefinition(lawOptions);
    fit::LawFitSettings fit;
    fit.starts = lawOptions.starts;
    fit.projection = !lawOptions.noProjection;
    const AnalysisSettings a = in.settings(scope);
    fit::FitControl control;
    control.threads = scope.threads;
    return o.replay ? planReplay(in, a, law, fit, o, control) : planNext(in, a, law, fit, o, control);
}

// The options of `scalex plan --design`: a study from nothing.
struct DesignOptions {
    std::optional<double> studyBudget, targetBudget, width, budgetSpan, sigma;
    std::optional<std::string> law, family, out;
    std::vector<std::string> params;
    std::vector<double> ladder;
    std::optional<int> budgets, sizesPerBudget, seeds;
    std::optional<std::uint64_t> seed;
};

std::string design(const DesignOptions& o) {
    initScalexResources();
    StudyDesignOptions options;
    if (!o.studyBudget) throw Error("--design needs --study-budget FLOPS");
    if (!o.targetBudget) throw Error("--design needs --target-budget FLOPS");
    options.studyBudget = *o.studyBudget;
    options.targetBudget = *o.targetBudget;
    if (o.law) {
        std::map<std::string, double> values;
        for (const auto& v : o.params) {
            const auto eq = v.find('=');
            bool ok = false;
            const double x = eq != std::string::npos && eq > 0 ? QString::fromStdString(v.substr(eq + 1)).toDouble(&ok) : 0.0;
            if (!ok || !std::isfinite(x)) throw Error("--param '" + v + "': with --design, NAME=VALUE (a number)");
            values[QString::fromStdString(v.substr(0, eq)).trimmed().toStdString()] = x;
        }
        auto prior = shippedDesignPrior(*o.law, values);
        if (!prior) throw Error("--law: " + prior.error().message);
        options.prior = std::move(*prior);
    } else {
        if (!o.params.empty()) throw Error("--param with --design sets the values of a --law; the paper's prior has its own");
        auto tables = data::loadPaperTables();
        if (!tables) throw Error(tables.error().toString());
        auto family = accounting::Family::Xlstm;
        if (o.family) {
            const auto f = accounting::parseFamily(*o.family);
            if (!f) throw Error("--family: unknown family '" + *o.family + "' (expected transformer or xlstm)");
            family = *f;
        }
        auto prior = paperDesignPrior(*tables, family);
        if (!prior) throw Error(prior.error().message);
        options.prior = std::move(*prior);
    }
    for (double n : o.ladder)
        if (!(n > 0) || !std::isfinite(n)) throw Error("--ladder: '" + optionText(n) + "' is not a positive number of parameters");
    options.ladder = o.ladder;
    for (const auto& [name, value, least, field] : {std::tuple{"budgets", o.budgets, 2, &options.budgets},
                                                    std::tuple{"sizes-per-budget", o.sizesPerBudget, 3, &options.sizesPerBudget},
                                                    std::tuple{"seeds", o.seeds, 2, &options.seeds}})
        if (value) {
            if (*value < least) throw Error("--" + std::string(name) + " must be at least " + std::to_string(least) + ", got " + std::to_string(*value));
            *field = static_cast<std::size_t>(*value);
        }
    if (o.width) options.width = *o.width;
    if (o.budgetSpan) options.budgetSpan = *o.budgetSpan;
    if (o.sigma) options.sigma = *o.sigma;
    if (o.seed) options.seed = *o.seed;
    const StudyDesign d = designStudy(options);
    if (d.error) throw Error(*d.error);
    writeOut(o.out, plannedRunsCsv(d));
    return compact(toJson(d));
}

// The options of `scalex account`: a model file (--config, --spec) or the study's architecture
// from its sizes (--family, --d-model, ...), the convention, the inference shape and the factors.
struct AccountOptions {
    std::optional<std::string> config, spec, family, cache;
    std::optional<std::int64_t> dModel, nLayers, nHeads, nKvHeads, dQk, dHv, dFf, vocab, chunk, prefill;
    std::int64_t ctx = 8192, batch = 1, generate = 1;
    std::string convention = "study";
    std::map<std::string, double> factors;  // "f-causal", "bytes-qkv", ... as the verb's options
};

std::string account(const AccountOptions& o) {
    auto convention = accounting::conventionByName(o.convention);
    if (!convention) throw Error("--convention: unknown convention '" + o.convention + "' (expected study, appendix, chinchilla or 6nd)");
    accounting::ByteWidths bytes;
    for (const auto& [name, value] : o.factors) {
        bool known = false;
        for (const auto& f : kAccountFactorOptions)
            if (name == f.name) convention->ops.*(f.field) = value, known = true;
        for (const auto& b : kAccountByteOptions)
            if (name == b.name) {
                if (value < 0) throw Error("--" + name + " must not be negative");
                bytes.*(b.field) = value, known = true;
            }
        if (!known) throw Error("unknown option --" + name);
    }
    for (const auto& [name, value] : {std::pair{"ctx", o.ctx}, std::pair{"batch", o.batch}, std::pair{"generate", o.generate}})
        if (value < 1) throw Error("--" + std::string(name) + " must be at least 1, got " + std::to_string(value));
    const double ctx = static_cast<double>(o.ctx), batch = static_cast<double>(o.batch);
    if (o.config || o.spec) {
        const std::string source = o.spec ? "spec" : "config";
        if (o.spec && o.config) throw Error("--spec and --config are two sources of one model: give one");
        for (const auto& [name, given] : {std::pair{"family", bool(o.family)}, std::pair{"d-model", bool(o.dModel)},
                                          std::pair{"n-layers", bool(o.nLayers)}, std::pair{"n-heads", bool(o.nHeads)},
                                          std::pair{"n-kv-heads", bool(o.nKvHeads)}, std::pair{"d-qk", bool(o.dQk)},
                                          std::pair{"d-hv", bool(o.dHv)}, std::pair{"d-ff", bool(o.dFf)}, std::pair{"vocab", bool(o.vocab)},
                                          std::pair{"chunk", bool(o.chunk)}, std::pair{"cache", bool(o.cache)},
                                          std::pair{"prefill", bool(o.prefill)}})
            if (given) throw Error("--" + std::string(name) + " does not go with --" + source + " (the file gives the architecture)");
        const std::string file = o.spec ? *o.spec : *o.config;
        const auto model = data::readModelFile(file);
        if (!model) throw Error(model.error().toString());
        return compact(accountModelJson(*model, QString::fromStdString(file), *convention, bytes, ctx, batch));
    }
    if (!o.family) throw Error("missing required option --family (transformer or xlstm)");
    const auto family = accounting::parseFamily(*o.family);
    if (!family) throw Error("--family: unknown family '" + *o.family + "' (expected transformer or xlstm)");
    for (const auto& [name, value] : {std::pair{"d-model", o.dModel}, std::pair{"n-layers", o.nLayers}, std::pair{"n-heads", o.nHeads}})
        if (!value) throw Error("missing required option --" + std::string(name));
    accounting::ConfigOverrides ov{o.nKvHeads, o.dQk, o.dHv, o.dFf, o.vocab, o.chunk};
    std::string problem;
    const auto config = studyConfigFromSizes(*family, *o.dModel, *o.nLayers, *o.nHeads, ov, "n-heads", &problem);
    if (!config) throw Error(problem);
    const auto mix = cacheKindFor(*config, o.cache, *o.family, &problem);
    if (!mix) throw Error(problem);
    const double prefill = o.prefill ? static_cast<double>(*o.prefill) : ctx;
    return compact(accountStudyJson(*config, *mix, *convention, bytes, ctx, batch, prefill, static_cast<double>(o.generate)));
}


// `scalex render --view ... --out ...` on the study in scope (the scope options apply as to the verbs).
void figure(const PyStudy& in, const Options& scope, const python::FigureOptions& o) {
    Study scoped = in.study;
    scoped.setSettings(in.settings(scope));
    std::string error;
    {
        py::gil_scoped_release release;
        error = python::renderView(scoped, o);
    }
    if (!error.empty()) throw Error(error);
}

// The options of `scalex fit curves` (and `scalex predict curve`, with the schedule to predict
// under and the steps); the defaults are analysis::CurveFitOptions'.
struct CurveOptions {
    std::vector<std::string> data, holdout;
    std::string law = analysis::curveLawLabel(analysis::CurveFitOptions{}.law);
    std::optional<long> warmup;
    std::string schedule;
    bool trainLoss = false;
    double huberDelta = analysis::CurveFitOptions{}.huberDelta, level = analysis::CurveFitOptions{}.level;
    int maxIterations = analysis::CurveFitOptions{}.maxIterations;
    std::vector<long> at;
};

analysis::CurveFitOptions curveFitOptions(const CurveOptions& o, bool scheduleIsTarget) {
    analysis::CurveFitOptions f;
    f.dataFiles = o.data;
    f.holdoutFiles = o.holdout;
    if (f.dataFiles.empty()) throw Error("missing required option --data (tracker JSON exports of the runs to fit)");
    const auto law = analysis::curveLawFromName(o.law);
    if (!law) throw Error("--law: expected mpl, lra or power, got '" + o.law + "'");
    f.law = *law;
    if (o.warmup) {
        if (*o.warmup < 0) throw Error("--warmup must be at least 0, got " + std::to_string(*o.warmup));
        f.warmupSteps = *o.warmup;
    }
    if (!scheduleIsTarget) f.schedule = o.schedule;
    f.trainLoss = o.trainLoss;
    if (!(o.huberDelta > 0)) throw Error("--huber-delta: expected a positive number");
    f.huberDelta = o.huberDelta;
    if (!(o.level > 0 && o.level < 1)) throw Error("--level: expected a number between 0 and 1");
    f.level = o.level;
    if (o.maxIterations < 1) throw Error("--max-iterations must be at least 1, got " + std::to_string(o.maxIterations));
    f.maxIterations = std::min(o.maxIterations, 1'000'000);
    return f;
}

std::string fitCurvesVerb(const CurveOptions& o) {
    const analysis::CurveFitOptions options = curveFitOptions(o, false);
    fit::FitControl control;
    auto r = interruptible(control, [&] { return analysis::fitCurves(options, control); });
    if (!r) throw Error(r.error().toString());
    return compact(analysis::curveFitsJson(*r));
}

std::string predictCurveVerb(const CurveOptions& o) {
    analysis::CurvePredictOptions options;
    options.fit = curveFitOptions(o, true);
    options.schedule = o.schedule;
    if (options.schedule.empty()) throw Error("missing required option --schedule (the schedule to predict under)");
    for (long step : o.at) {
        if (step < 1) throw Error("--at: expected a step >= 1, got '" + std::to_string(step) + "'");
        options.steps.push_back(step);
    }
    fit::FitControl control;
    auto r = interruptible(control, [&] { return analysis::predictCurve(options, control); });
    if (!r) throw Error(r.error().toString());
    return compact(analysis::curvePredictionJson(*r));
}

// The module's keywords as the verb's command line (scalex/__init__.py, _verb_args), parsed as
// the program parses them: the options core/analysis declares for the verb, their defaults and messages.
void parseVerbOptions(QCommandLineParser& p, const char* verb, const std::vector<std::string>& args) {
    QStringList list{QString::fromLatin1(verb)};
    for (const auto& a : args) list << QString::fromStdString(a);
    parseOrThrow(p, list);
    if (!p.positionalArguments().isEmpty()) throw Error(("unexpected argument '" + p.positionalArguments().first() + "'").toStdString());
}

// `scalex fit runtime | predict runtime | max-model | crossover --json` (analysis/RuntimeQueries.h),
// with the GIL released.
template <class Answer>
std::string runtimeQuery(const char* verb, const std::vector<std::string>& args, void (*addOptions)(QCommandLineParser&),
                         Answer (*query)(const QCommandLineParser&, const RuntimeQueryContext&)) {
    initScalexResources();
    QCommandLineParser p;
    addOptions(p);
    parseVerbOptions(p, verb, args);
    RuntimeQueryContext context;
    context.readMeasuredRoofs = figures::readBenchRoofs;
    py::gil_scoped_release release;
    return compact(query(p, context).json);
}

// `scalex fit lnd --from-curves ... --json` (analysis/LndQueries.h): the checkpoints the curves'
// law predicts, beside the measured runs of the study's one series where a study is given.
std::string lndFromCurves(const PyStudy* in, const Options& scope, const std::vector<std::string>& args) {
    QCommandLineParser p;
    addLndOptions(p);
    addFromCurvesOptions(p);
    parseVerbOptions(p, "fit lnd", args);
    AnalysisSettings a = in ? in->settings(scope) : AnalysisSettings{};
    if (in) in->requireScale(a);
    const fit::LossSurfaceSettings settings = analysis::lndSettings(p, a);
    std::vector<fit::LossPoint> measured;
    if (in) {
        const SeriesGroup g = studySet(in->study.runs(), in->singleGroup(a), data::ExperimentSet::TokenParam);
        measured = lossSurfacePoints(in->study.runs(), g.filter).points;
    }
    fit::FitControl control;
    control.threads = scope.threads;
    return compact(interruptible(control, [&] { return lndFromCurvesQuery(p, measured, settings, control).json; }));
}

// `scalex generate --out OUT` (analysis/GenerateQuery.h): writes the example study; the runs and tables written.
std::pair<std::size_t, std::size_t> generate(const std::vector<std::string>& args) {
    initScalexResources();
    QCommandLineParser p;
    addGenerateOptions(p);
    parseVerbOptions(p, "generate", args);
    py::gil_scoped_release release;
    const GenerateAnswer a = generateQuery(p);
    return {a.runs, a.tables};
}

// `scalex convert IN... OUT` (analysis/ConvertQuery.h): `args` its options, then "--" and the paths.
void convert(const std::vector<std::string>& args) {
    initScalexResources();
    QCommandLineParser p;
    addConvertOptions(p);
    QStringList list{QStringLiteral("convert")};
    for (const auto& a : args) list << QString::fromStdString(a);
    parseOrThrow(p, list);
    py::gil_scoped_release release;
    convertQuery(p);
}

}  // namespace

PYBIND11_MODULE(_scalex, m) {
    m.doc() = "Scalex's analyses of scaling-law studies (the compiled part of the scalex package).";
    py::register_exception<analysis::UsageError>(m, "Error", PyExc_ValueError);

    py::class_<Options>(m, "Options")
        .def(py::init<>())
        .def_readwrite("where", &Options::where)
        .def_readwrite("ctx", &Options::ctx)
        .def_readwrite("experiment_set", &Options::experimentSet)
        .def_readwrite("family", &Options::family)
        .def_readwrite("all_runs", &Options::allRuns)
        .def_readwrite("keep_outliers", &Options::keepOutliers)
        .def_readwrite("all_sweep_runs", &Options::allSweepRuns)
        .def_readwrite("keep_budget", &Options::keepBudget)
        .def_readwrite("budget_range", &Options::budgetRange)
        .def_readwrite("threads", &Options::threads);

    py::class_<LawOptions>(m, "LawOptions")
        .def(py::init<>())
        .def_readwrite("formula", &LawOptions::formula)
        .def_readwrite("law", &LawOptions::law)
        .def_readwrite("loss", &LawOptions::loss)
        .def_readwrite("space", &LawOptions::space)
        .def_readwrite("param", &LawOptions::params)
        .def_readwrite("shared", &LawOptions::shared)
        .def_readwrite("at", &LawOptions::at)
        .def_readwrite("huber_delta", &LawOptions::huberDelta)
        .def_readwrite("starts", &LawOptions::starts)
        .def_readwrite("resamples", &LawOptions::resamples)
        .def_readwrite("no_projection", &LawOptions::noProjection)
        .def_readwrite("group", &LawOptions::group)
        .def_readwrite("leave_one_out", &LawOptions::leaveOneOut)
        .def_readwrite("holdout", &LawOptions::holdout)
        .def_readwrite("train", &LawOptions::train)
        .def_readwrite("test", &LawOptions::test)
        .def_readwrite("optimal_at", &LawOptions::optimalAt)
        .def_readwrite("budget_for_loss", &LawOptions::budgetForLoss)
        .def_readwrite("interval", &LawOptions::interval)
        .def_readwrite("level", &LawOptions::level)
        .def_readwrite("seed", &LawOptions::seed);

    py::class_<OptimalOptions>(m, "OptimalOptions")
        .def(py::init<>())
        .def_readwrite("budget", &OptimalOptions::budget)
        .def_readwrite("params", &OptimalOptions::params)
        .def_readwrite("loss", &OptimalOptions::loss)
        .def_readwrite("huber_delta", &OptimalOptions::huberDelta)
        .def_readwrite("context", &OptimalOptions::context)
        .def_readwrite("inference_tokens", &OptimalOptions::inferenceTokens)
        .def_readwrite("method", &OptimalOptions::method)
        .def_readwrite("reference", &OptimalOptions::reference)
        .def_readwrite("ladder_surface", &OptimalOptions::ladderSurface)
        .def_readwrite("ladder", &OptimalOptions::ladder)
        .def_readwrite("resamples", &OptimalOptions::resamples);

    py::class_<BootstrapOptions>(m, "BootstrapOptions")
        .def(py::init<>())
        .def_readwrite("of", &BootstrapOptions::of)
        .def_readwrite("resamples", &BootstrapOptions::resamples)
        .def_readwrite("seed", &BootstrapOptions::seed)
        .def_readwrite("level", &BootstrapOptions::level)
        .def_readwrite("at", &BootstrapOptions::at)
        .def_readwrite("at_budget", &BootstrapOptions::atBudget)
        .def_readwrite("huber_delta", &BootstrapOptions::huberDelta)
        .def_readwrite("gamma", &BootstrapOptions::gamma)
        .def_readwrite("exhaustive", &BootstrapOptions::exhaustive)
        .def_readwrite("ratios", &BootstrapOptions::ratios)
        .def_readwrite("ratio_tolerance", &BootstrapOptions::ratioTolerance)
        .def_readwrite("min_runs", &BootstrapOptions::minRuns);

    py::class_<PlanOptions>(m, "PlanOptions")
        .def(py::init<>())
        .def_readwrite("replay", &PlanOptions::replay)
        .def_readwrite("pool", &PlanOptions::pool)
        .def_readwrite("target", &PlanOptions::target)
        .def_readwrite("candidates", &PlanOptions::candidates)
        .def_readwrite("grid_n", &PlanOptions::gridN)
        .def_readwrite("grid_d", &PlanOptions::gridD)
        .def_readwrite("cost", &PlanOptions::cost)
        .def_readwrite("group", &PlanOptions::group)
        .def_readwrite("out", &PlanOptions::out)
        .def_readwrite("strategy", &PlanOptions::strategy)
        .def_readwrite("budget", &PlanOptions::budget)
        .def_readwrite("misfit", &PlanOptions::misfit)
        .def_readwrite("misfit_length", &PlanOptions::misfitLength)
        .def_readwrite("pick", &PlanOptions::pick)
        .def_readwrite("simulate", &PlanOptions::simulate)
        .def_readwrite("seed", &PlanOptions::seed);

    py::class_<DesignOptions>(m, "DesignOptions")
        .def(py::init<>())
        .def_readwrite("study_budget", &DesignOptions::studyBudget)
        .def_readwrite("target_budget", &DesignOptions::targetBudget)
        .def_readwrite("width", &DesignOptions::width)
        .def_readwrite("budget_span", &DesignOptions::budgetSpan)
        .def_readwrite("sigma", &DesignOptions::sigma)
        .def_readwrite("law", &DesignOptions::law)
        .def_readwrite("family", &DesignOptions::family)
        .def_readwrite("out", &DesignOptions::out)
        .def_readwrite("param", &DesignOptions::params)
        .def_readwrite("ladder", &DesignOptions::ladder)
        .def_readwrite("budgets", &DesignOptions::budgets)
        .def_readwrite("sizes_per_budget", &DesignOptions::sizesPerBudget)
        .def_readwrite("seeds", &DesignOptions::seeds)
        .def_readwrite("seed", &DesignOptions::seed);

    py::class_<AccountOptions>(m, "AccountOptions")
        .def(py::init<>())
        .def_readwrite("config", &AccountOptions::config)
        .def_readwrite("spec", &AccountOptions::spec)
        .def_readwrite("family", &AccountOptions::family)
        .def_readwrite("cache", &AccountOptions::cache)
        .def_readwrite("d_model", &AccountOptions::dModel)
        .def_readwrite("n_layers", &AccountOptions::nLayers)
        .def_readwrite("n_heads", &AccountOptions::nHeads)
        .def_readwrite("n_kv_heads", &AccountOptions::nKvHeads)
        .def_readwrite("d_qk", &AccountOptions::dQk)
        .def_readwrite("d_hv", &AccountOptions::dHv)
        .def_readwrite("d_ff", &AccountOptions::dFf)
        .def_readwrite("vocab", &AccountOptions::vocab)
        .def_readwrite("chunk", &AccountOptions::chunk)
        .def_readwrite("prefill", &AccountOptions::prefill)
        .def_readwrite("ctx", &AccountOptions::ctx)
        .def_readwrite("batch", &AccountOptions::batch)
        .def_readwrite("generate", &AccountOptions::generate)
        .def_readwrite("convention", &AccountOptions::convention)
        .def_readwrite("factors", &AccountOptions::factors);

    py::class_<python::FigureOptions>(m, "FigureOptions")
        .def(py::init<>())
        .def_readwrite("view", &python::FigureOptions::view)
        .def_readwrite("out", &python::FigureOptions::out)
        .def_readwrite("set", &python::FigureOptions::set)
        .def_readwrite("size", &python::FigureOptions::size)
        .def_readwrite("style", &python::FigureOptions::style)
        .def_readwrite("font", &python::FigureOptions::font)
        .def_readwrite("dpi", &python::FigureOptions::dpi)
        .def_readwrite("models", &python::FigureOptions::models)
        .def_readwrite("table", &python::FigureOptions::table);
    // The figure's options checked when the Figure is made, before anything is drawn.
    m.def("check_figure", [](const python::FigureOptions& o) {
        if (auto error = python::checkFigure(o); !error.empty()) throw Error(error);
    });

    py::class_<PyStudy>(m, "Study")
        .def_property_readonly("n_runs", [](const PyStudy& s) { return s.study.runs().runs.size(); })
        .def_property_readonly("series_names", [](const PyStudy& s) { return s.study.seriesNames(); })
        .def("runs_csv", [](const PyStudy& s) { return py::bytes(data::writeRunTableCsv(s.study.runs()).toStdString()); })
        // How the study is read (analysis/StudyReading.h), as `scalex check --json` gives it.
        .def("reading",
             [](const PyStudy& s) {
                 const analysis::StudyReading& r = s.study.reading();
                 py::list roles;
                 for (const auto& c : r.columns) {
                     py::dict d;
                     d["column"] = c.column;
                     d["role"] = std::string(analysis::roleName(c.role));
                     d["evidence"] = c.evidence;
                     d["weighed"] = c.weighed;
                     d["chosen"] = c.chosen;
                     roles.append(d);
                 }
                 py::dict out;
                 out["roles"] = roles;
                 out["conditions"] = r.conditions;
                 out["knobs"] = r.knobs;
                 out["budget_source"] = r.budgets.source;
                 out["budget_levels"] = r.budgets.levels;
                 out["sweeps"] = r.sweeps;
                 out["notes"] = r.notes;
                 return out;
             })
        .def("regroup", &regroup)
        .def("isoflop", &isoflop)
        .def("lnd", &lnd)
        .def("lnd_from_curves", [](const PyStudy& in, const Options& scope, const std::vector<std::string>& args) {
            return lndFromCurves(&in, scope, args);
        })
        .def("slopes", &slopes)
        .def("pareto", &pareto)
        .def("context", &context)
        .def("law", &law)
        .def("optimal", &optimal)
        .def("bootstrap", &bootstrap)
        .def("plan", &plan)
        .def("figure", &figure);

    m.def("read_files", &readFiles);
    m.def("read_bytes", &readBytes);
    m.def("read_example", &readExample);
    m.def("design", &design);
    m.def("account", &account);
    m.def("curves", &fitCurvesVerb);
    m.def("predict_curve", &predictCurveVerb);
    m.def("fit_runtime", [](const std::vector<std::string>& args) {
        return runtimeQuery("fit runtime", args, addFitRuntimeOptions, fitRuntimeQuery);
    });
    m.def("predict_runtime", [](const std::vector<std::string>& args) {
        return runtimeQuery("predict runtime", args, addPredictRuntimeOptions, predictRuntimeQuery);
    });
    m.def("predict_max_model", [](const std::vector<std::string>& args) {
        return runtimeQuery("predict max-model", args, addPredictMaxModelOptions, predictMaxModelQuery);
    });
    m.def("predict_crossover", [](const std::vector<std::string>& args) {
        return runtimeQuery("predict crossover", args, addPredictCrossoverOptions, predictCrossoverQuery);
    });
    m.def("generate", &generate);
    m.def("convert", &convert);
    m.def("lnd_from_curves", [](const Options& scope, const std::vector<std::string>& args) { return lndFromCurves(nullptr, scope, args); });

    py::class_<CurveOptions>(m, "CurveOptions")
        .def(py::init<>())
        .def_readwrite("data", &CurveOptions::data)
        .def_readwrite("holdout", &CurveOptions::holdout)
        .def_readwrite("law", &CurveOptions::law)
        .def_readwrite("warmup", &CurveOptions::warmup)
        .def_readwrite("schedule", &CurveOptions::schedule)
        .def_readwrite("train_loss", &CurveOptions::trainLoss)
        .def_readwrite("huber_delta", &CurveOptions::huberDelta)
        .def_readwrite("level", &CurveOptions::level)
        .def_readwrite("max_iterations", &CurveOptions::maxIterations)
        .def_readwrite("at", &CurveOptions::at);
}
