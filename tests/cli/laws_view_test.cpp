// `scalex render --view laws --table ...` gives the numbers `scalex fit law --json` gives for the
// same law and split, to the last digit, on Epoch's Chinchilla points: a shipped law and a typed
// formula, the comparison table and the parameter table. A law that does not compile fails the
// render with its error rather than drawing an empty figure.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sharedPath;

namespace {

QString epoch() { return sharedPath("data/public/epoch-chinchilla/svg_extracted_data.csv"); }

QJsonArray readRecords(const QString& path) {
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path.toStdString();
    return QJsonDocument::fromJson(f.readAll()).array();
}

// The table `table` of the laws view for these controls, as JSON records.
QJsonArray renderTable(const QTemporaryDir& dir, const QString& table, const QStringList& sets) {
    const QString out = dir.filePath(table + ".json");
    QStringList args = {"render", "--view", "laws", "--data", epoch(), "--table", table, "--out", out};
    for (const QString& s : sets) args << "--set" << s;
    const auto r = runScalex(args);
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return readRecords(out);
}

const QStringList kSplit = {"--test", "N>=5e9"};

}  // namespace

TEST(RenderLaws, TheTablesAreTheNumbersOfFitLaw) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const QString formula = "L = E + A/N^alpha + B/D^beta";
    const QStringList params = {"E=0:10", "A=0:1e6@100", "B=0:1e7", "alpha=0:2@0.3", "beta=0:2"};
    const QStringList sets = {"law1=chinchilla", "law2=formula", "formula2=" + formula, "params2=" + params.join(", "),
                              "law3=none", "test=N>=5e9"};
    const QJsonArray laws = renderTable(dir, "laws", sets);
    const QJsonArray fitted = renderTable(dir, "params", sets);
    ASSERT_EQ(laws.size(), 2);

    // The same laws by `fit law`.
    QStringList typed = {"fit", "law", "--data", epoch(), "--formula", formula, "--json"};
    for (const QString& p : params) typed << "--param" << p;
    const QList<QStringList> runs = {QStringList{"fit", "law", "--data", epoch(), "--law", "chinchilla", "--json"} + kSplit, typed + kSplit};
    const QStringList labels = {"chinchilla", "formula 2"};
    for (int i = 0; i < 2; ++i) {
        SCOPED_TRACE(labels[i].toStdString());
        const auto r = runScalex(runs[i]);
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        const QJsonObject j = r.json();
        const QJsonObject g = j["groups"].toArray()[0].toObject();
        const QJsonObject test = j["test"].toObject();
        const QJsonObject row = laws[i].toObject();
        EXPECT_EQ(row["law"].toString(), labels[i]);
        EXPECT_EQ(row["formula"].toString(), j["law"].toObject()["formula"].toString());
        // Exactly, as doubles: the same fit, not a rounded copy of it.
        for (const char* key : {"objective", "aic", "bic", "r2"}) {
            ASSERT_TRUE(row[key].isDouble()) << key;
            EXPECT_EQ(row[key].toDouble(), g[key].toDouble()) << key;
        }
        for (const auto& [mine, theirs] : {std::pair{"test_r2", "r2"}, {"mape", "mape"}, {"max_rel_error", "max_rel_error"}}) {
            ASSERT_TRUE(row[mine].isDouble()) << mine;
            EXPECT_EQ(row[mine].toDouble(), test[theirs].toDouble()) << mine;
        }
        EXPECT_EQ(row["n_train"].toInt(), g["n_train"].toInt());
        EXPECT_EQ(row["n_test"].toInt(), test["n"].toInt());
        EXPECT_GT(row["n_test"].toInt(), 0);
        // Every fitted parameter, by name.
        const QJsonObject expected = g["params"].toObject();
        int seen = 0;
        for (const QJsonValue& v : fitted) {
            const QJsonObject p = v.toObject();
            if (p["law"].toString() != labels[i]) continue;
            ++seen;
            EXPECT_EQ(p["group"].toString(), g["name"].toString());  // the study's one series
            ASSERT_TRUE(expected.contains(p["parameter"].toString())) << p["parameter"].toString().toStdString();
            EXPECT_EQ(p["value"].toDouble(), expected[p["parameter"].toString()].toDouble()) << p["parameter"].toString().toStdString();
        }
        EXPECT_EQ(seen, expected.size());
    }
}

TEST(RenderLaws, ALawThatDoesNotCompileFailsTheRenderWithItsError) {
    SCALEX_REQUIRE_SHARED();
    QTemporaryDir dir;
    const auto r = runScalex({"render", "--view", "laws", "--data", epoch(), "--out", dir.filePath("laws.png"), "--set", "law1=formula",
                              "--set", "formula1=L = E + A/(N^alpha", "--set", "params1=E=0:10, A=0:1e6, alpha=0:2", "--set", "law2=none",
                              "--set", "law3=none"});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_TRUE(r.err.contains("unbalanced parenthesis")) << r.err.toStdString();
    EXPECT_FALSE(QFile::exists(dir.filePath("laws.png")));
}
