// Run tables in columns (core/data/RunTableColumns.h), the form projects keep them in: a table read
// back is the table written (every field bit for bit, problems, source cells, compact checkpoints,
// mapping and notes), projects of the old CSV layout open and save again unchanged, and damaged
// columns are errors that name the member and the column.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "core/data/Project.h"
#include "core/data/RunTableColumns.h"
#include "core/data/RunTableIo.h"
#include "tests/support/TestData.h"

using namespace scalex::data;

namespace {

std::string bits(double v) { return std::to_string(std::bit_cast<std::uint64_t>(v)); }

// Every field of a row, doubles by their bits.
std::string exact(const Run& r) {
    std::string s = r.runId + "|" + r.name + "|" + r.dataset + "|" + std::to_string(r.sourceLine) + "|" + r.status + "|" + r.series +
                    "|" + (r.family ? std::to_string(static_cast<int>(*r.family)) : "-") + "|" +
                    std::to_string(static_cast<int>(r.experimentSet)) + "|" + r.specName + "|" + r.sweepLeftOut + "|" +
                    (r.intermediateCheckpoint ? "i" : "-") + "|" + (r.selectedInPaper ? std::to_string(*r.selectedInPaper) : "-") + "|" +
                    (r.userIncluded ? std::to_string(*r.userIncluded) : "-") + "|" + std::to_string(static_cast<int>(r.paramsSource)) +
                    std::to_string(static_cast<int>(r.tokensSource)) + std::to_string(static_cast<int>(r.flopsSource));
    for (auto v : {r.dModel, r.nLayers, r.nHeads, r.nKvHeads, r.dQk, r.dHv, r.dFf, r.vocab, r.chunk}) s += "|" + std::to_string(v);
    for (double v : {r.context, r.params, r.tokens, r.flops, r.budget, r.batchSize, r.steps, r.learningRate, r.step, r.valLoss, r.trainLoss})
        s += "|" + bits(v);
    for (const auto& p : r.problems) s += "|p:" + p;
    s += "|cells:" + r.raw.joined + "|header:";
    if (r.raw.header)
        for (const auto& h : *r.raw.header) s += h + ",";
    else s += "none";
    return s;
}

std::vector<std::string> rows(const RunTable& t) {
    std::vector<std::string> out;
    forEachRow(t, [&](const Run& r) { out.push_back(exact(r)); });
    return out;
}

void expectSameTable(const RunTable& a, const RunTable& b) {
    EXPECT_EQ(a.runs.size(), b.runs.size());
    EXPECT_EQ(a.compactRows(), b.compactRows());
    EXPECT_EQ(rows(a), rows(b));
    EXPECT_EQ(a.notes, b.notes);
    EXPECT_EQ(a.seriesBy, b.seriesBy);
    ASSERT_EQ(a.mapping.size(), b.mapping.size());
    for (std::size_t i = 0; i < a.mapping.size(); ++i) {
        EXPECT_EQ(a.mapping[i].field, b.mapping[i].field);
        EXPECT_EQ(a.mapping[i].column, b.mapping[i].column);
        EXPECT_EQ(a.mapping[i].rule, b.mapping[i].rule);
        EXPECT_EQ(a.mapping[i].alternatives, b.mapping[i].alternatives);
    }
    ASSERT_EQ(a.seriesConsidered.size(), b.seriesConsidered.size());
    for (std::size_t i = 0; i < a.seriesConsidered.size(); ++i) {
        EXPECT_EQ(a.seriesConsidered[i].columns, b.seriesConsidered[i].columns);
        EXPECT_EQ(a.seriesConsidered[i].verdict, b.seriesConsidered[i].verdict);
        EXPECT_EQ(a.seriesConsidered[i].series, b.seriesConsidered[i].series);
        EXPECT_EQ(a.seriesConsidered[i].chosen, b.seriesConsidered[i].chosen);
    }
}

// 6 runs x 30 checkpoints with a quoted text column, a problem row and a duplicate row, read with
// its intermediate checkpoints as columns.
RunTable checkpointTable() {
    std::string csv = "run_name,step,params,tokens,loss,note\n";
    for (int r = 0; r < 6; ++r)
        for (int c = 1; c <= 30; ++c) {
            const std::string loss = r == 2 && c == 5 ? "n/a" : std::to_string(2.0 + 3.0 / c + 0.01 * r);
            const std::string row = "run_" + std::to_string(r) + "," + std::to_string(100 * c) + "," + std::to_string(10000000 * (r + 1)) +
                                    "," + std::to_string(1000000000ll * c) + "," + loss + ",\"note, " + std::to_string(c % 3) + "\"\n";
            csv += row;
            if (r == 4 && c == 10) csv += row;
        }
    LoadOptions options;
    options.compactCheckpointsFrom = 0;
    auto t = parseRunTable(QByteArray::fromStdString(csv), "ckpt.csv", options);
    EXPECT_TRUE(t.ok()) << t.error().toString();
    return t.ok() ? std::move(*t) : RunTable{};
}

RunTable roundTrip(const RunTable& t) {
    auto back = decodeRunTableColumns(encodeRunTableColumns(t), "t.columns");
    EXPECT_TRUE(back.ok()) << back.error().toString();
    return back.ok() ? std::move(*back) : RunTable{};
}

// The column file's parts, to damage one column and put it together again.
struct Blob {
    std::uint32_t version = 0;
    QJsonObject meta;
    std::vector<QByteArray> columns;  // in the directory's order

    explicit Blob(const QByteArray& b) {
        std::memcpy(&version, b.constData() + 16, 4);
        std::uint32_t json = 0;
        std::memcpy(&json, b.constData() + 20, 4);
        meta = QJsonDocument::fromJson(b.mid(24, json)).object();
        qsizetype at = 24 + json;
        for (const auto& c : meta.value("columns").toArray()) {
            const auto n = static_cast<qsizetype>(c.toObject().value("bytes").toDouble());
            columns.push_back(b.mid(at, n));
            at += n;
        }
    }
    int index(const QString& name) const {
        const QJsonArray dir = meta.value("columns").toArray();
        for (int i = 0; i < dir.size(); ++i)
            if (dir[i].toObject().value("name").toString() == name) return i;
        ADD_FAILURE() << "no column " << name.toStdString();
        return 0;
    }
    QByteArray& column(const QString& name) { return columns[static_cast<std::size_t>(index(name))]; }
    QByteArray bytes() const {
        QJsonObject m = meta;
        QJsonArray dir = m.value("columns").toArray();
        for (int i = 0; i < dir.size(); ++i) {
            QJsonObject o = dir[i].toObject();
            o["bytes"] = static_cast<qint64>(columns[static_cast<std::size_t>(i)].size());
            dir[i] = o;
        }
        m["columns"] = dir;
        const QByteArray json = QJsonDocument(m).toJson(QJsonDocument::Compact);
        QByteArray out("scalex-columns\n", 16);
        const auto size = static_cast<std::uint32_t>(json.size());
        out.append(reinterpret_cast<const char*>(&version), 4).append(reinterpret_cast<const char*>(&size), 4).append(json);
        for (const auto& c : columns) out.append(c);
        return out;
    }
};

std::string decodeError(const QByteArray& bytes) {
    auto t = decodeRunTableColumns(bytes, "p.scalex/runs/t.columns");
    return t.ok() ? "loaded" : t.error().toString();
}

}  // namespace

TEST(RunTableColumns, ACheckpointTableReadsBackExactly) {
    const RunTable t = checkpointTable();
    ASSERT_EQ(t.compactCheckpoints.size(), 1u);
    ASSERT_GT(t.compactRows(), 100u);
    ASSERT_EQ(t.rowCount(), 6u * 30u + 1u);
    // The problem row and the duplicate are kept with their problems.
    std::size_t withProblems = 0;
    for (const auto& r : t.runs) withProblems += r.hasProblems();
    ASSERT_GE(withProblems, 2u);
    const RunTable back = roundTrip(t);
    expectSameTable(t, back);
    // Deterministic: the same table gives the same bytes.
    EXPECT_EQ(encodeRunTableColumns(back), encodeRunTableColumns(t));
}

TEST(RunTableColumns, EveryFieldOfARunReadsBackBitForBit) {
    auto study = loadRunTable(scalex::test::sharedPath("data/xlstm/tokenparam_runs_ctx8192.csv").toStdString());
    ASSERT_TRUE(study) << study.error().toString();
    RunTable t = std::move(*study);
    ASSERT_GT(t.runs.size(), 10u);
    // Values no file gives: a NaN with a payload, -0, optional flags both ways, a family unknown.
    scalex::data::Run& r = t.runs[0];
    r.trainLoss = std::bit_cast<double>(0x7ff8000000000123ull);
    r.learningRate = -0.0;
    r.selectedInPaper = false;
    r.userIncluded = true;
    r.family.reset();
    r.specName = "gqa";
    r.sweepLeftOut = "not the best of its sweep: peak_lr 0.004, loss +0.021";
    r.problems = {"first", "", "third\nline"};
    t.runs[1].raw.header = nullptr;
    t.runs[1].raw.joined.clear();
    t.runs[2].intermediateCheckpoint = true;
    t.runs[2].experimentSet = ExperimentSet::IsoFlop;
    t.runs[2].paramsSource = Provenance::NominalBudget;
    expectSameTable(t, roundTrip(t));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(roundTrip(t).runs[0].trainLoss), 0x7ff8000000000123ull);
}

TEST(RunTableColumns, AnEmptyTableReadsBack) {
    const RunTable back = roundTrip(RunTable{});
    EXPECT_EQ(back.rowCount(), 0u);
}

TEST(RunTableColumns, DamagedColumnsAreErrorsNamingTheColumn) {
    const QByteArray good = encodeRunTableColumns(checkpointTable());
    ASSERT_EQ(decodeError(good), "loaded");
    const std::string file = "p.scalex/runs/t.columns";

    // Truncated: the last column runs past the end.
    EXPECT_EQ(decodeError(good.left(good.size() - 3)),
              file + ", column 'headers': truncated: the column's " + std::to_string(Blob(good).column("headers").size()) +
                  " bytes run past the end of the data (" + std::to_string(Blob(good).column("headers").size() - 3) + " bytes left)");
    // A column of the wrong length.
    Blob shortColumn(good);
    shortColumn.column("params").chop(8);
    const std::size_t runs = checkpointTable().runs.size();
    EXPECT_EQ(decodeError(shortColumn.bytes()), file + ", column 'params': wrong length: " + std::to_string(runs - 1) + " values for " +
                                                    std::to_string(runs) + " rows");
    shortColumn = Blob(good);
    shortColumn.column("checkpoints[0].val_loss").chop(3);
    EXPECT_EQ(decodeError(shortColumn.bytes()),
              file + ", column 'checkpoints[0].val_loss': wrong length: " +
                  std::to_string(shortColumn.column("checkpoints[0].val_loss").size()) + " bytes is not a whole number of f64 values");
    // A code outside the dictionary.
    Blob badCode(good);
    QByteArray& series = badCode.column("series");
    const std::uint32_t code = 77;
    std::memcpy(series.data() + series.size() - 4, &code, 4);
    std::uint32_t dictionary = 0;
    std::memcpy(&dictionary, series.constData(), 4);
    EXPECT_EQ(decodeError(badCode.bytes()), file + ", column 'series': bad dictionary index 77 at row " + std::to_string(runs) +
                                                " (the dictionary holds " + std::to_string(dictionary) + " values)");
    // A compact row whose template is not a run of the table.
    Blob badTemplate(good);
    QByteArray& templ = badTemplate.column("checkpoints[0].template");
    const std::uint32_t far = 100000;
    std::memcpy(templ.data(), &far, 4);
    EXPECT_EQ(decodeError(badTemplate.bytes()), file + ", column 'checkpoints[0].template': bad value 100000 at row 1");
    // An enumeration out of range.
    Blob badEnum(good);
    badEnum.column("flops_source")[0] = 9;
    EXPECT_EQ(decodeError(badEnum.bytes()), file + ", column 'flops_source': bad value 9 at row 1");
    // A missing column.
    Blob missing(good);
    QJsonArray dir = missing.meta.value("columns").toArray();
    const int at = missing.index("status");
    dir.removeAt(at);
    missing.meta["columns"] = dir;
    missing.columns.erase(missing.columns.begin() + at);
    EXPECT_EQ(decodeError(missing.bytes()), file + ", column 'status': missing column");
    // A directory whose row count disagrees with the columns.
    Blob count(good);
    count.meta["runs"] = 5;
    EXPECT_EQ(decodeError(count.bytes()), file + ", column 'source_line': wrong length: " + std::to_string(runs) +
                                              " rows, the directory's \"runs\" says 5");
    // A newer version of the encoding.
    Blob newer(good);
    newer.version = kRunColumnsVersion + 1;
    EXPECT_EQ(decodeError(newer.bytes()), file + ": column format version " + std::to_string(kRunColumnsVersion + 1) +
                                              " is newer than this Scalex reads (" + std::to_string(kRunColumnsVersion) +
                                              "); open it with a newer Scalex");
    EXPECT_EQ(decodeError("runs,params\n1,2\n"),
              file + ": not a Scalex run-table column file (it does not start with \"scalex-columns\")");
    // Any cut of the bytes is an error, never a crash.
    for (qsizetype n = 0; n < good.size(); n += 97) EXPECT_NE(decodeError(good.left(n)), "loaded") << n;
}

TEST(RunTableColumns, ProjectsOfTheOldLayoutOpenAndSaveInColumnsUnchanged) {
    // The built-in example as it was committed before run tables were columns (version 1) and the
    // corpus project with curves and measurements (version 2) hold runs/<name>.csv.
    for (const char* path : {"tests/data/projects/example_v1.scalex", "tests/data/projects/with_sets.scalex"}) {
        SCOPED_TRACE(path);
        auto old = loadProject(scalex::test::sourcePath(path));
        ASSERT_TRUE(old) << old.error().toString();
        ASSERT_FALSE(old->tables.empty());
        auto bytes = writeProject(*old);
        ASSERT_TRUE(bytes) << bytes.error().toString();
        EXPECT_TRUE(bytes->contains("runs/" + QByteArray::fromStdString(old->tables[0].name) + ".columns"));
        auto back = readProject(*bytes, "again.scalex");
        ASSERT_TRUE(back) << back.error().toString();
        ASSERT_EQ(back->tables.size(), old->tables.size());
        for (std::size_t i = 0; i < old->tables.size(); ++i) {
            EXPECT_EQ(back->tables[i].name, old->tables[i].name);
            EXPECT_EQ(back->tables[i].table.source, old->tables[i].table.source);
            expectSameTable(old->tables[i].table, back->tables[i].table);
        }
        EXPECT_EQ(*writeProject(*back), *bytes);
    }
}
