// `scalex predict optimal` on a study of other labs' runs (tests/support/LabStudy.h): each series
// answers from its own IsoFLOP laws and L(N,D) fit, with intervals that hold the laws its runs were
// drawn from; a series that cannot answer says why; the paper's models appear only when asked
// for; and the Compute-optimal view's table of the same study gives the same numbers.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>
#include <map>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/LabStudy.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;

namespace {

// The labs' study (with lab-c, one budget: a profile and no law) as a CSV file in `dir`.
QString writeLabStudy(const QTemporaryDir& dir) {
    const QString path = dir.filePath("labs.csv");
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(scalex::test::labStudyCsv(true)));
    return path;
}

QJsonObject seriesNamed(const QJsonObject& answer, const QString& label) {
    for (const auto& v : answer["series"].toArray())
        if (v.toObject()["label"].toString() == label) return v.toObject();
    ADD_FAILURE() << "no series " << label.toStdString();
    return {};
}

bool inside(double value, const QJsonValue& interval) {
    const QJsonArray a = interval.toArray();
    return a.size() == 2 && a[0].toDouble() <= value && value <= a[1].toDouble();
}

}  // namespace

TEST(OptimalVerb, AnswersForEachSeriesOfTheStudyWithIntervals) {
    QTemporaryDir dir;
    const QString path = writeLabStudy(dir);
    const auto r = runScalex({"predict", "optimal", "--data", path, "--budget", "1e21", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    EXPECT_FALSE(r.out.contains("transformer", Qt::CaseInsensitive)) << "no paper's model unless asked for";
    EXPECT_FALSE(r.out.contains("xlstm", Qt::CaseInsensitive));
    const QJsonObject j = r.json();
    EXPECT_EQ(j["reference"].toString(), "none");
    ASSERT_EQ(j["series"].toArray().size(), 3);
    for (const auto& s : scalex::test::kLabSeries) {
        SCOPED_TRACE(s.name);
        const QJsonObject e = seriesNamed(j, s.name);
        EXPECT_EQ(e["source"].toString(), "study");
        const QJsonObject laws = e["laws"].toObject();
        const QJsonObject intervals = laws["intervals"].toObject();
        EXPECT_EQ(intervals["resamples"].toInt(), 200);
        // The exponent the runs were drawn from lies in the 95 % interval of the fitted one.
        EXPECT_TRUE(inside(s.exponent, intervals["exponent_n"])) << laws["exponent_n"].toDouble();
        EXPECT_NEAR(laws["exponent_n"].toDouble(), s.exponent, 0.03);
        const double drawn = s.coefficient * std::pow(1e21, s.exponent);
        EXPECT_NEAR(laws["params"].toDouble() / drawn, 1.0, 0.1);
        EXPECT_TRUE(inside(laws["params"].toDouble(), intervals["params"]));
        EXPECT_DOUBLE_EQ(laws["budget"].toDouble(), 1e21);
        // Its own L(N,D) fit answers too, and both methods are compared.
        EXPECT_GT(e["surface"].toObject()["params"].toDouble(), 0);
        EXPECT_TRUE(e.contains("comparison"));
    }
    // One budget: a profile but no law, said for that series; nor a surface (its runs lie on one
    // line in (N, D)), said too.
    const QJsonObject c = seriesNamed(j, "lab-c");
    EXPECT_TRUE(c["laws"].isNull());
    EXPECT_TRUE(c["laws_problem"].toString().startsWith("lab-c: no IsoFLOP law")) << c["laws_problem"].toString().toStdString();
    EXPECT_TRUE(c["laws_problem"].toString().contains("1 budget"));
    EXPECT_TRUE(c["surface"].isNull());
    EXPECT_TRUE(c["surface_problem"].toString().contains("one line in (N, D)")) << c["surface_problem"].toString().toStdString();

    // The same in words.
    const auto text = runScalex({"predict", "optimal", "--data", path, "--budget", "1e21"});
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_TRUE(text.out.contains("lab-c  laws      (lab-c: no IsoFLOP law")) << text.out.toStdString();
    EXPECT_FALSE(text.out.contains("transformer", Qt::CaseInsensitive));

    // Laws alone where no series has any: the reasons, and no numbers.
    const auto none = runScalex({"predict", "optimal", "--data", path, "--where", "model=lab-c", "--budget", "1e21", "--method", "laws"});
    EXPECT_EQ(none.exitCode, 2);
    EXPECT_TRUE(none.err.contains("--budget 1e21: lab-c: no IsoFLOP law")) << none.err.toStdString();
}

TEST(OptimalVerb, ThePapersModelsAreAReferenceOnRequest) {
    QTemporaryDir dir;
    const QString path = writeLabStudy(dir);
    const auto r = runScalex({"predict", "optimal", "--data", path, "--budget", "1e21", "--method", "laws", "--reference", "paper", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray series = r.json()["series"].toArray();
    ASSERT_EQ(series.size(), 5);
    EXPECT_EQ(series[0].toObject()["label"].toString(), "lab-a");
    // The paper's models, named as such, with the numbers they give on the paper's own study.
    const auto paper = runScalex({"predict", "optimal", "--budget", "1e21", "--method", "laws", "--json"});
    ASSERT_EQ(paper.exitCode, 0) << paper.err.toStdString();
    const QJsonArray own = paper.json()["series"].toArray();
    ASSERT_EQ(own.size(), 2);
    for (int k = 0; k < 2; ++k) {
        const QJsonObject ref = series[3 + k].toObject(), mine = own[k].toObject();
        EXPECT_EQ(ref["source"].toString(), "paper");
        EXPECT_EQ(ref["label"].toString(), mine["label"].toString() + " (paper)");
        EXPECT_DOUBLE_EQ(ref["laws"].toObject()["params"].toDouble(), mine["laws"].toObject()["params"].toDouble());
        EXPECT_FALSE(ref["laws"].toObject().contains("intervals")) << "the paper's laws have no runs to resample";
    }
    const auto bad = runScalex({"predict", "optimal", "--data", path, "--budget", "1e21", "--reference", "both"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.err.contains("--reference: expected paper or none, got 'both'")) << bad.err.toStdString();
}

// The view's query table of the same study, written headless, holds the verb's numbers.
TEST(OptimalVerb, TheViewsTableHasTheVerbsNumbers) {
    QTemporaryDir dir;
    const QString path = writeLabStudy(dir);
    const auto verb = runScalex({"predict", "optimal", "--data", path, "--budget", "1e21", "--method", "laws", "--json"});
    ASSERT_EQ(verb.exitCode, 0) << verb.err.toStdString();
    const QString out = dir.filePath("query.json");
    const auto render = runScalex({"render", "--project", path, "--view", "optimal", "--set", "method=laws", "--set", "value=1e21",
                                   "--table", "query", "--out", out});
    ASSERT_EQ(render.exitCode, 0) << render.err.toStdString();
    const QJsonArray rows = QJsonDocument::fromJson(scalex::test::fileBytes(out)).array();
    ASSERT_EQ(rows.size(), 3);
    for (const auto& s : scalex::test::kLabSeries) {
        SCOPED_TRACE(s.name);
        const QJsonObject laws = seriesNamed(verb.json(), s.name)["laws"].toObject();
        QJsonObject row;
        for (const auto& v : rows)
            if (v.toObject()["model"].toString() == s.name) row = v.toObject();
        ASSERT_FALSE(row.isEmpty());
        EXPECT_NEAR(row["n_opt"].toDouble() / laws["params"].toDouble(), 1.0, 1e-12);
        EXPECT_NEAR(row["d_opt"].toDouble() / laws["tokens"].toDouble(), 1.0, 1e-12);
        EXPECT_NEAR(row["n_opt_low"].toDouble(), laws["intervals"].toObject()["params"].toArray()[0].toDouble(), 1e-6 * row["n_opt"].toDouble());
        EXPECT_NEAR(row["exponent_high"].toDouble(), laws["intervals"].toObject()["exponent_n"].toArray()[1].toDouble(), 1e-12);
    }
    // The series without an answer says why in its row.
    const QJsonObject c = rows[2].toObject();
    EXPECT_EQ(c["model"].toString(), "lab-c");
    EXPECT_TRUE(c["note"].toString().startsWith("lab-c: no IsoFLOP law")) << c["note"].toString().toStdString();
    EXPECT_TRUE(c["n_opt"].isNull());
}

// --ladder: any architecture, sized to any N, answers with its own c_T(N) on the paper's
// Transformer surface; its N* falls with the context as attention's FLOPs grow, less where a
// sliding window caps them.
TEST(OptimalVerb, LaddersMoveTheirOptimumWithTheContext) {
    QTemporaryDir dir;
    const auto write = [&](const char* name, const char* json) {
        QFile f(dir.filePath(name));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write(json);
        return f.fileName();
    };
    const QString gqa = write("gqa.json", R"({"model_type": "llama", "hidden_size": 2048, "num_hidden_layers": 16,
        "num_attention_heads": 16, "num_key_value_heads": 4, "intermediate_size": 5504, "vocab_size": 50304})");
    const QString window = write("window.json", R"({"model_type": "mistral", "hidden_size": 2048, "num_hidden_layers": 16,
        "num_attention_heads": 16, "num_key_value_heads": 4, "intermediate_size": 5504, "vocab_size": 50304, "sliding_window": 4096})");
    std::map<QString, double> nStar[2];
    int i = 0;
    for (const char* context : {"2048", "32768"}) {
        const auto r = runScalex({"predict", "optimal", "--budget", "1e22", "--context", context, "--method", "surface",
                                  "--resamples", "0", "--ladder", gqa, "--ladder", window, "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
        for (const char* name : {"gqa", "window"}) {
            const QString label = QString(name) + " (ladder, Transformer surface)";
            const QJsonObject s = seriesNamed(r.json(), label);
            EXPECT_EQ(s["source"].toString(), "ladder");
            EXPECT_EQ(s["name"].toString(), label);
            nStar[i][name] = s["surface"].toObject()["params"].toDouble();
        }
        ++i;
    }
    EXPECT_LT(nStar[1]["gqa"], 0.9 * nStar[0]["gqa"]);
    EXPECT_LT(nStar[0]["window"] - nStar[1]["window"], 0.5 * (nStar[0]["gqa"] - nStar[1]["gqa"]));
    const auto bad = runScalex({"predict", "optimal", "--budget", "1e22", "--ladder", write("bad.json", R"({"model_type": "llava"})")});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.err.contains("--ladder: ")) << bad.err.toStdString();
    EXPECT_TRUE(bad.err.contains("bad.json, key 'hidden_size': missing")) << bad.err.toStdString();
}
