// `scalex plan --replay`: the JSON contract scripts rely on (top-level r2, checkpoints at 1 %, 5 %,
// 10 % of the cost with fraction, runs and r2, the curve), the same seed giving the same replay,
// and one clear error with exit status 2 for each kind of bad input.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QFile>
#include <QImage>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <cmath>
#include <map>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString tokenParam() { return sharedPath("data/xlstm/tokenparam_runs_ctx8192.csv"); }

QStringList replayArgs(const QStringList& extra = {}) {
    return QStringList{"plan", "--replay", "--data", tokenParam(), "--formula", "L = E + A/N^alpha + B/D^beta",
                       "--param", "E=0:10", "--param", "A=0:1e6", "--param", "B=0:1e7", "--param", "alpha=0:2", "--param", "beta=0:2",
                       "--group", "model_type", "--pool", "N<6e9", "--target", "N>6e9"} +
           extra;
}

}  // namespace

TEST(PlanCli, ReplayJsonContract) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--json"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject o = r.json();
    ASSERT_TRUE(o.value("r2").isDouble());
    EXPECT_EQ(o.value("strategy").toString(), "planner");
    EXPECT_EQ(o.value("cost").toString(), "6*N*D");
    EXPECT_DOUBLE_EQ(o.value("budget").toDouble(), 0.1);
    const QJsonArray checkpoints = o.value("checkpoints").toArray();
    ASSERT_EQ(checkpoints.size(), 3);
    const double at[] = {0.01, 0.05, 0.10};
    int previousRuns = 0;
    for (int c = 0; c < 3; ++c) {
        const QJsonObject p = checkpoints[c].toObject();
        EXPECT_DOUBLE_EQ(p.value("at").toDouble(), at[c]);
        EXPECT_LE(p.value("fraction").toDouble(), at[c] + 1e-12);
        EXPECT_GT(p.value("fraction").toDouble(), 0);
        EXPECT_GE(p.value("runs").toInt(), previousRuns);
        previousRuns = p.value("runs").toInt();
        EXPECT_TRUE(p.value("r2").isDouble());
    }
    // The last checkpoint at the budget is the final state.
    EXPECT_DOUBLE_EQ(checkpoints[2].toObject().value("r2").toDouble(), o.value("r2").toDouble());
    const QJsonArray curve = o.value("curve").toArray();
    ASSERT_GE(curve.size(), 3);
    for (int k = 1; k < curve.size(); ++k)
        EXPECT_GE(curve[k].toObject().value("fraction").toDouble(), curve[k - 1].toObject().value("fraction").toDouble());
    EXPECT_TRUE(curve.last().toObject().value("mape").isDouble());
    const QJsonArray groups = o.value("groups").toArray();
    ASSERT_EQ(groups.size(), 2);  // transformer and xlstm
    for (const auto& g : groups) {
        const QJsonObject j = g.toObject();
        EXPECT_GT(j.value("pool").toInt(), 20);
        EXPECT_GE(j.value("targets").toInt(), 3);
        // Five parameters: the six cheapest runs first.
        const QJsonArray picks = j.value("picks").toArray();
        ASSERT_GT(picks.size(), 6);
        for (int k = 0; k < 6; ++k) EXPECT_TRUE(picks[k].toObject().value("initial").toBool());
        EXPECT_LE(picks.last().toObject().value("fraction").toDouble(), 0.1 + 1e-12);
    }
    // The same seed, the same replay; another strategy, another one.
    const auto again = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--json"}));
    EXPECT_EQ(again.json().value("r2").toDouble(), o.value("r2").toDouble());
    const auto random = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--strategy", "random", "--json"}));
    ASSERT_EQ(random.exitCode, 0) << random.err.toStdString();
    EXPECT_EQ(random.json().value("strategy").toString(), "random");
    // A budget short of a checkpoint leaves it out.
    const auto small = runScalex(replayArgs({"--budget", "0.03", "--json"}));
    ASSERT_EQ(small.exitCode, 0) << small.err.toStdString();
    EXPECT_EQ(small.json().value("checkpoints").toArray().size(), 1);
}

// --curve: the target's error and R^2 against the cost spent for the three strategies, on one grid
// of fractions up to the budget; the planner's column at the checkpoints is the replay's own score.
TEST(PlanCli, ReplayCurveCsvAgreesWithTheCheckpoints) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString path = dir.filePath("curve.csv");
    const auto r = runScalex(replayArgs({"--budget", "0.1", "--seed", "3", "--curve", path, "--seeds", "4", "--json"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    ASSERT_GE(lines.size(), 40);
    const QStringList header = lines[0].split(',');
    EXPECT_EQ(header, QString("fraction,planner_mape,cheapest_mape,random_mape,random_mape_low,random_mape_high,planner_r2,cheapest_r2,random_r2,"
                              "random_r2_low,random_r2_high")
                          .split(','));
    std::map<double, QStringList> byFraction;
    double previous = 0;
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList cells = lines[i].split(',');
        ASSERT_EQ(cells.size(), header.size()) << lines[i].toStdString();
        const double fraction = cells[0].toDouble();
        EXPECT_GT(fraction, previous);
        previous = fraction;
        EXPECT_LE(cells[4].toDouble(), cells[3].toDouble());
        EXPECT_LE(cells[3].toDouble(), cells[5].toDouble());
        byFraction[fraction] = cells;
    }
    EXPECT_NEAR(previous, 0.1, 1e-12);
    for (const auto& c : r.json().value("checkpoints").toArray()) {
        const QJsonObject point = c.toObject();
        const auto it = byFraction.find(point.value("at").toDouble());
        ASSERT_NE(it, byFraction.end()) << point.value("at").toDouble();
        EXPECT_NEAR(it->second[6].toDouble(), point.value("r2").toDouble(), 1e-6 * std::abs(point.value("r2").toDouble()));
        EXPECT_NEAR(it->second[1].toDouble(), point.value("mape").toDouble(), 1e-6);
    }
    const auto both = runScalex(replayArgs({"--budget", "0.1", "--curve", path, "--strategy", "random"}));
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_TRUE(both.err.contains("--curve replays every strategy")) << both.err.toStdString();
}

// --curve OUT.svg|png|pdf: the same curves as a figure Scalex draws (app/figures/ReplayCurveFigure):
// the planner, the random median with its quartiles, cheapest-first, in the legend and as text in
// the SVG; a suffix no figure has is one line, exit 2.
TEST(PlanCli, ReplayCurveFigure) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString svg = dir.filePath("curve.svg");
    const auto r = runScalex(replayArgs({"--budget", "0.05", "--curve", svg, "--seeds", "3", "--title", "xLSTM tokenparam"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile f(svg);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    for (const char* label : {"planner", "random: median", "random: quartiles over 3 seeds", "cheapest first", "xLSTM tokenparam",
                              "Target's mean relative error (%)"})
        EXPECT_TRUE(text.contains(QString::fromUtf8(label))) << label;
    const QString png = dir.filePath("curve.png");
    ASSERT_EQ(runScalex(replayArgs({"--budget", "0.02", "--curve", png, "--seeds", "1", "--size", "single"})).exitCode, 0);
    const QImage image(png);
    EXPECT_FALSE(image.isNull());
    EXPECT_GT(image.width(), 900);  // 3.25 in at 300 dpi
    const auto bad = runScalex(replayArgs({"--budget", "0.05", "--curve", dir.filePath("curve.txt"), "--seeds", "3"}));  // refused before replaying
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_EQ(bad.err.trimmed().count('\n'), 0) << bad.err.toStdString();
    EXPECT_TRUE(bad.err.contains("curve.txt' must end in .pdf, .svg or .png (a figure) or .csv")) << bad.err.toStdString();
}

// A bad --curve or --show suffix is refused before the study is read (so before any replay or fit):
// with a study file that does not exist, the error is still the suffix's.
TEST(PlanCli, FigureSuffixIsCheckedFirst) {
    QTemporaryDir dir;
    const QString missing = dir.filePath("no-such-study.csv");
    const QStringList law{"--formula", "L = E + A/N^alpha", "--param", "E=0:10", "--param", "A=0:1e6", "--param", "alpha=0:2"};
    const auto curve = runScalex(QStringList{"plan", "--replay", "--data", missing, "--pool", "N<6e9", "--target", "N>6e9", "--budget", "0.1",
                                             "--curve", dir.filePath("curve.txt")} + law);
    EXPECT_EQ(curve.exitCode, 2);
    EXPECT_EQ(curve.err.trimmed(), "scalex plan: --curve '" + dir.filePath("curve.txt") + "' must end in .pdf, .svg or .png (a figure) or .csv");
    const auto show = runScalex(QStringList{"plan", "--data", missing, "--target", "N=7e9", "--grid-n", "1e8:8e9:4", "--grid-d", "2e9:2e11:3",
                                            "--show", dir.filePath("plan.jpg")} + law);
    EXPECT_EQ(show.exitCode, 2);
    EXPECT_EQ(show.err.trimmed(), "scalex plan: --show '" + dir.filePath("plan.jpg") + "' must end in .pdf, .svg or .png");
    // A good suffix goes on to read the study, and names the missing file.
    const auto good = runScalex(QStringList{"plan", "--data", missing, "--target", "N=7e9", "--grid-n", "1e8:8e9:4", "--grid-d", "2e9:2e11:3",
                                            "--show", dir.filePath("plan.png")} + law);
    EXPECT_EQ(good.exitCode, 2);
    EXPECT_TRUE(good.err.contains("no-such-study.csv")) << good.err.toStdString();
}

TEST(PlanCli, ReplayCostExpressionAndText) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex(replayArgs({"--budget", "0.05", "--cost", "N*D"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains("cost N*D")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("at 5 %")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("target R^2")) << r.out.toStdString();
}

TEST(PlanCli, BadInputsExitTwoWithOneLine) {
    SCALEX_REQUIRE_SHARED();
    const std::vector<std::pair<QStringList, QString>> cases = {
        {replayArgs({"--budget", "0.1"}).replaceInStrings("N>6e9", "N>1e12"), "--target"},
        {replayArgs({"--budget", "0.1"}).replaceInStrings("N<6e9", "N<1e3"), "--pool"},
        {replayArgs({"--budget", "0.1"}).replaceInStrings("N>6e9", "N>1e9"), "both"},
        {replayArgs({"--budget", "2"}), "--budget"},
        {replayArgs({"--budget", "0.1", "--cost", "6*N*"}), "--cost"},
        {replayArgs({"--budget", "0.1", "--strategy", "best"}), "--strategy"},
        {replayArgs({"--budget", "0.1", "--target", "colour=red"}), "colour"},
        {replayArgs({}), "--budget"},
    };
    for (const auto& [args, needle] : cases) {
        const auto r = runScalex(args);
        EXPECT_EQ(r.exitCode, 2) << args.join(' ').toStdString() << "\n" << r.out.toStdString();
        EXPECT_TRUE(r.err.contains(needle)) << needle.toStdString() << " not in: " << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
}

namespace {

QStringList pickArgs(const QStringList& extra) {
    return QStringList{"plan", "--data", tokenParam(), "--formula", "L = E + A/N^alpha + B/D^beta", "--param", "E=0:10", "--param", "A=0:1e6",
                       "--param", "B=0:1e7", "--param", "alpha=0:2", "--param", "beta=0:2", "--group", "model_type", "--starts", "8",
                       "--target", "N=7e9,D=2e12"} +
           extra;
}

}  // namespace

// The non-replay mode: per group, the target's prediction with its interval before and after, and
// the picks with N, D, cost, score and why, within the budget.
TEST(PlanCli, PickJsonContract) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex(pickArgs({"--grid-n", "1e8:8e9:5", "--grid-d", "2e9:2e11:5", "--budget", "1e21", "--pick", "3", "--json"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject o = r.json();
    EXPECT_EQ(o.value("cost").toString(), "6*N*D");
    const QJsonArray groups = o.value("groups").toArray();
    ASSERT_EQ(groups.size(), 2);
    for (const auto& g : groups) {
        const QJsonObject j = g.toObject();
        const QJsonObject target = j.value("targets").toArray().first().toObject();
        EXPECT_TRUE(target.value("predicted").isDouble());
        EXPECT_LE(target.value("halfwidth_after").toDouble(), target.value("halfwidth_before").toDouble());
        const QJsonArray picks = j.value("picks").toArray();
        ASSERT_GE(picks.size(), 1);
        EXPECT_LE(picks.size(), 3);
        double spent = 0;
        for (const auto& p : picks) {
            const QJsonObject pick = p.toObject();
            EXPECT_TRUE(pick.value("N").isDouble());
            EXPECT_TRUE(pick.value("D").isDouble());
            EXPECT_GT(pick.value("score").toDouble(), 0);
            EXPECT_FALSE(pick.value("why").toString().isEmpty());
            spent += pick.value("cost").toDouble();
        }
        EXPECT_LE(spent, 1e21 * (1 + 1e-12));
    }
}

// --simulate R: per group, the planner's batch and random and cheapest-first batches of no more
// cost, simulated over R seeds, with the interval and the target's error each leaves; in the text,
// one line per strategy.
// --show OUT.svg: the picks drawn in the N-D plane with the study's runs and the target, each pick
// in the legend with its cost and the target's half-width after it.
TEST(PlanCli, ShowDrawsThePicks) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString svg = dir.filePath("plan.svg");
    const auto r = runScalex({"plan", "--data", tokenParam(), "--formula", "L = E + A/N^alpha + B/D^beta", "--param", "E=0:10", "--param",
                              "A=0:1e6", "--param", "B=0:1e7", "--param", "alpha=0:2", "--param", "beta=0:2", "--target", "N=7e9,D=2e12",
                              "--grid-n", "1e8:8e9:4", "--grid-d", "2e9:2e11:3", "--pick", "2", "--show", svg, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile f(svg);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    for (const char* label : {"study's runs", "target", "6ND = const", "Parameters N", "Training tokens D"})
        EXPECT_TRUE(text.contains(QString::fromUtf8(label))) << label;
    // Every pick of the JSON is in the legend, numbered, with its cost.
    for (const auto& g : r.json().value("groups").toArray()) {
        int k = 0;
        for (const auto& pick : g.toObject().value("picks").toArray()) {
            const QString cost = QString::number(pick.toObject().value("cost").toDouble(), 'g', 3);
            EXPECT_TRUE(text.contains(QStringLiteral("%1. N").arg(++k))) << k;
            EXPECT_TRUE(text.contains("cost " + cost)) << cost.toStdString();
        }
        EXPECT_GE(k, 1);
    }
}

TEST(PlanCli, SimulateReportsThreeStrategiesOfTheSameCost) {
    SCALEX_REQUIRE_SHARED();
    const QStringList args{"--grid-n", "1e8:8e9:5", "--grid-d", "2e9:2e11:5", "--budget", "1e20", "--simulate", "10", "--seed", "2"};
    const auto r = runScalex(pickArgs(args + QStringList{"--json"}));
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_EQ(r.json().value("simulate").toInt(), 10);
    for (const auto& g : r.json().value("groups").toArray()) {
        const QJsonArray simulated = g.toObject().value("simulated").toArray();
        ASSERT_EQ(simulated.size(), 3);
        const double spent = g.toObject().value("spent").toDouble();
        QStringList strategies;
        for (const auto& s : simulated) {
            const QJsonObject b = s.toObject();
            strategies << b.value("strategy").toString();
            EXPECT_LE(b.value("spent").toDouble(), spent * (1 + 1e-12));
            EXPECT_GT(b.value("halfwidth").toArray().first().toDouble(), 0);
            EXPECT_TRUE(b.value("error").toArray().first().isDouble());
        }
        EXPECT_EQ(strategies, (QStringList{"planner", "random", "cheapest"}));
    }
    const auto text = runScalex(pickArgs(args));
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_EQ(text.out.count("simulated over 10 seeds"), 2) << text.out.toStdString();
    EXPECT_EQ(text.out.count(QRegularExpression("\\n    cheapest +\\d+ runs for ")), 2) << text.out.toStdString();
}

TEST(PlanCli, PickErrorsAreOneLineWithExitTwo) {
    SCALEX_REQUIRE_SHARED();
    const QStringList grid{"--grid-n", "1e8:8e9:5", "--grid-d", "2e9:2e11:5"};
    for (const QStringList& extra : {QStringList{"--grid-n", "1e8:8e9", "--grid-d", "2e9:2e11:5"}, grid + QStringList{"--budget", "1e10"},
                                     grid + QStringList{"--target", "N=7e9,D=2e12,T=8192"}, QStringList{}}) {
        const auto r = runScalex(pickArgs(extra));
        EXPECT_EQ(r.exitCode, 2) << extra.join(' ').toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
}

// --design: the planned runs as a CSV, the losses filled in from the prior the design reports
// (its law's values, no noise), loaded back as a study by `check` and `fit isoflop`: the IsoFLOP
// exponents come back as the prior's, which the design's JSON states.
TEST(PlanCli, DesignRoundTripsThroughAStudy) {
    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString planned = dir.filePath("planned.csv");
    const auto r = runScalex({"plan", "--design", "--study-budget", "3e20", "--target-budget", "1e23", "--budgets", "4", "--sizes-per-budget", "6",
                              "--seeds", "50", "--out", planned, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_LE(j["cost"].toDouble(), 3e20);
    EXPECT_EQ(j["runs"].toArray().size(), 24);
    const QJsonObject v = j["prior"].toObject()["values"].toObject();
    ASSERT_EQ(j["prior"].toObject()["law"].toObject()["name"].toString(), "xlstm");
    const double a = j["exponent_n"].toObject()["prior"].toDouble();
    EXPECT_NEAR(a, v["beta"].toDouble() / (v["alpha"].toDouble() + v["beta"].toDouble()), 1e-6);
    EXPECT_LT(j["exponent_n"].toObject()["lower"].toDouble(), a);
    EXPECT_GT(j["exponent_n"].toObject()["upper"].toDouble(), a);

    QFile in(planned);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    QStringList lines = QString::fromUtf8(in.readAll()).split('\n', Qt::SkipEmptyParts);
    in.close();
    ASSERT_EQ(lines.size(), 25);
    EXPECT_EQ(lines[0], "name,params,tokens,flops,budget,loss");
    for (int i = 1; i < lines.size(); ++i) {
        const QStringList f = lines[i].split(',');
        ASSERT_EQ(f.size(), 6);
        EXPECT_TRUE(f[5].isEmpty());
        const double n = f[1].toDouble(), d = f[2].toDouble();
        // Eq. l_nd: exp(e) + (exp(a - alpha ln N) + exp(b - beta ln D))^gamma.
        const double loss = std::exp(v["e"].toDouble()) + std::pow(std::exp(v["a"].toDouble() - v["alpha"].toDouble() * std::log(n)) +
                                                                        std::exp(v["b"].toDouble() - v["beta"].toDouble() * std::log(d)),
                                                                    v["gamma"].toDouble());
        lines[i] = f.mid(0, 5).join(',') + "," + QString::number(loss, 'g', 15);
    }
    const QString filled = dir.filePath("filled.csv");
    QFile out(filled);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write((lines.join('\n') + '\n').toUtf8());
    out.close();

    const auto check = runScalex({"check", filled});
    EXPECT_EQ(check.exitCode, 0) << check.out.toStdString() << check.err.toStdString();
    EXPECT_TRUE(check.out.contains("24 rows, 24 usable, 0 with problems, 24 in the analyses")) << check.out.toStdString();
    const auto fit = runScalex({"fit", "isoflop", "--data", filled, "--json"});
    ASSERT_EQ(fit.exitCode, 0) << fit.err.toStdString();
    EXPECT_NEAR(fit.json()["a"].toDouble(), a, 1e-4);
    EXPECT_NEAR(fit.json()["b"].toDouble(), 1 - a, 1e-4);

    // Before the losses are in, the planned runs load with every row flagged, none dropped.
    const auto empty = runScalex({"check", planned});
    EXPECT_TRUE(empty.out.contains("24 rows, 0 usable, 24 with problems")) << empty.out.toStdString();
}

TEST(PlanCli, DesignErrorsAreOneLineWithExitTwo) {
    const std::vector<std::pair<QStringList, QString>> cases = {
        {{"--target-budget", "1e23"}, "--design needs --study-budget FLOPS"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--law", "nope"}, "--law: no shipped law 'nope'"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--law", "chinchilla", "--param", "alpha=0:2"}, "--param 'alpha=0:2': with --design, NAME=VALUE"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--law", "compute"}, "the prior law cannot place N*(C)"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--ladder", "1e8,x"}, "--ladder: 'x' is not a positive number"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--ladder", "1e7,1e10"}, "the ladder has fewer than 3 distinct sizes near N*"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--param", "a=5"}, "--param with --design sets the values of a --law"},
        {{"--study-budget", "1e20", "--target-budget", "1e23", "--formula", "L = E + A/N^a"}, "--design takes a shipped --law"},
    };
    for (const auto& [extra, needle] : cases) {
        const auto r = runScalex(QStringList{"plan", "--design"} + extra);
        EXPECT_EQ(r.exitCode, 2) << extra.join(' ').toStdString() << "\n" << r.out.toStdString();
        EXPECT_TRUE(r.err.contains(needle)) << needle.toStdString() << " not in: " << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
}

// Planned runs (no loss yet) beside an IsoFLOP study: the IsoFLOP view draws them, on the profile
// at their budget and at their budget on the N*(H) panel, marked as planned in the legend.
TEST(PlanCli, IsoFlopViewDrawsPlannedRuns) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString planned = dir.filePath("planned.csv");
    QFile f(planned);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("name,model_family,params,tokens,cost,halfwidth_after,loss\n"
            "planned llama 1,llama,3e9,5.5e10,9.9e20,0.0123,\n");
    f.close();
    const QString project = dir.filePath("study.scalex");
    const auto convert = runScalex({"convert", sharedPath("data/xlstm/runs_isoflop_llama_ctx8192.csv"), planned, project});
    ASSERT_EQ(convert.exitCode, 0) << convert.err.toStdString();
    auto legendOf = [&](const QString& svg) {
        const auto r = runScalex({"render", "--data", project, "--view", "isoflop", "--out", svg});
        EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
        QFile in(svg);
        return in.open(QIODevice::ReadOnly) ? QString::fromUtf8(in.readAll()) : QString();
    };
    EXPECT_TRUE(legendOf(dir.filePath("with.svg")).contains("planned runs (no loss yet)"));
    // Without the planned table the legend has no such entry.
    const auto r = runScalex({"render", "--data", sharedPath("data/xlstm/runs_isoflop_llama_ctx8192.csv"), "--view", "isoflop", "--out",
                              dir.filePath("without.svg")});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    QFile without(dir.filePath("without.svg"));
    ASSERT_TRUE(without.open(QIODevice::ReadOnly));
    EXPECT_FALSE(QString::fromUtf8(without.readAll()).contains("planned runs"));
}
