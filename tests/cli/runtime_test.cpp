// `scalex fit runtime` and `scalex predict runtime|max-model|crossover`, run as a user would.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>

#include "tests/cli/ScalexProcess.h"
#include "tests/support/TestData.h"

using scalex::test::runScalex;

namespace {

const QStringList kXlstm7b{"--family", "xlstm", "--d-model", "4096", "--n-layers", "32", "--n-heads", "8"};

// `scalex fit runtime` is a sub-verb of `fit`; skip (saying why) while the fit verb does not dispatch it.
bool fitRuntimeAvailable() {
    const auto r = runScalex({"fit", "runtime", "--help"});
    return r.exitCode == 0 && r.out.contains("--data");
}

}  // namespace

TEST(PredictVerb, RooflineBoundOfOneConfiguration) {
    const auto r = runScalex(QStringList{"predict", "runtime"} + kXlstm7b +
                             QStringList{"--batch", "4", "--prefill", "8192", "--accelerator", "H100", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    // With fractions 1 and no overhead the times are the roofline bounds: work / roof.
    EXPECT_NEAR(j["ttft_ms"].toDouble(), 1e3 * j["prefill_flops"].toDouble() / 989e12, 1e-9);
    EXPECT_NEAR(j["step_ms"].toDouble(), 1e3 * j["decode_step_bytes"].toDouble() / 3.35e12, 1e-9);
    EXPECT_NEAR(j["throughput_tok_per_s"].toDouble(), 4 / (j["step_ms"].toDouble() * 1e-3), 1e-6);
    EXPECT_EQ(j["config"].toObject()["params"].toInteger(), 6865424896);
    EXPECT_DOUBLE_EQ(j["weight_bytes"].toDouble(), 2.0 * 6865424896);
    EXPECT_DOUBLE_EQ(j["memory_bytes"].toDouble(), j["weight_bytes"].toDouble() + j["cache_bytes"].toDouble());
    EXPECT_EQ(j["accelerator"].toObject()["name"].toString(), "H100");

    // Halving alpha_eff doubles the TTFT; the mLSTM state does not grow with the prefill.
    const auto half = runScalex(QStringList{"predict", "runtime"} + kXlstm7b +
                                QStringList{"--batch", "4", "--prefill", "8192", "--alpha-eff-fraction", "0.5", "--json"});
    ASSERT_EQ(half.exitCode, 0) << half.err.toStdString();
    EXPECT_NEAR(half.json()["ttft_ms"].toDouble() / j["ttft_ms"].toDouble(), 2.0, 1e-12);
    const auto longer = runScalex(QStringList{"predict", "runtime"} + kXlstm7b +
                                  QStringList{"--batch", "4", "--prefill", "65536", "--json"});
    EXPECT_DOUBLE_EQ(longer.json()["cache_bytes"].toDouble(), j["cache_bytes"].toDouble());
    EXPECT_DOUBLE_EQ(longer.json()["step_ms"].toDouble(), j["step_ms"].toDouble());
}

TEST(PredictVerb, MaxModelAndCrossover) {
    // Step-time budget on the appendix Token/Param Transformers at the H100 roofline, batch 1:
    // the weights dominate, so ~13.7 GB / 3.35 TB/s = 4.1 ms for the 6.9B model; 3 ms admits the 2.8B.
    const auto m = runScalex({"predict", "max-model", "--family", "transformer", "--step-ms", "3", "--prefill", "2048",
                              "--json"});
    ASSERT_EQ(m.exitCode, 0) << m.err.toStdString();
    const QJsonObject j = m.json();
    EXPECT_EQ(j["best"].toObject()["label"].toString(), "transformer_tokenparam_hyperparams 2779M");
    EXPECT_EQ(j["evaluated"].toArray().size(), 6);
    for (const auto& e : j["evaluated"].toArray())
        EXPECT_EQ(e.toObject()["meets_budget"].toBool(), e.toObject()["step_ms"].toDouble() <= 3.0);

    const auto none = runScalex({"predict", "max-model", "--family", "xlstm", "--ttft-ms", "0.001", "--prefill", "2048",
                                 "--json"});
    ASSERT_EQ(none.exitCode, 0);
    EXPECT_TRUE(none.json()["best"].isNull());

    const auto c = runScalex({"predict", "crossover", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32",
                              "--xlstm-n-heads", "8", "--factor", "2", "--stage", "decode", "--batch", "8", "--json"});
    ASSERT_EQ(c.exitCode, 0) << c.err.toStdString();
    const QJsonObject cj = c.json();
    ASSERT_TRUE(cj["context"].isDouble());
    EXPECT_GT(cj["context"].toDouble(), 1000);
    EXPECT_LT(cj["advantage_at_1"].toDouble(), 2);
    EXPECT_GT(cj["advantage_at_max_context"].toDouble(), 2);
    // The answer is the first context where the advantage reaches the factor: check both sides.
    auto stepAt = [](const QStringList& arch, const QString& ctx) {
        const auto r = runScalex(QStringList{"predict", "runtime"} + arch + QStringList{"--batch", "8", "--prefill", ctx, "--json"});
        return r.json()["step_ms"].toDouble();
    };
    const QStringList t{"--family", "llama", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32"};
    const QString at = QString::number(cj["context"].toInteger()), before = QString::number(cj["context"].toInteger() - 1);
    EXPECT_GE(stepAt(t, at) / stepAt(kXlstm7b, at), 2.0);
    EXPECT_LT(stepAt(t, before) / stepAt(kXlstm7b, before), 2.0);
}

TEST(PredictVerb, BadInputIsOneLineAndExit2) {
    struct Case {
        QStringList args;
        QString message;
    };
    const Case cases[] = {
        {{"predict"}, "scalex predict: missing sub-verb (expected runtime, max-model, crossover, optimal or curve)"},
        {{"predict", "latency"}, "scalex predict: unknown sub-verb 'latency' (expected runtime, max-model, crossover, optimal or curve)"},
        {QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--accelerator", "TPU"},
         "scalex predict: --accelerator: 'TPU' is neither V100, A100, H100, B200 nor an existing file"},
        {QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--alpha-eff-fraction", "1.5"},
         "scalex predict: --alpha-eff-fraction must be in (0, 1], got 1.5"},
        {{"predict", "runtime", "--d-model", "4096", "--n-layers", "32", "--n-heads", "8"},
         "scalex predict: missing required option --family (transformer or xlstm)"},
        {QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--batch", "0"}, "scalex predict: --batch must be at least 1, got 0"},
        {QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--fit", "/nonexistent/fit.json"},
         "scalex predict: --fit: /nonexistent/fit.json: cannot open: No such file or directory"},
        {{"predict", "max-model", "--family", "xlstm", "--prefill", "1024"},
         "scalex predict: give exactly one of --ttft-ms and --step-ms"},
        {{"predict", "max-model", "--family", "xlstm", "--step-ms", "-2"}, "scalex predict: --step-ms must be positive, got -2"},
        {{"predict", "max-model", "--family", "xlstm", "--step-ms", "2", "--candidates", "sweep", "--d-model-range", "512:256:64"},
         "scalex predict: --d-model-range: expected MIN:MAX:STEP with 0 < MIN <= MAX and STEP > 0, got '512:256:64'"},
        {{"predict", "crossover", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32", "--xlstm-n-heads", "8"},
         "scalex predict: missing required option --factor"},
        {{"predict", "runtime", "--family", "llama", "--d-model", "1024", "--n-layers", "24", "--n-heads", "16", "--chunk", "128"},
         "scalex predict: --chunk applies to the mLSTM only"},
        {QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--fit-rates", "interpolate"},
         "scalex predict: --fit-rates interpolate needs --fit"},
        {QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--fit-model", "xlstm_7b"},
         "scalex predict: --fit-model needs --fit"},
        {{"predict", "max-model", "--family", "llama", "--step-ms", "2", "--chunk", "128"},
         "scalex predict: --chunk applies to xLSTM candidates only"},
        {{"predict", "crossover", "--d-model", "4096", "--n-layers", "32", "--n-heads", "32", "--xlstm-n-heads", "8",
          "--factor", "2", "--stage", "train"},
         "scalex predict: --stage: unknown stage 'train' (expected prefill or decode)"},
    };
    for (const auto& c : cases) {
        const auto r = runScalex(c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args.join(' ').toStdString();
        EXPECT_EQ(r.err.trimmed(), c.message) << c.args.join(' ').toStdString();
        EXPECT_EQ(r.err.count('\n'), 1) << c.args.join(' ').toStdString();
    }
}

TEST(FitRuntimeVerb, FitsTheStudysMeasurementsAndFeedsPredict) {
    SCALEX_REQUIRE_SHARED();
    if (!fitRuntimeAvailable()) GTEST_SKIP() << "`scalex fit` does not dispatch the runtime sub-verb in this build";
    const QString data = scalex::test::sharedPath("data/xlstm/inference_results_df_dict_xlstm.csv");
    const auto r = runScalex({"fit", "runtime", "--data", data, "--accelerator", "H100", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonArray fits = r.json()["fits"].toArray();
    ASSERT_EQ(fits.size(), 12);  // 6 models x 2 stages
    for (const auto& v : fits) {
        const QJsonObject f = v.toObject();
        EXPECT_LT(f["median_rel_error_variable"].toDouble(), 0.10) << f["model"].toString().toStdString();
        EXPECT_GT(f["n_points"].toInt(), 40);
        const bool pre = f["stage"].toString() == "prefill";
        EXPECT_EQ(f[pre ? "beta_eff" : "alpha_eff"].isNull(), true);
        EXPECT_NEAR(f[pre ? "alpha_eff_over_acc" : "beta_eff_over_acc"].toDouble(),
                    f[pre ? "alpha_eff" : "beta_eff"].toDouble() / (pre ? 989e12 : 3.35e12), 1e-12);
    }

    // The fit file feeds predict: xlstm_7b's own rates reproduce a measured point within 10 %.
    QTemporaryDir dir;
    const QString fitFile = dir.filePath("fit.json");
    QFile out(fitFile);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(r.out.toUtf8());
    out.close();
    const auto p = runScalex(QStringList{"predict", "runtime"} + kXlstm7b +
                             QStringList{"--chunk", "128", "--batch", "4", "--prefill", "4096", "--fit", fitFile, "--json"});
    ASSERT_EQ(p.exitCode, 0) << p.err.toStdString();
    EXPECT_EQ(p.json()["rates_from_fit"].toObject()["prefill"].toString(), "xlstm_7b");
    const auto csv = scalex::test::readSimpleCsv(data);
    int compared = 0;
    for (int i = 0; i < csv.rows.size(); ++i) {
        if (csv.at(i, "model__model_tag") != "xlstm_7b" || csv.number(i, "input_params__batchsize") != 4 ||
            csv.number(i, "input_params__prefill") != 4096)
            continue;
        EXPECT_NEAR(p.json()["ttft_ms"].toDouble() / csv.number(i, "measured_data__ttft"), 1.0, 0.10);
        EXPECT_NEAR(p.json()["step_ms"].toDouble() / csv.number(i, "measured_data__steptime"), 1.0, 0.10);
        ++compared;
    }
    EXPECT_EQ(compared, 1);
}

TEST(PredictVerb, BadFitFileNamesTheEntry) {
    QTemporaryDir dir;
    const QString path = dir.filePath("fit.json");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"fits": [{"model": "m", "family": "xlstm", "stage": "prefill", "num_params": 1e9, "alpha_eff": -3,
                           "eps": 0.001, "batch_term": 0}]})");
    f.close();
    const auto r = runScalex(QStringList{"predict", "runtime"} + kXlstm7b + QStringList{"--fit", path});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex predict: --fit: " + path + ": fits[0].alpha_eff: expected a positive number");
}

TEST(FitRuntimeVerb, BadDataNamesFileLineColumn) {
    if (!fitRuntimeAvailable()) GTEST_SKIP() << "`scalex fit` does not dispatch the runtime sub-verb in this build";
    QTemporaryDir dir;
    const QString path = dir.filePath("m.csv");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("model,family,batchsize,prefill,num_params,ttft_ms,steptime_ms,failed\nm,xlstm,1,0,100,1.5,x,False\n");
    f.close();
    const auto r = runScalex({"fit", "runtime", "--data", path, "--json"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_EQ(r.err.trimmed(), "scalex fit: --data: " + path + ":2:7 (steptime_ms): expected a number, got 'x'");
}

TEST(PredictVerb, OptimalByBothMethodsWithTheLifetimeOptimum) {
    // The numbers of the Compute-optimal view at 1e22 FLOPs and T = 8192: the IsoFLOP laws put the
    // Transformer at 10.3B and xLSTM at 13.0B, the paper's surfaces both near 6.8B.
    const auto r = runScalex({"predict", "optimal", "--budget", "1e22", "--inference-tokens", "1e13", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    // The built-in example is the paper's study: the paper's models answer for its two families.
    EXPECT_EQ(r.json()["reference"].toString(), "paper");
    const QJsonArray families = r.json()["series"].toArray();
    ASSERT_EQ(families.size(), 2);
    for (const auto& v : families) {
        const QJsonObject f = v.toObject();
        const bool xlstm = f["family"].toString() == "xlstm";
        EXPECT_NEAR(f["laws"].toObject()["params"].toDouble() / 1e9, xlstm ? 13.0 : 10.3, 0.1);
        EXPECT_NEAR(f["surface"].toObject()["params"].toDouble() / 1e9, xlstm ? 6.86 : 6.79, 0.01);
        EXPECT_NEAR(f["surface"].toObject()["budget"].toDouble(), 1e22, 1e13);
        const QJsonObject c = f["comparison"].toObject();
        EXPECT_GT(c["law_exponent"].toDouble(), c["surface_exponent"].toDouble());
        EXPECT_LT(c["agree_at_budget"].toDouble(), 1e22);
        const QJsonObject l = f["lifetime"].toObject();
        EXPECT_LT(l["params"].toDouble(), f["surface"].toObject()["params"].toDouble());
        EXPECT_GT(l["saving"].toDouble(), 0.0);
        EXPECT_LT(l["total_compute"].toDouble(), l["compute_optimal_total"].toDouble());
    }
    // The laws at a model size give the paper's appendix table: a 1B Transformer at 1.78e20 FLOPs on 22.8B tokens.
    const auto size = runScalex({"predict", "optimal", "--params", "1e9", "--method", "laws", "--json"});
    ASSERT_EQ(size.exitCode, 0) << size.err.toStdString();
    const QJsonObject t = size.json()["series"].toArray()[0].toObject()["laws"].toObject();
    EXPECT_NEAR(t["budget"].toDouble() / 1.78e20, 1.0, 0.05);
    EXPECT_NEAR(t["tokens"].toDouble() / 22.8e9, 1.0, 0.05);
    // What cannot be answered is named.
    const auto noLaws = runScalex({"predict", "optimal", "--budget", "1e22", "--context", "32768", "--method", "laws"});
    EXPECT_EQ(noLaws.exitCode, 2);
    EXPECT_TRUE(noLaws.err.contains("none at T = 32768")) << noLaws.err.toStdString();
    const auto two = runScalex({"predict", "optimal", "--budget", "1e22", "--params", "1e9"});
    EXPECT_EQ(two.exitCode, 2);
    EXPECT_TRUE(two.err.contains("exactly one of --budget, --params and --loss")) << two.err.toStdString();
    const auto floor = runScalex({"predict", "optimal", "--loss", "1.0"});
    EXPECT_EQ(floor.exitCode, 2);
    EXPECT_TRUE(floor.err.contains("Transformer cannot reach a loss of 1: its irreducible loss E is")) << floor.err.toStdString();
}

// Any architecture from its config.json: the roofline of Mixtral at a batch (experts touched), the
// largest rung of Mistral's ladder within a step budget, and a state-space model against attention.
TEST(PredictVerb, AnyArchitectureFromItsConfig) {
    const QString dir = scalex::test::sourcePath("tests/data/fuzz/hf_config/");
    const auto r = runScalex({"predict", "runtime", "--spec", dir + "mixtral_8x7b.json", "--batch", "8", "--prefill", "8192",
                              "--accelerator", "H100", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_NEAR(j["experts_touched"].toDouble(), 8 * (1 - std::pow(0.75, 8)), 1e-12);
    EXPECT_EQ(j["model"].toObject()["params_active"].toInteger(), 12879925248);
    EXPECT_DOUBLE_EQ(j["step_ms"].toDouble() * 1e-3 * 3.35e12, j["decode_step_bytes"].toDouble());
    EXPECT_GT(j["decode_step_bytes"].toDouble(), 2 * 12879925248.0);  // more than the active weights

    const auto m = runScalex({"predict", "max-model", "--ladder", dir + "mistral_7b.json", "--step-ms", "5", "--prefill", "8192", "--json"});
    ASSERT_EQ(m.exitCode, 0) << m.err.toStdString();
    const QJsonObject best = m.json()["best"].toObject();
    EXPECT_EQ(best["label"].toString(), "mistral d=4096");
    EXPECT_LE(best["prediction"].toObject()["step_ms"].toDouble(), 5.0);

    const auto c = runScalex({"predict", "crossover", "--spec", dir + "mamba_codestral.json", "--against", dir + "llama2_7b.json",
                              "--factor", "2", "--batch", "16", "--json"});
    ASSERT_EQ(c.exitCode, 0) << c.err.toStdString();
    EXPECT_GT(c.json()["context"].toDouble(), 1000);
    EXPECT_EQ(c.json()["baseline"].toObject()["name"].toString(), "llama");
    // Against a sliding window the factor is never reached.
    const auto w = runScalex({"predict", "crossover", "--spec", dir + "mamba_codestral.json", "--against", dir + "mistral_7b.json",
                              "--factor", "2", "--batch", "16", "--json"});
    ASSERT_EQ(w.exitCode, 0) << w.err.toStdString();
    EXPECT_TRUE(w.json()["context"].isNull());

    const auto bad = runScalex({"predict", "crossover", "--spec", dir + "mamba_codestral.json", "--factor", "2"});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_EQ(bad.err.trimmed(), "scalex predict: --spec and --against go together (the model and its baseline)");
    const auto both = runScalex({"predict", "runtime", "--spec", dir + "llama2_7b.json", "--d-model", "1024"});
    EXPECT_EQ(both.exitCode, 2);
    EXPECT_TRUE(both.err.contains("--d-model does not go with --spec")) << both.err.toStdString();
}

// --fit with --spec: a spec is of no family, so the fitted model whose rates it takes is named with
// --fit-model; without it the verb says so in one line.
TEST(PredictVerb, ASpecTakesTheRatesOfTheFittedModelItNames) {
    const QString llama = scalex::test::sourcePath("tests/data/fuzz/hf_config/llama2_7b.json");
    QTemporaryDir dir;
    const QString path = dir.filePath("fit.json");
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(R"({"fits": [{"model": "m", "family": "transformer", "stage": "prefill", "num_params": 7e9, "alpha_eff": 4e14,
                           "eps": 0.002, "batch_term": 0},
                          {"model": "m", "family": "transformer", "stage": "decode", "num_params": 7e9, "beta_eff": 2e12,
                           "eps": 0.001, "batch_term": 0}]})");
    f.close();
    const auto refused = runScalex({"predict", "runtime", "--spec", llama, "--fit", path});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_EQ(refused.err.trimmed(), "scalex predict: --fit with --spec: the fits are of the study's models and a spec is of no "
                                     "family: name the fitted model whose rates it takes (--fit-model)");
    const auto r = runScalex({"predict", "runtime", "--spec", llama, "--fit", path, "--fit-model", "m", "--batch", "2", "--prefill",
                              "4096", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err.toStdString();
    const QJsonObject j = r.json();
    EXPECT_NEAR(j["ttft_ms"].toDouble(), 1e3 * (j["prefill_flops"].toDouble() / 4e14 + 0.002), 1e-9);
    EXPECT_NEAR(j["step_ms"].toDouble(), 1e3 * (j["decode_step_bytes"].toDouble() / 2e12 + 0.001), 1e-9);
    const auto text = runScalex({"predict", "runtime", "--spec", llama, "--fit", path, "--fit-model", "m"});
    ASSERT_EQ(text.exitCode, 0) << text.err.toStdString();
    EXPECT_TRUE(text.out.contains("rates       prefill of m, decode of m (--fit)")) << text.out.toStdString();
}
