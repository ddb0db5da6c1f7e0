// Tables of checkpoints kept as columns (core/data/CheckpointRows.h): every row and every source
// column survives, a compact checkpoint read back equals the row the reader would have made of it,
// and writing the table gives the bytes the all-full table gives.
#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>
#include <string>
#include <vector>

#include "core/analysis/AnalysisSettings.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/data/Project.h"
#include "core/data/RunTableIo.h"
#include "core/data/Series.h"
#include "core/data/TextColumn.h"

using namespace scalex::data;

namespace {

// 12 runs x 40 checkpoints, a text column no field stands for, and rows that must stay full runs:
// a problem row, a duplicate of an earlier row and a row whose learning rate differs from its run's.
QByteArray checkpointTable() {
    std::string out = "run_name,step,params,tokens,loss,lr,note\n";
    for (int r = 0; r < 12; ++r)
        for (int c = 1; c <= 40; ++c) {
            const std::string name = "run_" + std::to_string(r);
            std::string loss = std::to_string(2.0 + 3.0 / c + 0.01 * r);
            if (r == 3 && c == 7) loss = "n/a";
            std::string lr = r == 5 && c == 9 ? "0.002" : "0.001";
            out += name + "," + std::to_string(100 * c) + "," + std::to_string(10000000 * (r + 1)) + "," +
                   std::to_string(1000000000ll * c) + "," + loss + "," + lr + ",\"note, " + std::to_string(c % 3) + "\"\n";
            if (r == 8 && c == 20) out += name + "," + std::to_string(100 * c) + "," + std::to_string(10000000 * (r + 1)) +
                                          "," + std::to_string(1000000000ll * c) + "," + loss + "," + lr + ",\"note, " +
                                          std::to_string(c % 3) + "\"\n";
        }
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

RunTable load(const QByteArray& bytes, std::int64_t compactFrom) {
    LoadOptions options;
    options.compactCheckpointsFrom = compactFrom;
    auto t = parseRunTable(bytes, "ckpt.csv", options);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().toString());
    return t.ok() ? std::move(*t) : RunTable{};
}

// Every field of a row as text, in a fixed order.
std::string describe(const scalex::data::Run& r) {
    std::string s = std::to_string(r.sourceLine) + "|" + r.series + "|" + (r.intermediateCheckpoint ? "i" : "-") + "|" +
                    r.sweepLeftOut + "|" + r.raw.joined + "|" + (r.raw.header ? std::to_string(r.raw.header->size()) : "none");
    for (int f = 0; f < kRunFieldCount; ++f) s += "|" + formatField(r, static_cast<RunField>(f));
    for (const auto& p : r.problems) s += "|p:" + p;
    return s;
}

std::vector<std::string> rows(const RunTable& t) {
    std::vector<std::string> out;
    forEachRow(t, [&](const scalex::data::Run& r) { out.push_back(describe(r)); });
    return out;
}

}  // namespace

TEST(CheckpointRows, CompactRowsReadBackAsTheRowsTheyWere) {
    const QByteArray bytes = checkpointTable();
    const RunTable full = load(bytes, 1ll << 40);
    const RunTable compact = load(bytes, 0);
    ASSERT_TRUE(full.compactCheckpoints.empty());
    ASSERT_EQ(compact.compactCheckpoints.size(), 1u);
    EXPECT_EQ(full.rowCount(), 12u * 40u + 1u);
    EXPECT_EQ(compact.rowCount(), full.rowCount());
    // The runs are each run's first and last rows and the rows with something of their own.
    EXPECT_LT(compact.runs.size(), 12u * 3u + 4u);
    EXPECT_GT(compact.compactRows(), 400u);
    EXPECT_EQ(rows(compact), rows(full));
    EXPECT_EQ(compact.notes, full.notes);
}

TEST(CheckpointRows, RowsThatDifferStayFullRuns) {
    const RunTable compact = load(checkpointTable(), 0);
    int problems = 0, duplicates = 0, otherRate = 0;
    for (const scalex::data::Run& r : compact.runs) {
        problems += r.hasProblems();
        for (const auto& p : r.problems) duplicates += p.rfind("duplicate: identical to the row on line", 0) == 0;
        otherRate += r.learningRate == 0.002;
    }
    EXPECT_EQ(problems, 2);  // the loss 'n/a' and the duplicate
    EXPECT_EQ(duplicates, 1);
    EXPECT_EQ(otherRate, 1);
    // Each run's last checkpoint is a run, and the analyses' runs are the same as without columns.
    int finished = 0;
    for (const scalex::data::Run& r : compact.runs) finished += !r.intermediateCheckpoint;
    EXPECT_EQ(finished, 12);
}

TEST(CheckpointRows, WritingGivesTheSameBytesAndReadsBack) {
    const QByteArray bytes = checkpointTable();
    const QByteArray fromFull = writeRunTableCsv(load(bytes, 1ll << 40));
    const RunTable compact = load(bytes, 0);
    const QByteArray fromCompact = writeRunTableCsv(compact);
    EXPECT_EQ(fromCompact, fromFull);
    // Every source column survives the round trip, and the table reads back as it was.
    EXPECT_TRUE(fromCompact.startsWith("run_id,")) << fromCompact.left(80).toStdString();
    EXPECT_TRUE(fromCompact.contains(",lr,note\n") || fromCompact.contains(",note\n"));
    const RunTable again = load(fromCompact, 0);
    EXPECT_EQ(again.rowCount(), compact.rowCount());
    EXPECT_EQ(writeRunTableCsv(again), fromCompact);
}

TEST(CheckpointRows, LossCurvesHoldEveryCheckpoint) {
    const QByteArray bytes = checkpointTable();
    scalex::analysis::AnalysisSettings settings;
    const RunTable full = load(bytes, 1ll << 40);
    const auto fromFull = scalex::analysis::lossCurves(full, settings);
    const RunTable compact = load(bytes, 0);
    const auto fromCompact = scalex::analysis::lossCurves(compact, settings);
    ASSERT_EQ(fromCompact.size(), fromFull.size());
    ASSERT_EQ(fromCompact.size(), 12u);
    for (std::size_t c = 0; c < fromFull.size(); ++c) {
        EXPECT_EQ(fromCompact[c].run, fromFull[c].run);
        ASSERT_EQ(fromCompact[c].checkpoints.size(), fromFull[c].checkpoints.size());
        for (std::size_t i = 0; i < fromFull[c].checkpoints.size(); ++i) {
            EXPECT_EQ(fromCompact[c].checkpoints[i].step, fromFull[c].checkpoints[i].step);
            EXPECT_EQ(fromCompact[c].checkpoints[i].tokens, fromFull[c].checkpoints[i].tokens);
            EXPECT_EQ(fromCompact[c].checkpoints[i].loss, fromFull[c].checkpoints[i].loss);
        }
        EXPECT_EQ(describe(*fromCompact[c].last()), describe(*fromFull[c].last()));
        EXPECT_FALSE(fromCompact[c].last()->intermediateCheckpoint);
    }
}

TEST(CheckpointRows, RegroupingCarriesCompactRowsWithTheirRun) {
    RunTable compact = load(checkpointTable(), 0);
    ASSERT_FALSE(groupRunsBy(compact, {"run_name"}));
    std::vector<std::string> seen;
    forEachRow(compact, [&](const scalex::data::Run& r) {
        if (r.intermediateCheckpoint && !r.hasProblems()) EXPECT_EQ(r.series, r.name);
    });
}

TEST(TextColumn, KeepsEveryValueAsDictionaryAndAsPool) {
    TextColumn repeated, fresh;
    std::vector<std::string> a, b;
    for (int i = 0; i < 5000; ++i) {
        a.push_back("run_" + std::to_string(i % 7));
        b.push_back(std::to_string(i) + ".25");
        repeated.push(a.back());
        fresh.push(b.back());
    }
    repeated.push("");
    a.push_back("");
    for (int i = 0; i < 5000; ++i) {
        EXPECT_EQ(repeated.at(static_cast<std::size_t>(i)), a[static_cast<std::size_t>(i)]);
        EXPECT_EQ(fresh.at(static_cast<std::size_t>(i)), b[static_cast<std::size_t>(i)]);
    }
    EXPECT_EQ(repeated.at(5000), "");
    // Codes cost four bytes a row (eight with the room a growing array keeps), not a string each.
    EXPECT_LT(repeated.bytes(), 5001u * 8u + 4096u);
    const TextColumn copy = repeated;
    EXPECT_EQ(copy.at(3), "run_3");
    std::vector<bool> keep(5001, false);
    keep[3] = keep[4999] = true;
    TextColumn kept = fresh;
    kept.keepRows(std::vector<bool>(keep.begin(), keep.begin() + 5000));
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_EQ(kept.at(0), "3.25");
    EXPECT_EQ(kept.at(1), "4999.25");
}

TEST(CheckpointRows, MergedTablesKeepEveryRowInTableOrder) {
    const QByteArray bytes = checkpointTable();
    Project project;
    project.tables.push_back({"a", load(bytes, 0)});
    project.tables.push_back({"b", load(bytes, 0)});
    const RunTable merged = project.mergedRuns();
    ASSERT_EQ(merged.compactCheckpoints.size(), 2u);
    EXPECT_EQ(merged.rowCount(), 2 * project.tables[0].table.rowCount());
    std::vector<std::string> expected = rows(project.tables[0].table);
    const std::vector<std::string> second = rows(project.tables[1].table);
    expected.insert(expected.end(), second.begin(), second.end());
    EXPECT_EQ(rows(merged), expected);
    // A project round trip keeps every row and column.
    auto bytesOut = writeProject(project);
    ASSERT_TRUE(bytesOut.ok());
    auto back = readProject(*bytesOut, "rows.scalex");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    ASSERT_EQ(back->tables.size(), 2u);
    EXPECT_EQ(writeRunTableCsv(back->tables[0].table), writeRunTableCsv(project.tables[0].table));
}

TEST(TextColumn, AConstantColumnCostsNothingPerRowUntilAValueDiffers) {
    TextColumn c;
    c.reserve(100000);
    for (int i = 0; i < 100000; ++i) c.push("");
    EXPECT_EQ(c.size(), 100000u);
    EXPECT_LT(c.bytes(), 1024u);
    EXPECT_EQ(c.at(99999), "");
    c.push("x");
    ASSERT_EQ(c.size(), 100001u);
    EXPECT_EQ(c.at(0), "");
    EXPECT_EQ(c.at(100000), "x");
    std::vector<bool> keep(100001, false);
    keep[5] = keep[100000] = true;
    c.keepRows(keep);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c.at(0), "");
    EXPECT_EQ(c.at(1), "x");
}

// Rows of a run after its first are read along the row before them (only the cells that change
// along training are read again); each must equal the run the reader makes of it read on its own,
// whatever is derived from those cells: C = 6ND, N = C/6D, N and C from the architecture, D from
// steps x batch x context, a provenance column, and problems in the middle of a run.
TEST(CheckpointRows, ARowReadAlongItsRunEqualsTheRowReadAlone) {
    const std::string header =
        "run_name,step,model_family,d_model,n_layers,n_heads,num_params,num_tokens_training,num_flops_training,"
        "num_train_steps,global_batch_size,context_length,loss,tokens_source\n";
    const std::vector<std::string> lines = {
        // C = 6ND per row
        "a,100,,,,,20000000,1000000000,,,,,3.5,", "a,200,,,,,20000000,2000000000,,,,,3.2,",
        "a,300,,,,,20000000,3000000000,,,,,3.1,",
        // N = C/6D, which changes along the run
        "b,100,,,,,,1000000000,2e17,,,,3.5,", "b,200,,,,,,2000000000,3e17,,,,3.3,", "b,300,,,,,,3000000000,3.5e17,,,,3.2,",
        // N and C from the architecture
        "c,100,xlstm,512,10,4,,1000000000,,,,2048,3.5,", "c,200,xlstm,512,10,4,,2000000000,,,,2048,3.3,",
        "c,300,xlstm,512,10,4,,4000000000,,,,2048,3.1,",
        // D from steps x batch x context, and a provenance column
        "d,100,,,,,30000000,,,1000,256,2048,3.5,derived", "d,200,,,,,30000000,,,1000,256,2048,3.4,derived",
        // problems between good rows: a loss that is no number, a tokens cell that is negative, then good again
        "e,100,,,,,20000000,1000000000,,,,,3.5,", "e,200,,,,,20000000,2000000000,,,,,n/a,",
        "e,300,,,,,20000000,-5,,,,,3.2,", "e,400,,,,,20000000,4000000000,,,,,3.1,", "e,500,,,,,20000000,5000000000,,,,,3.0,",
    };
    std::string all = header;
    for (const auto& l : lines) all += l + "\n";
    const RunTable table = load(QByteArray::fromStdString(all), 0);
    std::vector<std::string> along;
    forEachRow(table, [&](const scalex::data::Run& r) {
        scalex::data::Run copy = r;
        copy.sourceLine = 0;
        copy.intermediateCheckpoint = false;
        copy.raw.header.reset();
        along.push_back(describe(copy));
    });
    ASSERT_EQ(along.size(), lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const RunTable alone = load(QByteArray::fromStdString(header + lines[i] + "\n"), 0);
        ASSERT_EQ(alone.runs.size(), 1u);
        scalex::data::Run r = alone.runs[0];
        r.sourceLine = 0;
        r.raw.header.reset();
        EXPECT_EQ(along[i], describe(r)) << lines[i];
    }
    EXPECT_FALSE(table.compactCheckpoints.empty());
}

// A file read from disk gives the memory of its text back as it is read (TextRelease in
// RunTableIo.cpp): the table must be the one read from the same bytes kept whole, row for row and
// cell for cell. Runs of 6,000 checkpoints (longer than the reader's batches, so the row a run's
// rows are compared with lies batches back), quoted cells and a problem row, 12 MB in all.
TEST(CheckpointRows, AFileReadWhileItsTextIsGivenBackEqualsTheSameBytesKeptWhole) {
    std::string text = "run_name,step,params,tokens,loss,note\n";
    text.reserve(13 << 20);
    for (int r = 0; r < 40; ++r)
        for (int c = 1; c <= 6000; ++c) {
            const std::string loss = r == 17 && c == 4321 ? "n/a" : std::to_string(2.0 + 3.0 / c + 0.001 * r);
            text += "run_" + std::to_string(r) + "," + std::to_string(10 * c) + "," + std::to_string(10000000 * (r + 1)) + "," +
                    std::to_string(500000000ll * c) + "," + loss + (c % 1000 == 0 ? ",\"a, quoted\"\n" : ",plain\n");
        }
    QTemporaryDir dir;
    const QString path = dir.filePath("log.csv");
    {
        QFile f(path);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        ASSERT_EQ(f.write(text.data(), static_cast<qint64>(text.size())), static_cast<qint64>(text.size()));
    }
    const QByteArray bytes = QByteArray::fromStdString(text);
    const auto kept = parseRunTable(bytes, path.toStdString());
    const auto read = loadRunTable(path.toStdString());
    ASSERT_TRUE(kept) << kept.error().toString();
    ASSERT_TRUE(read) << read.error().toString();
    EXPECT_EQ(read->rowCount(), 240000u);
    EXPECT_FALSE(read->compactCheckpoints.empty());
    EXPECT_TRUE(writeRunTableCsv(*read) == writeRunTableCsv(*kept));
}
