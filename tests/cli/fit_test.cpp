// `scalex fit ...` run as a user would, on the study's own run files.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString tokenParam() { return sharedPath("data/xlstm/tokenparam_runs_ctx8192.csv"); }
QString isoflop(const QString& set) { return sharedPath("data/xlstm/runs_isoflop_" + set + ".csv"); }

// 96 starts of the paper's grid, including the authors' winning starts (as in the unit tests).
QString writeSubsetGrid(const QTemporaryDir& dir) {
    const QString path = dir.filePath("subset.grid");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("# subset of the paper's grid\nlogA: 0 5 20\nlogB: 5 20\nlogE: 0 0.5\nalpha: 0 1\nbeta: 0.2 0.5\ngamma: 0 1.5\n");
    return path;
}

double relativeError(double got, double want) { return std::abs(got / want - 1); }

}  // namespace

TEST(FitVerb, LndReproducesThePapersXlstmSurface) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const auto r = runScalex({"fit", "lnd", "--data", tokenParam(), "--family", "mlstm", "--grid", writeSubsetGrid(dir),
                              "--threads", "2", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_LE(j["objective"].toDouble(), 8.5572e-05);
    EXPECT_EQ(j["n_points"].toInt(), 35);
    EXPECT_EQ(j["n_starts"].toInt(), 96);
    EXPECT_GT(j["n_converged"].toInt(), 48);
    EXPECT_NEAR(j["logA"].toDouble(), 16.22, 0.01);  // tab:lnd_fit_params, xLSTM, delta = 1e-3
    EXPECT_NEAR(j["logB"].toDouble(), 17.31, 0.01);
    EXPECT_NEAR(j["logE"].toDouble(), 0.11, 0.01);
    EXPECT_NEAR(j["alpha"].toDouble(), 0.73, 0.005);
    EXPECT_NEAR(j["beta"].toDouble(), 0.67, 0.005);
    EXPECT_NEAR(j["gamma"].toDouble(), 0.24, 0.005);
    EXPECT_GE(j["seconds"].toDouble(), 0);
    const QJsonArray best = j["best_starts"].toArray();
    ASSERT_FALSE(best.isEmpty());
    EXPECT_EQ(best[0].toObject()["objective"].toDouble(), j["objective"].toDouble());
    EXPECT_TRUE(j["warnings"].toArray().isEmpty());
}

TEST(FitVerb, LndWithGammaOneOnThePaperGrid) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex({"fit", "lnd", "--data", tokenParam(), "--family", "transformer", "--gamma", "1", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["n_starts"].toInt(), 2000);
    EXPECT_EQ(j["gamma"].toDouble(), 1.0);
    EXPECT_LT(relativeError(j["objective"].toDouble(), 1.3850562569340375e-04), 1e-5);  // lnd_fit_best.csv
    EXPECT_NEAR(j["alpha"].toDouble(), 0.12873, 1e-3);
}

TEST(FitVerb, IsoflopReproducesTheMainTextTransformerLaw) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex({"fit", "isoflop", "--data", isoflop("llama_ctx8192"), "--selected-only", "--budget-range", "5e18",
                              "2e20", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    // isoflop_powerlaw_fits.csv: a = 0.574909, A' = 0.00228069, b = 0.424271, B' = 58.4605.
    EXPECT_LT(relativeError(j["a"].toDouble(), 0.5749087), 5e-5);
    EXPECT_LT(relativeError(j["A"].toDouble(), 0.0022806907), 5e-5);
    EXPECT_LT(relativeError(j["b"].toDouble(), 0.4242713), 5e-5);
    EXPECT_LT(relativeError(j["B"].toDouble(), 58.460528), 5e-5);
    EXPECT_EQ(j["n_budgets"].toInt(), 4);
    const QJsonArray profiles = j["profiles"].toArray();
    ASSERT_EQ(profiles.size(), 4);
    const QJsonObject first = profiles[0].toObject();
    EXPECT_EQ(first["budget"].toDouble(), 6e18);
    EXPECT_EQ(first["n_runs"].toInt(), 18);
    EXPECT_LT(relativeError(first["n_opt"].toDouble(), 143839734.9034), 1e-6);
    EXPECT_LT(relativeError(first["loss_at_opt"].toDouble(), 3.2410), 1e-4);
    for (const char* key : {"flops_mean", "d_opt"}) EXPECT_GT(first[key].toDouble(), 0) << key;
    EXPECT_EQ(j["leave_one_budget_out"].toArray().size(), 4);
}

TEST(FitVerb, IsoflopAcrossContextLengths) {
    SCALEX_REQUIRE_SHARED();
    const auto r = runScalex({"fit", "isoflop", "--data", isoflop("llama_ctx2048"), "--data", isoflop("llama_ctx8192"), "--data",
                              isoflop("llama_ctx16384"), "--selected-only", "--budget-range", "5e18", "5e19", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    const QJsonArray contexts = j["contexts"].toArray();
    ASSERT_EQ(contexts.size(), 3);
    // The per-context table: ctx 16384 a = 0.569337, A' = 0.00250007.
    EXPECT_EQ(contexts[2].toObject()["context"].toDouble(), 16384);
    EXPECT_LT(relativeError(contexts[2].toObject()["a"].toDouble(), 0.569337), 5e-5);
    const QJsonArray optima = j["context_trend"].toObject()["optima"].toArray();
    ASSERT_EQ(optima.size(), 3);
    EXPECT_GT(optima[0].toObject()["n_opt"].toDouble(), optima[2].toObject()["n_opt"].toDouble());
}

TEST(FitVerb, SlopesAndParetoOnTheTokenParamRuns) {
    SCALEX_REQUIRE_SHARED();
    const auto s = runScalex({"fit", "slopes", "--data", tokenParam(), "--json"});
    ASSERT_EQ(s.exitCode, 0) << s.err.toStdString();
    // One result per series: the file's families.
    const QJsonArray series = s.json()["series"].toArray();
    ASSERT_EQ(series.size(), 2);
    QJsonObject xlstm;
    for (const auto& e : series)
        if (e.toObject()["name"].toString() == "xlstm") xlstm = e.toObject();
    EXPECT_EQ(xlstm["label"].toString(), "xLSTM, T = 8192");
    const QJsonArray groups = xlstm["groups"].toArray();
    ASSERT_FALSE(groups.isEmpty());
    EXPECT_EQ(groups[0].toObject()["ratio"].toDouble(), 22);
    EXPECT_NEAR(groups[0].toObject()["eta"].toDouble(), 0.047, 0.003);  // tab:tokenparam_slopes
    const auto p = runScalex({"fit", "pareto", "--data", tokenParam(), "--json"});
    ASSERT_EQ(p.exitCode, 0) << p.err.toStdString();
    const QJsonObject cmp = p.json()["comparison"].toObject();
    EXPECT_TRUE(cmp["a_dominates"].toBool());
    EXPECT_EQ(cmp["a"].toString(), "xlstm");
    EXPECT_EQ(cmp["b"].toString(), "transformer");
    EXPECT_GT(cmp["min_compute_ratio"].toDouble(), 1.0);
    // The comparison's 95 % bootstrap interval holds the estimate and stays above 1.
    const QJsonObject geomean = cmp["intervals"].toObject()["geomean_compute_ratio"].toObject();
    EXPECT_GT(geomean["n_valid"].toInt(), 900);
    EXPECT_GT(geomean["lower"].toDouble(), 1.0);
    EXPECT_LT(geomean["lower"].toDouble(), cmp["geomean_compute_ratio"].toDouble());
    EXPECT_GT(geomean["upper"].toDouble(), cmp["geomean_compute_ratio"].toDouble());
    for (const auto& e : p.json()["series"].toArray()) EXPECT_FALSE(e.toObject()["frontier"].toArray().isEmpty());
}

TEST(FitVerb, BootstrapDependsOnTheSeedNotTheThreads) {
    SCALEX_REQUIRE_SHARED();
    const QStringList args{"fit", "bootstrap", "--of", "isoflop", "--data", isoflop("llama_ctx8192"), "--selected-only",
                           "--budget-range", "5e18", "2e20", "--resamples", "60", "--seed", "11", "--at-budget", "1e21", "--json"};
    const auto one = runScalex(args + QStringList{"--threads", "1"});
    const auto two = runScalex(args + QStringList{"--threads", "2"});
    ASSERT_EQ(one.exitCode, 0) << one.err.toStdString();
    ASSERT_EQ(two.exitCode, 0) << two.err.toStdString();
    EXPECT_EQ(one.json()["intervals"], two.json()["intervals"]);
    const QJsonArray intervals = one.json()["intervals"].toArray();
    ASSERT_EQ(intervals.size(), 6);
    const QJsonObject a = intervals[0].toObject();
    EXPECT_EQ(a["name"].toString(), "a");
    EXPECT_LT(a["lower"].toDouble(), 0.5749);
    EXPECT_GT(a["upper"].toDouble(), 0.5749);
    EXPECT_EQ(one.json()["n_resamples"].toInt(), 60);
}

TEST(FitVerb, BadInputIsOneLineAndExitTwo) {
    QTemporaryDir dir;
    const QString badGrid = dir.filePath("bad.grid");
    {
        QFile f(badGrid);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("logA 0 5\nlogB x\n");
    }
    const QString missing = dir.filePath("missing.csv");
    struct Case {
        QStringList args;
        QString message;
    };
    const std::vector<Case> cases{
        // (the list of fits ends with `runtime` where the runtime-model verbs are built in)
        {{"fit"}, "scalex fit: expected `scalex fit lnd|isoflop|slopes|pareto|context|bootstrap"},
        {{"fit", "chinchilla"}, "scalex fit: unknown fit 'chinchilla' (expected `scalex fit lnd|isoflop|slopes|pareto|context|bootstrap"},
        {{"fit", "lnd", "--json"}, "scalex fit: missing required option --data (the run table), or --example"},
        {{"fit", "lnd", "--data", tokenParam(), "--gamma", "2"}, "scalex fit: --gamma expects free or fixed_1 (or fixed, 1), got '2'"},
        {{"fit", "lnd", "--data", tokenParam(), "--family", "mamba"}, "scalex fit: --family expects transformer or xlstm (or an alias), got 'mamba'"},
        {{"fit", "lnd", "--data", tokenParam(), "--grid", badGrid}, "scalex fit: " + badGrid + ", line 2: expected a number for logB, got 'x'"},
        {{"fit", "isoflop", "--data", tokenParam(), "--budget-range", "5e19"}, "scalex fit: --budget-range expects two numbers: LO HI"},
        {{"fit", "isoflop", "--data", tokenParam(), "--budget-range", "5e19", "1e19"}, "scalex fit: --budget-range expects two numbers LO < HI, got '5e19 1e19'"},
        {{"fit", "bootstrap", "--data", tokenParam()}, "scalex fit: missing required option --of (lnd, isoflop or slopes)"},
        {{"fit", "context", "--data", tokenParam(), "--budget", "0"}, "scalex fit: --budget must be a positive number of FLOPs, got 0"},
        {{"fit", "lnd", "--data", tokenParam(), "--ctx", "4096"}, "scalex fit: no usable runs in " + tokenParam() + " match the filters"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.args.join(' ').toStdString());
        if (c.args.contains(tokenParam()) && scalex::test::sharedDir().isEmpty()) continue;
        const auto r = runScalex(c.args);
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_TRUE(r.out.isEmpty()) << r.out.toStdString();
        if (c.args.size() <= 2)
            EXPECT_TRUE(r.err.startsWith(c.message)) << r.err.toStdString();
        else
            EXPECT_EQ(r.err.trimmed(), c.message);
        EXPECT_EQ(r.err.trimmed().count('\n'), 0);
    }
    const auto r = runScalex({"fit", "lnd", "--data", missing});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.startsWith("scalex fit: " + missing)) << r.err.toStdString();
    EXPECT_EQ(r.err.trimmed().count('\n'), 0);
}

// A run naming a spec the project does not have and no file is: one error naming file, line and field.
TEST(FitVerb, AnUnknownSpecOfARunNamesFileLineAndField) {
    QTemporaryDir dir;
    const QString path = dir.filePath("runs.csv");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("run,spec,context_length,num_tokens_training,val_loss\na,gqa.json,2048,1e9,3.5\n");
    f.close();
    const auto r = runScalex({"fit", "context", "--data", path});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex fit: " + path + ", line 2, column 'spec': unknown spec 'gqa.json': no spec of the project has "
                               "this name (it has none) and no model file is at " + dir.filePath("gqa.json"));
}

// A series whose runs name their specs (four sizes of one GQA architecture, files beside the table):
// `fit context` fits its own surface and moves N* with T through the specs' FLOPs per token.
TEST(FitVerb, ContextOfASeriesWhoseRunsNameTheirSpecs) {
    QTemporaryDir dir;
    QString runs = "run,spec,context_length,num_tokens_training,val_loss\n";
    for (int d : {384, 768, 1536, 2048}) {
        const int heads = d / 64, kv = heads / 4, layers = d / 64, ff = 64 * static_cast<int>(std::lround(8.0 * d / 3 / 64));
        QFile spec(dir.filePath(QStringLiteral("gqa-%1.json").arg(d)));
        ASSERT_TRUE(spec.open(QIODevice::WriteOnly));
        spec.write(QStringLiteral(R"({"format": "scalex-model-spec", "format_version": 1, "name": "gqa-%1", "d_model": %1,
            "vocab": 50304, "attention": {"n_heads": %2, "n_kv_heads": %3, "d_qk": 64, "d_v": 64},
            "feed_forward": {"width": %4, "gated": true}, "layers": [{"mixer": "attention", "repeat": %5}]})")
                       .arg(d).arg(heads).arg(kv).arg(ff).arg(layers).toUtf8());
        // Losses on Chinchilla's surface (Hoffmann et al. 2022, Eq. 10) at the hand-counted N.
        const double n = 2.0 * 50304 * d + layers * (2.0 * d * d + 2.0 * d * kv * 64 + 3.0 * d * ff + 2.0 * d) + d;
        for (int ratio : {5, 20, 80, 160}) {
            const double tokens = ratio * n;
            const double loss = 1.69 + 406.4 / std::pow(n, 0.34) + 410.7 / std::pow(tokens, 0.28);
            runs += QStringLiteral("d%1-r%2,gqa-%1.json,8192,%3,%4\n").arg(d).arg(ratio).arg(tokens, 0, 'g', 9).arg(loss, 0, 'f', 6);
        }
    }
    const QString path = dir.filePath("gqa.csv");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(runs.toUtf8());
    f.close();
    const auto r = runScalex({"fit", "context", "--data", path, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    const QJsonArray series = j["series"].toArray();
    ASSERT_EQ(series.size(), 1);
    const QJsonObject s = series[0].toObject();
    EXPECT_EQ(s["name"].toString(), "gqa");
    EXPECT_EQ(s["compute_per_token"].toString(), "the runs' specs");
    EXPECT_EQ(s["fitted_to"].toString(), "gqa");
    EXPECT_GT(s["n_opt"].toDouble(), 0);
    // Attention's FLOPs grow with T: at one budget the optimum shrinks from 512 to 131072 tokens.
    const QJsonArray optima = j["optima"].toArray();
    ASSERT_GE(optima.size(), 2);
    EXPECT_LT(optima.last().toObject()["gqa_n_opt"].toDouble(), 0.8 * optima.first().toObject()["gqa_n_opt"].toDouble());
}
