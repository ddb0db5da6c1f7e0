// `scalex bench`, run as a user would: a quick CPU sweep end to end, its JSON file, and the
// errors for a missing GPU and bad options.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>

#include "tests/cli/ScalexProcess.h"

using scalex::test::runScalex;

TEST(BenchVerb, QuickCpuRunPrintsTheTableAndWritesJson) {
    QTemporaryDir dir;
    const QString out = dir.filePath("bench.json");
    const auto r = runScalex({"bench", "--backend", "cpu", "--quick", "--threads", "2", "--verify", "--out", out});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    for (const char* row : {"gemm", "triad", "copy", "attention_prefill", "attention_decode", "mlstm_chunkwise", "mlstm_step",
                            "theoretical fp32", "memory roof"})
        EXPECT_TRUE(r.out.contains(QLatin1String(row))) << row << "\n" << r.out.toStdString();
    EXPECT_FALSE(r.out.contains("FAILED")) << r.out.toStdString();
    EXPECT_TRUE(r.err.contains("[0/")) << "progress goes to stderr";

    QFile f(out);
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    const QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
    EXPECT_EQ(j["format"].toString(), "scalex-bench");
    EXPECT_EQ(j["device"].toObject()["backend"].toString(), "cpu");
    EXPECT_TRUE(j["quick"].toBool());
    QSet<QString> kernels;
    for (const auto& v : j["measurements"].toArray()) {
        const QJsonObject m = v.toObject();
        kernels.insert(m["kernel"].toString());
        EXPECT_GT(m["seconds"].toDouble(), 0);
        EXPECT_GT(m["roof_fraction"].toDouble(), 0) << m["kernel"].toString().toStdString();
    }
    EXPECT_EQ(kernels, (QSet<QString>{"gemm", "copy", "triad", "attention_prefill", "attention_decode", "mlstm_chunkwise",
                                      "mlstm_step"}));
    for (const auto& v : j["verification"].toArray()) EXPECT_TRUE(v.toObject()["pass"].toBool());
    EXPECT_GE(j["verification"].toArray().size(), 10);
}

TEST(BenchVerb, KernelSubsetAsJson) {
    const auto r = runScalex({"bench", "--backend", "cpu", "--quick", "--kernels", "mlstm", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray rows = r.json()["measurements"].toArray();
    ASSERT_EQ(rows.size(), 3);  // chunkwise at T 128 and 256, one step
    for (const auto& v : rows) EXPECT_TRUE(v.toObject()["kernel"].toString().startsWith("mlstm_"));
}

TEST(BenchVerb, CudaWithoutADeviceExitsTwo) {
    const auto device = runScalex({"device", "--json"});
    ASSERT_EQ(device.exitCode, 0);
    for (const auto& d : device.json()["devices"].toArray())
        if (d.toObject()["backend"].toString() == "cuda") GTEST_SKIP() << "a CUDA device is present";
    const auto r = runScalex({"bench", "--backend", "cuda", "--quick"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_TRUE(r.err.startsWith("scalex bench: --backend cuda: ")) << r.err.toStdString();
    EXPECT_TRUE(r.out.isEmpty());
}

TEST(BenchVerb, BadOptionsNameTheOption) {
    auto r = runScalex({"bench", "--kernels", "gemm,fft"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex bench: --kernels: unknown kernel 'fft' (expected gemm, bandwidth, attention or mlstm)");
    r = runScalex({"bench", "--backend", "tpu"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex bench: --backend: unknown backend 'tpu' (expected cpu, cuda or auto)");
    r = runScalex({"bench", "--chunk", "0"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex bench: --chunk must be at least 1, got 0");
}
