// Every view and verb that takes a model file, run as a user would on a config of each new mixer:
// gated DeltaNet with gated attention and experts (Qwen3.5), attention sinks with alternating
// sliding and full attention (gpt-oss), short convolutions (LFM2), chunked attention with NoPE
// layers in a multimodal config (Llama 4), Mamba (FalconMamba), latent attention with dense-first
// layers (Kimi K2.5), the LayerNorm-with-bias decoders (PhiMoE with its head bias, StarCoder2 with
// its ungated MLP) and Nemotron-H's pattern of Mamba-2, attention, MLP and MoE layers: `account
// --config`, `predict runtime`, `predict max-model --ladder`, `predict crossover`, and the context,
// roofline, breakdown and inference views (`render --model`).
#include <gtest/gtest.h>

#include <QFileInfo>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;
using scalex::test::sourcePath;

namespace {

struct MixerModel {
    const char* path;        // under the source tree
    qint64 params;           // Scalex's count (the unit tests check it against the published one)
    const char* mixerKey;    // the architecture's "layers" key that says the mixer was read
};

const MixerModel kModels[] = {
    {"tests/data/configs/Qwen3.5-25B-REAP-A3B-Coding.json", 25'091'371'648, "delta_net"},
    {"tests/data/configs/gpt-oss-20b.json", 20'914'757'184, "attention"},
    {"tests/data/fuzz/hf_config/lfm2_1_2b.json", 1'170'340'608, "short_conv"},
    {"tests/data/fuzz/hf_config/llama4_scout.json", 107'769'861'120, "attention"},
    {"tests/data/fuzz/hf_config/falcon_mamba_7b.json", 7'272'665'088, "mamba"},
    {"tests/data/fuzz/hf_config/kimi_k2_5.json", 1'026'408'232'448, "attention"},
    {"tests/data/fuzz/hf_config/phi_tiny_moe.json", 3'755'220'288, "attention"},
    {"tests/data/fuzz/hf_config/starcoder2_keys.json", 94'420'992, "attention"},
    {"tests/data/fuzz/hf_config/nemotron_h_keys.json", 3'157'600, "mamba"},
    {"tests/data/fuzz/hf_config/nemotron_3_nano_30b_a3b.json", 31'577'940'288, "mamba"},
    {"tests/data/fuzz/hf_config/zamba2_keys.json", 378'000, "mamba"},
    {"tests/data/fuzz/hf_config/gpt_oss_120b.json", 116'829'156'672, "attention"},
};

bool positiveFinite(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

TEST(MixerVerbs, EveryVerbAndViewTakesEachNewMixer) {
    QTemporaryDir dir;
    const QString baseline = sourcePath("tests/data/configs/Qwen3-1.7B.json");
    for (const MixerModel& m : kModels) {
        const QString file = sourcePath(m.path);
        SCOPED_TRACE(m.path);
        const auto account = runScalex({"account", "--config", file, "--ctx", "8192", "--json"});
        ASSERT_EQ(account.exitCode, 0) << account.err.toStdString();
        const QJsonObject a = account.json();
        EXPECT_EQ(a["params"].toInteger(), m.params);
        EXPECT_GT(a["config"].toObject()["layers"].toObject()[m.mixerKey].toInteger(), 0);

        const auto runtime = runScalex({"predict", "runtime", "--spec", file, "--batch", "8", "--prefill", "8192", "--json"});
        ASSERT_EQ(runtime.exitCode, 0) << runtime.err.toStdString();
        const QJsonObject r = runtime.json();
        for (const char* k : {"ttft_ms", "step_ms", "cache_bytes", "weight_bytes", "prefill_flops"})
            EXPECT_TRUE(positiveFinite(r[k].toDouble())) << k;

        const auto ladder = runScalex({"predict", "max-model", "--ladder", file, "--step-ms", "50", "--prefill", "8192", "--json"});
        ASSERT_EQ(ladder.exitCode, 0) << ladder.err.toStdString();
        EXPECT_GT(ladder.json()["best"].toObject()["model"].toObject()["params"].toInteger(), 0);

        const auto crossover = runScalex({"predict", "crossover", "--spec", file, "--against", baseline, "--factor", "2", "--json"});
        ASSERT_EQ(crossover.exitCode, 0) << crossover.err.toStdString();
        EXPECT_TRUE(crossover.json().contains("advantage_at_max_context"));

        for (const QString view : {"context", "roofline", "breakdown", "inference"}) {
            const QString out = dir.filePath(QFileInfo(file).baseName() + "-" + view + ".png");
            QStringList args{"render", "--view", view, "--model", file, "--out", out, "--dpi", "40"};
            if (view == "breakdown") args << "--set" << "compare=models";
            const auto render = runScalex(args);
            EXPECT_EQ(render.exitCode, 0) << view.toStdString() << ": " << render.err.toStdString();
            EXPECT_GT(QFileInfo(out).size(), 0) << view.toStdString();
        }
    }
}
