// The corpus: every real study in ../shared/data read as its authors read it, with no mapping, no
// options and no editing. Per study: the roles of its columns, its series, the runs kept and left
// out with their reasons, its budgets and its laws, against the authors' numbers where they
// published them; then one answer by every path (fit, render --table, a converted project, a saved
// recipe) on each; and generated studies of the shapes no real file here has (a merged collection
// of eight experiments).
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <map>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString pub(const QString& rel) { return sharedPath("data/public/" + rel); }

QJsonObject checkOf(const QString& file, const QStringList& more = {}) {
    const auto r = runScalex(QStringList{"check", file, "--json"} + more);
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return r.exitCode == 0 ? r.json() : QJsonObject{};
}

QString roleOf(const QJsonObject& check, const QString& column) {
    for (const auto& c : check["roles"].toArray())
        if (c.toObject()["column"].toString() == column) return c.toObject()["role"].toString();
    return QStringLiteral("(no such column)");
}

QStringList seriesOf(const QJsonObject& check) {
    QStringList out;
    for (const auto& s : check["series"].toArray()) out << s.toObject()["name"].toString();
    return out;
}

// The N*(H) exponent of every series `fit isoflop --json` gives: series -> a.
std::map<QString, double> isoflopLaws(const QStringList& args) {
    const auto r = runScalex(QStringList{"fit", "isoflop"} + args + QStringList{"--json"});
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    std::map<QString, double> out;
    if (r.exitCode != 0) return out;
    const QJsonObject j = r.json();
    if (j.contains("series")) {
        for (const auto& s : j["series"].toArray())
            if (s.toObject().contains("a")) out[s.toObject()["name"].toString()] = s.toObject()["a"].toDouble();
    } else if (j.contains("a")) {
        out[QString()] = j["a"].toDouble();
    }
    return out;
}

// The N*(H) rows of the IsoFLOP view's laws table (`render --table laws`): model label -> exponent.
std::map<QString, double> renderedLaws(const QTemporaryDir& dir, const QStringList& args) {
    static int k = 0;
    const QString out = dir.filePath(QStringLiteral("laws%1.csv").arg(++k));
    // A recipe names its view.
    const QStringList view = args.contains("--recipe") ? QStringList{} : QStringList{"--view", "isoflop"};
    const auto r = runScalex(QStringList{"render"} + args + view + QStringList{"--table", "laws", "--out", out});
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    std::map<QString, double> laws;
    QFile f(out);
    if (!f.open(QIODevice::ReadOnly)) return laws;
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    for (const QString& line : lines.mid(1)) {
        // model,context,law,coefficient,low,high,exponent,...; a model's label may hold " / " but no comma.
        const QStringList cells = line.split(',');
        if (cells.size() > 6 && cells[2].contains("N*")) laws[cells[0]] = cells[6].toDouble();
    }
    return laws;
}

// The laws of `fit isoflop` and of the view's table, by a CSV, a converted project and a saved
// recipe, for a study with no options: the same numbers, every series.
void expectOneIsoFlopAnswer(const QString& file) {
    QTemporaryDir dir;
    const auto fit = isoflopLaws({"--data", file});
    ASSERT_FALSE(fit.empty());
    const QString project = dir.filePath("study.scalex");
    ASSERT_EQ(runScalex({"convert", file, project}).exitCode, 0);
    const auto fromProject = isoflopLaws({"--data", project});
    ASSERT_EQ(runScalex({"render", "--project", project, "--view", "isoflop", "--out", dir.filePath("fig.svg"), "--save-recipe", "laws"})
                  .exitCode,
              0);
    for (const auto& args : {QStringList{"--data", file}, QStringList{"--project", project}, QStringList{"--project", project, "--recipe", "laws"}}) {
        SCOPED_TRACE(args.join(' ').toStdString());
        const auto table = renderedLaws(dir, args);
        EXPECT_EQ(table.size(), fit.size()) << "every series in the table";
        for (const auto& [series, a] : fit) {
            // The table names a series by its label: the families by theirs, others as they are.
            QString label = series == "transformer" ? "Transformer" : series == "xlstm" ? "xLSTM" : series;
            if (fit.size() == 1 && table.size() == 1) label = table.begin()->first;
            ASSERT_TRUE(table.count(label)) << label.toStdString();
            EXPECT_DOUBLE_EQ(table.at(label), a) << label.toStdString();
        }
    }
    ASSERT_EQ(fromProject.size(), fit.size());
    for (const auto& [series, a] : fit) EXPECT_DOUBLE_EQ(fromProject.at(series), a) << series.toStdString();
}

}  // namespace

// Porian et al.: six text columns set each experiment; no run of one setting is a sweep of another.
TEST(Corpus, PorianSettingsAreConditionsAndEachGivesItsLaw) {
    SCALEX_REQUIRE_SHARED();
    const QString file = pub("porian/isoflop_points.csv");
    const QJsonObject check = checkOf(file);
    // Each separates runs at the same (N, D); `val` (train or validation loss) follows the parameter count
    // (train for kaplan and attention, val for standard) and so names nothing the others do not.
    for (const char* c : {"dataset", "hparams", "warmup", "decay", "param_count"}) EXPECT_EQ(roleOf(check, c), "condition") << c;
    EXPECT_EQ(roleOf(check, "val"), "descriptor");
    EXPECT_EQ(roleOf(check, "source_file"), "descriptor") << "a function of the others: adds no experiment";
    QStringList seriesBy;
    for (const auto& c : check["series_by"].toArray()) seriesBy << c.toString();
    EXPECT_EQ(seriesBy, (QStringList{"dataset", "hparams", "warmup", "decay", "param_count"}));
    EXPECT_EQ(roleOf(check, "flops_budget"), "budget");
    EXPECT_EQ(seriesOf(check).size(), 15);
    EXPECT_EQ(check["in_analyses"].toInt(), 1745) << "every point of every setting";
    EXPECT_TRUE(check["not_best_of_sweep"].toArray().isEmpty());

    // The published exponents (powerlaw_fits.csv, kind basic). Their optima are interpolated and
    // bootstrapped, ours are parabola minima over every budget: the exponents differ by up to 0.07
    // (the long warm-up settings, whose profiles are flattest), most by less than 0.04; the order of
    // the settings, the paper's finding, is the same.
    const auto published = scalex::test::readSimpleCsv(pub("porian/powerlaw_fits.csv"));
    const auto laws = isoflopLaws({"--data", file});
    ASSERT_EQ(laws.size(), 15u);
    std::vector<std::pair<double, double>> pairs;
    for (int i = 0; i < published.rows.size(); ++i) {
        if (published.at(i, "kind") != "basic") continue;
        QStringList setting;
        for (const QString& c : seriesBy) setting << published.at(i, c);
        const QString name = setting.join(" / ");
        ASSERT_TRUE(laws.count(name)) << name.toStdString();
        const double theirs = published.number(i, "n_exponent"), ours = laws.at(name);
        EXPECT_NEAR(ours, theirs, 0.07) << name.toStdString();
        pairs.push_back({theirs, ours});
    }
    ASSERT_EQ(pairs.size(), 15u);
    // The headline settings: Kaplan-like 0.834 published, corrected 0.497.
    EXPECT_NEAR(laws.at("rw / base / long / kaplan / kaplan"), 0.834, 0.04);
    EXPECT_NEAR(laws.at("rw / tuned / short / const / standard"), 0.497, 0.02);
    // Rank agreement: the settings' order by exponent is the paper's (Kendall's tau above 0.8).
    int concordant = 0, discordant = 0;
    for (std::size_t i = 0; i < pairs.size(); ++i)
        for (std::size_t j = i + 1; j < pairs.size(); ++j) {
            const double s = (pairs[i].first - pairs[j].first) * (pairs[i].second - pairs[j].second);
            (s > 0 ? concordant : discordant)++;
        }
    EXPECT_GT(double(concordant - discordant) / (concordant + discordant), 0.8);

    // One setting in scope: its runs all stay (the warm-up is no sweep of the other warm-up).
    const QStringList one{"--where", "dataset=rw", "--where", "hparams=base", "--where", "warmup=long", "--where", "decay=kaplan",
                          "--where", "param_count=kaplan", "--where", "val=train"};
    const QJsonObject scoped = checkOf(file, one);
    EXPECT_EQ(roleOf(scoped, "warmup"), "constant");
    EXPECT_EQ(scoped["in_analyses"].toInt(), 107);
    const auto oneLaw = isoflopLaws(QStringList{"--data", file} + one);
    ASSERT_EQ(oneLaw.size(), 1u);
    EXPECT_NEAR(oneLaw.begin()->second, laws.at("rw / base / long / kaplan / kaplan"), 1e-12);
}

// (Mis)fitting: one study; the learning rate is swept, the launch batch is no experiment, the model
// name is a size.
TEST(Corpus, MisfittingIsOneStudyWithLearningRateSweeps) {
    SCALEX_REQUIRE_SHARED();
    const QJsonObject check = checkOf(pub("misfitting/scaling_results_last_ckpt_only.csv"));
    EXPECT_EQ(roleOf(check, "peak_lr"), "knob");
    EXPECT_EQ(roleOf(check, "sweep"), "identifier");
    EXPECT_EQ(roleOf(check, "model"), "descriptor");
    EXPECT_EQ(roleOf(check, "total_epochs"), "measure") << "bookkeeping that varies at a point, not a setting";
    EXPECT_EQ(seriesOf(check).size(), 1);
    EXPECT_EQ(check["rows"].toInt(), 261);
    EXPECT_EQ(check["with_problems"].toInt(), 1);
    // 80 points with a sweep: the best learning rate of each stands for it; where two runs share the
    // best rate (their epoch counters differ, nothing else) both stay.
    EXPECT_EQ(check["not_best_of_sweep"].toArray().size(), 176);
    EXPECT_EQ(check["in_analyses"].toInt(), 84);
    EXPECT_TRUE(check["not_best_of_sweep"].toArray()[0].toObject()["reason"].toString().startsWith("not the best of its sweep: peak_lr "));
    const auto lnd = runScalex({"fit", "lnd", "--data", pub("misfitting/scaling_results_last_ckpt_only.csv"), "--json", "--no-extrapolation"});
    ASSERT_EQ(lnd.exitCode, 0) << lnd.err.toStdString();
    EXPECT_TRUE(lnd.json().contains("alpha")) << "one law of the study";
}

// (Mis)fitting with its checkpoints: 4,852 rows of 261 runs; each run's last row is the run.
TEST(Corpus, MisfittingCheckpointsAreLossCurvesOfTheirRuns) {
    SCALEX_REQUIRE_SHARED();
    const QString file = pub("misfitting/scaling_results.csv");
    const QJsonObject check = checkOf(file);
    EXPECT_EQ(roleOf(check, "current_steps"), "step");
    EXPECT_EQ(roleOf(check, "portion_steps_elapsed"), "step");
    EXPECT_EQ(roleOf(check, "peak_lr"), "knob");
    EXPECT_EQ(check["rows"].toInt(), 4852);
    // 261 runs (two logged past their end: curve rows); one checkpoint row has a problem and stays a problem row.
    EXPECT_EQ(check["intermediate_checkpoints"].toInt(), 4852 - 261 - 1);
    EXPECT_EQ(check["in_analyses"].toInt(), 84) << "the same runs as the file of last checkpoints";
    // The same law as from the last checkpoints.
    const auto fromCurves = runScalex({"fit", "lnd", "--data", file, "--json", "--no-extrapolation"});
    const auto fromLast = runScalex({"fit", "lnd", "--data", pub("misfitting/scaling_results_last_ckpt_only.csv"), "--json", "--no-extrapolation"});
    ASSERT_EQ(fromCurves.exitCode, 0) << fromCurves.err.toStdString();
    ASSERT_EQ(fromLast.exitCode, 0);
    EXPECT_NEAR(fromCurves.json()["alpha"].toDouble(), fromLast.json()["alpha"].toDouble(), 1e-9);
    // Drawn as loss curves, one per run.
    QTemporaryDir dir;
    const QString out = dir.filePath("curves.svg");
    const auto r = runScalex({"render", "--data", file, "--view", "curves", "--out", out});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(QFile::exists(out));
}

// Marin: the budget is in each run's name, a third of the total compute its tracker logged in GFLOPs.
TEST(Corpus, MarinBudgetsComeFromTheRunNames) {
    SCALEX_REQUIRE_SHARED();
    for (const char* set : {"comma", "dclm"}) {
        SCOPED_TRACE(set);
        const QString file = pub(QStringLiteral("marin/isoflop-%1.csv").arg(set));
        const QJsonObject check = checkOf(file);
        EXPECT_TRUE(check["budget_source"].toString().startsWith("run names")) << check["budget_source"].toString().toStdString();
        EXPECT_EQ(check["budget_levels"].toArray().size(), 7);
        // Every grid run in its budget; of the runs trained later at a predicted optimum (their names
        // give their total compute), those whose compute lies at no budget of the grid are named.
        for (const auto& r : check["in_no_budget"].toArray()) {
            EXPECT_TRUE(r.toObject()["run"].toString().contains("validation-optimal")) << r.toObject()["run"].toString().toStdString();
            EXPECT_TRUE(r.toObject()["reason"].toString().contains("lies at no budget of the study"));
        }
        EXPECT_EQ(roleOf(check, "throughput/total_gflops"), "quantity");
        const auto laws = isoflopLaws({"--data", file});
        ASSERT_EQ(laws.size(), 1u);
        // Every grid run in a profile: a law from seven budgets, near the square-root rule.
        EXPECT_GT(laws.begin()->second, 0.4);
        EXPECT_LT(laws.begin()->second, 0.6);
    }
}

// Epoch's Chinchilla points: no budget column, and compute read off a figure (noisy): the budgets
// are the clusters of the points' compute, and the law through them is Hoffmann et al.'s.
TEST(Corpus, EpochPointsBudgetsAreClustersOfCompute) {
    SCALEX_REQUIRE_SHARED();
    const QString file = pub("epoch-chinchilla/svg_extracted_data.csv");
    const QJsonObject check = checkOf(file);
    EXPECT_EQ(roleOf(check, "Model Size"), "quantity");
    EXPECT_EQ(roleOf(check, "Training FLOP"), "quantity");
    EXPECT_NE(roleOf(check, "color"), "condition") << "the colour of a point's compute is no experiment";
    EXPECT_EQ(seriesOf(check).size(), 1);
    EXPECT_TRUE(check["budget_source"].toString().startsWith("clusters")) << check["budget_source"].toString().toStdString();
    EXPECT_GE(check["budget_levels"].toArray().size(), 9) << "at least Hoffmann et al.'s nine IsoFLOP budgets";
    EXPECT_EQ(check["in_analyses"].toInt(), 245);
    // Every point left out of the budgets is named with the reason.
    EXPECT_FALSE(check["in_no_budget"].toArray().isEmpty());
    for (const auto& r : check["in_no_budget"].toArray())
        EXPECT_TRUE(r.toObject()["reason"].toString().contains("lies in no cluster")) << r.toObject()["reason"].toString().toStdString();
    // Hoffmann et al.'s Approach 2 gives N* ~ C^0.49, Besiroglu et al.'s replication 0.50.
    const auto laws = isoflopLaws({"--data", file});
    ASSERT_EQ(laws.size(), 1u);
    EXPECT_NEAR(laws.begin()->second, 0.50, 0.03);
}

// Gemstones: checkpoints along one run per model; width and depth describe the model.
TEST(Corpus, GemstonesAreCurvesOf22Runs) {
    SCALEX_REQUIRE_SHARED();
    for (const char* set : {"dclm", "edu"}) {
        const QJsonObject check = checkOf(pub(QStringLiteral("gemstones/fineweb_%1_losses_combined.jsonl").arg(set)));
        EXPECT_EQ(roleOf(check, "step"), "step");
        EXPECT_EQ(roleOf(check, "width"), "descriptor");
        EXPECT_EQ(roleOf(check, "depth"), "descriptor");
        EXPECT_EQ(roleOf(check, "run_name"), "identifier");
        EXPECT_EQ(check["in_analyses"].toInt(), 22);
        EXPECT_EQ(check["intermediate_checkpoints"].toInt(), 770 - 22);
    }
}

// The scalebench tasks: multi-variable tables without N and D for every analysis; read, not guessed.
TEST(Corpus, ScalebenchTasksLoadAndKeepEveryRow) {
    SCALEX_REQUIRE_SHARED();
    for (const char* task : {"vocab_scaling_law", "sparsity_scaling_law"}) {
        SCOPED_TRACE(task);
        const QJsonObject check = checkOf(pub(QStringLiteral("scalebench/%1/train.csv").arg(task)));
        EXPECT_EQ(check["in_analyses"].toInt(), check["usable"].toInt()) << "no row left out";
        EXPECT_TRUE(check["not_best_of_sweep"].toArray().isEmpty());
        EXPECT_NE(roleOf(check, "group"), "(no such column)");
    }
    // The learning-rate x batch-size task is a grid at each (N, D): lr and bsz are knobs, and the
    // analyses of N and D take the best of each grid; a law over lr and bsz fits every run.
    const QString lrBsz = pub("scalebench/lr_bsz_scaling_law/train.csv");
    const QJsonObject check = checkOf(lrBsz);
    EXPECT_EQ(roleOf(check, "lr"), "knob");
    EXPECT_EQ(roleOf(check, "bsz"), "knob");
    EXPECT_LT(check["in_analyses"].toInt(), check["usable"].toInt());
    const auto law = runScalex({"fit", "law", "--data", lrBsz, "--group", "group", "--resamples", "0", "--json", "--formula",
                                "lm_loss = E + A * lr^a * bsz^b", "--param", "E=0:10", "--param", "A=0:100", "--param", "a=-2:2",
                                "--param", "b=-2:2"});
    ASSERT_EQ(law.exitCode, 0) << law.err.toStdString();
    EXPECT_TRUE(law.json()["every_sweep_run"].toBool());
    int fitted = 0;
    for (const auto& g : law.json()["groups"].toArray()) fitted += g.toObject()["n_train"].toInt();
    EXPECT_EQ(fitted, check["usable"].toInt()) << "every run of the grid";
}

// The paper's own runs: the family is the series; the study's budget column the budgets.
TEST(Corpus, ThePapersRunsReadAsThePaperReadsThem) {
    SCALEX_REQUIRE_SHARED();
    const QString file = sharedPath("data/xlstm/runs_isoflop_llama_ctx8192.csv");
    const QJsonObject check = checkOf(file);
    EXPECT_EQ(roleOf(check, "model_family"), "condition");
    EXPECT_EQ(roleOf(check, "isoflop_bucket"), "budget");
    EXPECT_EQ(roleOf(check, "run_id"), "identifier");
    EXPECT_EQ(roleOf(check, "created_at"), "identifier");
    EXPECT_EQ(seriesOf(check), QStringList{"transformer"});
    EXPECT_TRUE(check["budget_source"].toString().startsWith("column")) << check["budget_source"].toString().toStdString();
    // The law against the authors' own code (reference/isoflop_powerlaw_fits.csv).
    const auto laws = isoflopLaws({"--data", file, "--budget-range", "5e18", "2e20"});
    ASSERT_EQ(laws.size(), 1u);
    // The row of that fit: ...,N_opt,4,"3e+19,...",coef,exponent,...
    const QStringList lines = QString::fromUtf8(scalex::test::fileBytes(sharedPath("reference/isoflop_powerlaw_fits.csv"))).split('\n');
    bool compared = false;
    for (const QString& line : lines)
        if (line.startsWith("isoflop_llama_ctx8192,llama,8192,get_isoflop_powerlaw_plot,5e+18,2e+20,N_opt,")) {
            const QStringList afterBuckets = line.section('"', 2).split(',');  // "", coef, exponent, ...
            ASSERT_GT(afterBuckets.size(), 2);
            EXPECT_NEAR(laws.begin()->second, afterBuckets[2].toDouble(), 1e-3);
            compared = true;
        }
    EXPECT_TRUE(compared);
}

TEST(Corpus, EveryStudyWithALawGivesOneAnswerByEveryPath) {
    SCALEX_REQUIRE_SHARED();
    for (const QString& file : {pub("porian/isoflop_points.csv"), pub("marin/isoflop-comma.csv"), pub("marin/isoflop-dclm.csv"),
                                pub("epoch-chinchilla/svg_extracted_data.csv"), sharedPath("data/xlstm/runs_isoflop_llama_ctx8192.csv")}) {
        SCOPED_TRACE(file.toStdString());
        expectOneIsoFlopAnswer(file);
    }
}

// A merged collection of eight experiments: eight laws by the verb, and eight in the view's table.
TEST(Corpus, EightExperimentsGiveEightLawsByEveryPath) {
    QTemporaryDir dir;
    const QString path = dir.filePath("merged.csv");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("experiment,params,tokens,flops,loss\n");
    for (int e = 0; e < 8; ++e) {
        const double a = 0.42 + 0.02 * e;
        for (double h : {1e18, 3e18, 1e19, 3e19}) {
            const double logOpt = std::log10(0.2) + a * std::log10(h);
            for (int k = -3; k <= 3; ++k) {
                const double logN = logOpt + 0.25 * k + 0.01 * e;  // each experiment its own sizes
                const double n = std::pow(10.0, logN), d = h / (6 * n);
                const double loss = 1.9 + 0.1 * e + 0.09 * (logN - logOpt) * (logN - logOpt) + 0.6 / std::log10(h);
                f.write(QStringLiteral("exp%1,%2,%3,%4,%5\n").arg(e).arg(n, 0, 'g', 12).arg(d, 0, 'g', 12).arg(h).arg(loss, 0, 'g', 12).toUtf8());
            }
        }
    }
    f.close();
    const QJsonObject check = checkOf(path);
    EXPECT_EQ(roleOf(check, "experiment"), "condition");
    EXPECT_EQ(seriesOf(check).size(), 8);
    const auto laws = isoflopLaws({"--data", path});
    ASSERT_EQ(laws.size(), 8u);
    for (int e = 0; e < 8; ++e) EXPECT_NEAR(laws.at(QStringLiteral("exp%1").arg(e)), 0.42 + 0.02 * e, 0.01);
    expectOneIsoFlopAnswer(path);
}

// L(N,D) of the studies whose design gives one (a sweep of sizes and token counts): `fit lnd` and
// the loss-surface view's table, from the file and from a converted project, the same numbers.
TEST(Corpus, TheLossSurfaceIsTheSameByEveryPath) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    for (const QString& file : {pub("misfitting/scaling_results_last_ckpt_only.csv"), pub("misfitting/scaling_results.csv")}) {
        SCOPED_TRACE(file.toStdString());
        const auto fit = runScalex({"fit", "lnd", "--data", file, "--json", "--no-extrapolation"});
        ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
        const QString project = dir.filePath("surface.scalex");
        QFile::remove(project);
        ASSERT_EQ(runScalex({"convert", file, project}).exitCode, 0);
        for (const QString& input : {file, project}) {
            const QString out = dir.filePath("fit.csv");
            QFile::remove(out);
            const auto r = runScalex({"render", "--project", input, "--view", "surface", "--table", "fit", "--out", out});
            ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
            const QMap<QString, double> fitted = scalex::test::surfaceFitTable(out);
            for (const char* key : {"alpha", "beta", "gamma"}) {
                ASSERT_TRUE(fitted.contains(QLatin1String(key))) << key;
                EXPECT_DOUBLE_EQ(fitted.value(QLatin1String(key)), fit.json()[key].toDouble()) << key;
            }
        }
    }
}
