// `scalex fit law --at / --optimal-at / --budget-for-loss`: the queries' JSON (kind, given, value
// or values, the interval and its method), on a study generated from a known Chinchilla law, and
// one clear error line with exit 2 for each query the law cannot answer.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

#include "tests/cli/ScalexProcess.h"

using scalex::test::runScalex;

namespace {

constexpr double kE = 1.69, kA = 406.4, kB = 410.7, kAlpha = 0.34, kBeta = 0.28;

double trueLoss(double n, double d) { return kE + kA / std::pow(n, kAlpha) + kB / std::pow(d, kBeta); }

// 7 sizes × 6 tokens/param ratios, loss times (1 + 0.005 z) with z in ±1 by a fixed pattern.
QString writeStudy(const QTemporaryDir& dir) {
    const QString path = dir.filePath("chinchilla.csv");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("run_id,params,tokens,loss\n");
    int id = 0;
    for (double n : {2e7, 5e7, 1e8, 2e8, 5e8, 1e9, 2e9})
        for (double ratio : {5.0, 10.0, 20.0, 40.0, 80.0, 160.0}) {
            const double d = ratio * n, z = std::sin(12.9898 * ++id) ;
            f.write(QStringLiteral("r%1,%2,%3,%4\n").arg(id).arg(n, 0, 'g', 12).arg(d, 0, 'g', 12).arg(trueLoss(n, d) * (1 + 0.005 * z), 0, 'g', 12).toUtf8());
        }
    return path;
}

const QStringList kLaw = {"--formula", "L = E + A/N^alpha + B/D^beta", "--param", "E=0:10", "--param", "A=0:1e5",
                          "--param", "B=0:1e5", "--param", "alpha=0.05:1@0.3", "--param", "beta=0.05:1@0.3"};

}  // namespace

TEST(FitLawQueries, TheJsonOfEachQueryWithBothIntervalMethods) {
    QTemporaryDir dir;
    const QString path = writeStudy(dir);
    for (const QString method : {"bootstrap", "curvature"}) {
        SCOPED_TRACE(method.toStdString());
        QStringList args = {"fit", "law", "--data", path, "--at", "N=7e10,D=1.4e12", "--optimal-at", "1e24", "--budget-for-loss", "2.0",
                            "--interval", method, "--resamples", "100", "--json"};
        args << kLaw;
        const auto r = runScalex(args);
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        const QJsonArray queries = r.json()["groups"].toArray()[0].toObject()["queries"].toArray();
        ASSERT_EQ(queries.size(), 3);
        for (const auto& v : queries) {
            EXPECT_EQ(v.toObject()["interval"].toString(), method);
            EXPECT_EQ(v.toObject()["level"].toDouble(), 0.95);
            EXPECT_EQ(v.toObject().contains("resamples"), method == "bootstrap");
        }
        const QJsonObject at = queries[0].toObject();
        EXPECT_EQ(at["kind"].toString(), "loss_at");
        EXPECT_EQ(at["given"].toObject()["N"].toDouble(), 7e10);
        EXPECT_EQ(at["given"].toObject()["D"].toDouble(), 1.4e12);
        const double truth = trueLoss(7e10, 1.4e12);
        EXPECT_LT(at["lower"].toDouble(), truth);
        EXPECT_GT(at["upper"].toDouble(), truth);
        EXPECT_LT(at["lower"].toDouble(), at["value"].toDouble());
        EXPECT_GT(at["upper"].toDouble(), at["value"].toDouble());

        const QJsonObject opt = queries[1].toObject();
        EXPECT_EQ(opt["kind"].toString(), "optimal_at");
        EXPECT_EQ(opt["compute"].toString(), "6ND");
        EXPECT_EQ(opt["given"].toObject()["C"].toDouble(), 1e24);
        const QJsonObject n = opt["values"].toObject()["N"].toObject(), d = opt["values"].toObject()["D"].toObject();
        EXPECT_NEAR(6 * n["value"].toDouble() * d["value"].toDouble() / 1e24, 1, 1e-9);
        EXPECT_LT(n["lower"].toDouble(), n["value"].toDouble());
        EXPECT_GT(n["upper"].toDouble(), n["value"].toDouble());

        const QJsonObject budget = queries[2].toObject();
        EXPECT_EQ(budget["kind"].toString(), "budget_for_loss");
        EXPECT_EQ(budget["given"].toObject()["loss"].toDouble(), 2.0);
        const QJsonObject c = budget["values"].toObject()["C"].toObject();
        EXPECT_GT(c["value"].toDouble(), 1e18);
        EXPECT_LT(c["lower"].toDouble(), c["value"].toDouble());
        EXPECT_GT(c["upper"].toDouble(), c["value"].toDouble());
    }
}

TEST(FitLawQueries, HumanReadableLinesSayTheMethod) {
    QTemporaryDir dir;
    QStringList args = {"fit", "law", "--data", writeStudy(dir), "--optimal-at", "1e24", "--interval", "curvature"};
    args << kLaw;
    const auto r = runScalex(args);
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_TRUE(r.out.contains("optimum at C=1e+24")) << r.out.toStdString();
    EXPECT_TRUE(r.out.contains("by curvature")) << r.out.toStdString();
}

TEST(FitLawQueries, QueriesTheLawCannotAnswerGiveOneLineAndExit2) {
    QTemporaryDir dir;
    const QString path = writeStudy(dir);
    struct Case {
        QStringList args;
        const char* says;
    };
    const QStringList nOnly = {"--formula", "L = E + A/N^alpha", "--param", "E=0:10", "--param", "A=0:1e5", "--param", "alpha=0:1"};
    const std::vector<Case> cases = {
        {QStringList{"--at", "N=1e9,X=3"} + kLaw, "no variable 'X'"},
        {QStringList{"--at", "N=1e9"} + kLaw, "no value for the law's variable 'D'"},
        {QStringList{"--optimal-at", "1e24"} + nOnly, "N and D"},
        {QStringList{"--budget-for-loss", "1.0"} + kLaw, "floor"},
        {QStringList{"--interval", "laplace", "--optimal-at", "1e24"} + kLaw, "bootstrap or curvature"},
    };
    for (const auto& c : cases) {
        const auto r = runScalex(QStringList{"fit", "law", "--data", path} + c.args);
        EXPECT_EQ(r.exitCode, 2) << c.says << ": " << r.err.toStdString();
        EXPECT_TRUE(r.err.contains(c.says)) << r.err.toStdString();
        EXPECT_EQ(r.err.trimmed().count('\n'), 0) << r.err.toStdString();
    }
}
