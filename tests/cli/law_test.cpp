// `scalex fit law`: the JSON contract scripts rely on, the shipped library, held-out scoring on
// a study generated from one law (that law must predict the largest models best), and one clear
// error with a non-zero exit for each kind of bad formula or bound.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>
#include <map>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString epoch() { return sharedPath("data/public/epoch-chinchilla/svg_extracted_data.csv"); }

const QStringList kChinchillaParams = {"--param", "E=0:10", "--param", "A=0:1e6", "--param", "B=0:1e7",
                                       "--param", "alpha=0:2@0.3", "--param", "beta=0:2"};

// A study generated from the data-constrained law of Muennighoff et al. 2023 (Eqs. 4-5):
// L = E + A/N^α + B/D'^β, D' = U + U R*(1 − e^(−(D/U − 1)/R*)), with E = 1.82, A = 478, B = 2144,
// α = 0.347, β = 0.367, R* = 15; 8 model sizes × 6 tokens/param ratios × 4 repetition counts,
// loss times (1 + 0.003 z). Columns as a user's file names them: params, tokens, U, loss, lab.
QString writeRepeatedDataStudy(const QTemporaryDir& dir) {
    const QString path = dir.filePath("repeated.csv");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("run_id,lab,params,tokens,U,loss\n");
    std::uint64_t state = 12345;
    auto uniform = [&state] {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
    };
    int id = 0;
    for (double n : {1e7, 2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 3e9})
        for (double ratio : {5, 10, 20, 40, 80, 160})
            for (double epochs : {1, 3, 10, 30}) {
                const double d = ratio * n, u = d / epochs, rstar = 15;
                const double dEff = u + u * rstar * (1 - std::exp(-(d / u - 1) / rstar));
                double z = -6;
                for (int k = 0; k < 12; ++k) z += uniform();
                const double loss = (1.82 + 478 / std::pow(n, 0.347) + 2144 / std::pow(dEff, 0.367)) * (1 + 0.003 * z);
                const char* lab = id % 2 ? "b" : "a";  // alternating, "a" first
                f.write(QStringLiteral("r%1,%2,%3,%4,%5,%6\n")
                            .arg(id++)
                            .arg(lab)
                            .arg(n, 0, 'g', 12)
                            .arg(d, 0, 'g', 12)
                            .arg(u, 0, 'g', 12)
                            .arg(loss, 0, 'g', 12)
                            .toUtf8());
            }
    return path;
}

}  // namespace

TEST(FitLaw, TheJsonContractOnEpochsPoints) {
    SCALEX_REQUIRE_SHARED();
    // Columns as spelled in the file (backticks for names with spaces), the target a column too.
    QStringList args = {"fit", "law", "--data", epoch(), "--where", "loss<3.43", "--formula",
                        "loss = E + A/`Model Size`^alpha + B/(`Training FLOP`/(6*`Model Size`))^beta", "--json"};
    args << kChinchillaParams;
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    const QJsonArray groups = j["groups"].toArray();
    ASSERT_EQ(groups.size(), 1);
    const QJsonObject g = groups[0].toObject();
    EXPECT_EQ(g["name"].toString(), "svg_extracted_data");  // the file's one series
    EXPECT_EQ(g["n_train"].toInt(), 240);
    EXPECT_TRUE(g["projected"].toBool());  // squared loss in linear space: E, A, B by NNLS
    const QJsonObject params = g["params"].toObject();
    EXPECT_EQ(params.keys(), (QStringList{"A", "B", "E", "alpha", "beta"}));
    EXPECT_NEAR(params["E"].toDouble(), 1.88, 0.05);
    EXPECT_NEAR(params["alpha"].toDouble(), 0.358, 0.01);
    EXPECT_GT(g["objective"].toDouble(), 0);
    EXPECT_FALSE(j.contains("test"));  // no split, no held-out score
    // The same law through the derived names N and D and the study's loss gives the same fit.
    QStringList derived = {"fit", "law", "--data", epoch(), "--where", "loss<3.43", "--formula", "E + A/N^alpha + B/D^beta", "--json"};
    derived << kChinchillaParams;
    const auto d = runScalex(derived);
    ASSERT_EQ(d.exitCode, 0) << d.err.toStdString();
    EXPECT_NEAR(d.json()["groups"].toArray()[0].toObject()["objective"].toDouble(), g["objective"].toDouble(), 1e-9);
}

TEST(FitLaw, HeldOutRunsAreScoredPooledOverGroups) {
    SCALEX_REQUIRE_SHARED();
    // Fitted on the models below 2e9 parameters (the complement is held out), in two groups by a
    // column of the file (the point's colour in the source figure: several runs each).
    QStringList args = {"fit", "law", "--data", epoch(), "--where", "loss<3.43", "--formula", "L = E + A/N^alpha + B/D^beta",
                        "--train", "N<2e9", "--resamples", "20", "--json"};
    args << kChinchillaParams;
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    const QJsonObject test = j["test"].toObject();
    for (const char* key : {"r2", "mape", "max_rel_error"}) EXPECT_TRUE(test[key].isDouble()) << key;
    EXPECT_GT(test["n"].toInt(), 10);
    EXPECT_LT(test["mape"].toDouble(), 0.05);
    EXPECT_GE(test["max_rel_error"].toDouble(), test["mape"].toDouble());
    const QJsonObject g = j["groups"].toArray()[0].toObject();
    EXPECT_EQ(g["n_train"].toInt() + g["n_test"].toInt(), 240);
    const QJsonArray predictions = g["predictions"].toArray();
    ASSERT_EQ(predictions.size(), g["n_test"].toInt());
    for (const auto& p : predictions) {
        const QJsonObject o = p.toObject();
        EXPECT_LT(o["lower"].toDouble(), o["predicted"].toDouble());
        EXPECT_GT(o["upper"].toDouble(), o["predicted"].toDouble());
    }
    // --test alone: trained on the complement, the same split.
    QStringList complement = {"fit", "law", "--data", epoch(), "--where", "loss<3.43", "--formula", "L = E + A/N^alpha + B/D^beta",
                              "--test", "N>=2e9", "--resamples", "0", "--json"};
    complement << kChinchillaParams;
    const auto c = runScalex(complement);
    ASSERT_EQ(c.exitCode, 0) << c.err.toStdString();
    EXPECT_NEAR(c.json()["test"].toObject()["mape"].toDouble(), test["mape"].toDouble(), 1e-9);
}

TEST(FitLaw, GroupsGetOneParameterVectorEach) {
    QTemporaryDir dir;
    const QString path = writeRepeatedDataStudy(dir);
    const auto r = runScalex({"fit", "law", "--data", path, "--law", "data-constrained", "--group", "lab", "--test", "params>=3e9",
                              "--resamples", "0", "--starts", "16", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    const QJsonArray groups = j["groups"].toArray();
    ASSERT_EQ(groups.size(), 2);
    EXPECT_EQ(groups[0].toObject()["name"].toString(), "a");  // in order of first appearance
    EXPECT_EQ(groups[1].toObject()["name"].toString(), "b");
    int tested = 0;
    for (const auto& g : groups) {
        EXPECT_EQ(g.toObject()["params"].toObject().size(), 6);
        tested += g.toObject()["n_test"].toInt();
    }
    EXPECT_EQ(j["test"].toObject()["n"].toInt(), tested);
    EXPECT_EQ(tested, 24);
}

TEST(FitLaw, LeaveOneOutScoresEveryRunOnce) {
    QTemporaryDir dir;
    const QString path = writeRepeatedDataStudy(dir);
    const auto r = runScalex({"fit", "law", "--data", path, "--law", "chinchilla", "--leave-one-out", "params", "--resamples", "0",
                              "--starts", "16", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_EQ(j["test"].toObject()["n"].toInt(), 192);
    // `lab` separates the runs at every (N, D): two series, each fitted and scored on its own runs.
    QJsonArray predictions;
    for (const auto& g : j["groups"].toArray())
        for (const auto& p : g.toObject()["predictions"].toArray()) predictions.append(p);
    ASSERT_EQ(predictions.size(), 192);
    EXPECT_EQ(predictions[0].toObject()["held_out"].toString(), "10000000");
    EXPECT_EQ(predictions[191].toObject()["held_out"].toString(), "3000000000");
}

TEST(FitLaw, SharedParametersTakeOneValueForEveryGroup) {
    QTemporaryDir dir;
    const QString path = writeRepeatedDataStudy(dir);
    const auto r = runScalex({"fit", "law", "--data", path, "--law", "data-constrained", "--group", "lab", "--shared", "alpha,beta",
                              "--shared", "rstar", "--resamples", "0", "--starts", "16", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray groups = r.json()["groups"].toArray();
    ASSERT_EQ(groups.size(), 2);
    const QJsonObject a = groups[0].toObject(), b = groups[1].toObject();
    for (const char* name : {"alpha", "beta", "rstar"}) EXPECT_EQ(a["params"].toObject()[name], b["params"].toObject()[name]) << name;
    EXPECT_NEAR(a["params"].toObject()["rstar"].toDouble(), 15, 1.5);
    EXPECT_EQ(a["shared"].toArray().size(), 3);
    EXPECT_NEAR(a["objective"].toDouble() + b["objective"].toDouble(), a["joint_objective"].toDouble(), 1e-12);
    const auto bad = runScalex({"fit", "law", "--data", path, "--law", "data-constrained", "--shared", "zeta"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.err.contains("shared parameter 'zeta' is not a parameter of the law")) << bad.err.toStdString();
}

TEST(FitLaw, TheLawThatGeneratedTheDataPredictsTheLargestModelsBest) {
    QTemporaryDir dir;
    const QString path = writeRepeatedDataStudy(dir);
    std::map<QString, double> mape;
    for (const QString law : {"chinchilla", "xlstm", "kaplan", "data-constrained"}) {
        const auto r = runScalex({"fit", "law", "--data", path, "--law", law, "--test", "params>=3e9", "--resamples", "0", "--json"});
        ASSERT_EQ(r.exitCode, 0) << law.toStdString() << ": " << r.err.toStdString();
        mape[law] = r.json()["test"].toObject()["mape"].toDouble();
    }
    for (const auto& [law, error] : mape)
        if (law != "data-constrained") EXPECT_LT(mape["data-constrained"], error) << law.toStdString();
    EXPECT_LT(mape["data-constrained"], 0.01);  // about the noise
}

TEST(FitLaw, ListsTheShippedLaws) {
    const auto text = runScalex({"fit", "law", "--list"});
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    for (const char* name : {"xlstm:", "chinchilla:", "kaplan:", "data-constrained:", "moe:", "vocab:", "farseer:", "compute:"})
        EXPECT_TRUE(text.out.contains(name)) << name;
    EXPECT_TRUE(text.out.contains("Hoffmann et al. 2022"));
    const auto json = runScalex({"fit", "law", "--list", "--json"});
    ASSERT_EQ(json.exitCode, 0);
    const QJsonArray laws = json.json()["laws"].toArray();
    EXPECT_GE(laws.size(), 8);
    for (const auto& l : laws) {
        EXPECT_FALSE(l.toObject()["citation"].toString().isEmpty());
        EXPECT_FALSE(l.toObject()["parameters"].toArray().isEmpty());
    }
}

TEST(FitLaw, BadFormulasAndBoundsGiveOneClearErrorEach) {
    QTemporaryDir dir;
    const QString path = writeRepeatedDataStudy(dir);
    struct Case {
        QStringList args;
        QString expected;
    };
    const QStringList ab = {"--param", "E=0:5", "--param", "A=0:1e4", "--param", "alpha=0:1"};
    const std::vector<Case> cases = {
        {QStringList{"--formula", "L = E + A/X^alpha"} + ab, "unknown name 'X'"},
        {QStringList{"--formula", "L = E + (A/N^alpha"} + ab, "unbalanced parenthesis"},
        {QStringList{"--formula", "L = E + A/N^alpha)"} + ab, "unbalanced parenthesis"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--param", "E", "--param", "A=0:1e4", "--param", "alpha=0:1"}, "parameter 'E' has no bounds"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--param", "E=5:0", "--param", "A=0:1e4", "--param", "alpha=0:1"}, "lower bound above upper"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--param", "E=0:5@9", "--param", "A=0:1e4", "--param", "alpha=0:1"}, "outside its bounds"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--param", "E=0:x", "--param", "A=0:1e4", "--param", "alpha=0:1"}, "is not a number"},
        {QStringList{"--formula", "L = E + A/N^alpha + zeta"} + ab, "unknown name 'zeta'"},
        {QStringList{"--formula", "nosuch = E + A/N^alpha"} + ab, "target 'nosuch' is not a column"},
        {QStringList{"--formula", "L = E + foo(N)"} + ab, "unknown function 'foo'"},
        {QStringList{"--law", "nosuch"}, "unknown law 'nosuch'"},
        {QStringList{"--law", "chinchilla", "--param", "zeta=0:1"}, "has no parameter 'zeta'"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--loss", "cubic"} + ab, "expected squared or huber"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--space", "sqrt"} + ab, "expected linear or log"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--train", "nosuch<3"} + ab, "nosuch"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--group", "nosuch"} + ab, "no column 'nosuch'"},
        {QStringList{"--param", "E=0:5"}, "missing --formula"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--starts", "1000000000"} + ab, "starts must lie in 1 ... 1000000"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--resamples", "100000000"} + ab, "resamples must lie in 0 ... 100000"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--leave-one-out", "lab", "--test", "params>1e9"} + ab, "not both"},
        {QStringList{"--formula", "L = E + A/N^alpha", "--leave-one-out", "nosuch"} + ab, "no column 'nosuch'"},
    };
    for (const auto& c : cases) {
        const auto r = runScalex(QStringList{"fit", "law", "--data", path} + c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args.join(' ').toStdString();
        EXPECT_TRUE(r.err.contains(c.expected)) << c.args.join(' ').toStdString() << "\n" << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();  // one line
        EXPECT_TRUE(r.out.isEmpty());
    }
}
