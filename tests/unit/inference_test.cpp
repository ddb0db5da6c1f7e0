// Runtime model of inference (Sec. "Modeling Inference Runtimes", App. "Modeling Inference
// Characteristics"): hand-computed roofline points, fits on the study's measurements, the
// deployment answers, the accelerator table and the measurement loader.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "app/cli/CliSupport.h"
#include "app/cli/Verbs.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/ParamCount.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/data/InferenceMeasurements.h"
#include "core/inference/Accelerator.h"
#include "core/inference/Deployment.h"
#include "core/inference/RuntimeFit.h"
#include "core/inference/RuntimeModel.h"
#include "gpu/BenchJson.h"
#include "tests/support/TestData.h"

using namespace scalex;
using namespace scalex::inference;
using accounting::Family;
using accounting::ModelConfig;

namespace {

// A model small enough to count by hand: d 64, one layer, one head of 64, d_ff 128, vocab 100.
ModelConfig tinyTransformer() {
    accounting::ConfigOverrides ov;
    ov.dFf = 128;
    ov.vocab = 100;
    return accounting::makeStudyConfig(Family::Transformer, 64, 1, 1, ov);
}

struct ModelFits {
    std::string model;
    Family family = Family::Transformer;
    double params = 0;
    StageFit prefill, decode;
};

std::vector<RuntimeSample> samplesOf(const data::InferenceData& d, const std::string& model, Stage stage,
                                     double batch = 0) {
    std::vector<RuntimeSample> out;
    for (const auto& p : d.points) {
        if (p.model != model || (batch > 0 && p.batch != batch)) continue;
        const double ms = stage == Stage::Prefill ? p.ttftMs : p.stepMs;
        if (ms > 0) out.push_back({p.batch, p.prefill, ms * 1e-3});
    }
    return out;
}

std::vector<ModelFits> fitAll(const data::InferenceData& d, const WorkSettings& s = {}) {
    std::vector<ModelFits> out;
    for (const auto& m : d.models) {
        if (!m.config) continue;
        ModelFits f{m.model, m.family, m.numParams, {}, {}};
        f.prefill = fitStage(*m.config, Stage::Prefill, samplesOf(d, m.model, Stage::Prefill), s,
                             defaultFitOptions(m.family, Stage::Prefill));
        f.decode = fitStage(*m.config, Stage::Decode, samplesOf(d, m.model, Stage::Decode), s,
                            defaultFitOptions(m.family, Stage::Decode));
        out.push_back(f);
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.params < b.params; });
    return out;
}

data::InferenceData loadShared(const char* file) {
    QString error;
    auto d = data::loadInferenceMeasurements(test::sharedPath(QStringLiteral("data/xlstm/") + file), &error);
    EXPECT_TRUE(d) << error.toStdString();
    return d ? *d : data::InferenceData{};
}

QString writeTemp(QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(text);
    return path;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
    auto ranks = [](const std::vector<double>& v) {
        std::vector<std::size_t> idx(v.size());
        std::iota(idx.begin(), idx.end(), 0);
        std::sort(idx.begin(), idx.end(), [&](auto i, auto j) { return v[i] < v[j]; });
        std::vector<double> r(v.size());
        for (std::size_t k = 0; k < idx.size(); ++k) r[idx[k]] = static_cast<double>(k);
        return r;
    };
    const auto ra = ranks(a), rb = ranks(b);
    double d2 = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
    const double n = static_cast<double>(ra.size());
    return 1 - 6 * d2 / (n * (n * n - 1));
}

}  // namespace

// --- Accelerators (Tab. accelerator_specs) ------------------------------------------------

TEST(Accelerators, PaperTableAndShippedCsvAgree) {
    const auto h100 = paperAccelerator("h100");
    ASSERT_TRUE(h100);
    EXPECT_EQ(h100->flops, 989e12);
    EXPECT_EQ(h100->memoryBandwidth, 3.35e12);
    EXPECT_EQ(h100->year, 2022);
    EXPECT_NEAR(h100->intensity(), 295, 0.5);  // the table's printed arithmetic intensity
    EXPECT_FALSE(paperAccelerator("TPUv5"));

    QString error;
    const auto csv = analysis::loadAccelerators(test::sourcePath("datasets/paper/accelerators.csv"), &error);
    ASSERT_TRUE(csv) << error.toStdString();
    EXPECT_EQ(*csv, paperAccelerators());
    const auto table = test::readSimpleCsv(test::sourcePath("datasets/paper/accelerators.csv"));
    const double printed[] = {133, 161, 295, 292};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(table.number(i, "arithmetic_intensity_flops_per_byte"), printed[i]);
}

TEST(Accelerators, BadFileNamesLineAndColumn) {
    QTemporaryDir dir;
    const QString path = writeTemp(dir, "acc.csv",
                                   "name,bf16_flops_per_s,memory_bandwidth_bytes_per_s\nX1,1e15,fast\n");
    QString error;
    EXPECT_FALSE(analysis::loadAccelerators(path, &error));
    EXPECT_EQ(error, path + ":2:3 (memory_bandwidth_bytes_per_s): expected a number, got 'fast'");
    // A year past any calendar (a shifted row): an error, not an overflowing conversion (found by fuzzing).
    const QString shifted = writeTemp(dir, "shifted.csv",
                                      "name,year,bf16_flops_per_s,memory_bandwidth_bytes_per_s\nV100,312e12,2.8e12,9e11\n");
    EXPECT_FALSE(analysis::loadAccelerators(shifted, &error));
    EXPECT_EQ(error, shifted + ":2:2 (year): expected a year, got '312e12'");
}

// --- The model against hand-computed points -----------------------------------------------

TEST(RuntimeModel, ComputeBoundPrefillByHand) {
    // Appendix FLOP counts with F_causal = 1, per token: QKV 2*64*192 + out 2*64*64 + MLP 6*64*128
    // + LM head 2*64*100 = 94720; norms and skips 2*64*(1+3) + SwiGLU 128*2 + output norm 64*3 = 960.
    // Attention core over T = 4: 2*4*4*(64+64+2.5) = 4176. Batch 2: 2*(4*95680 + 4176) = 773792.
    const ModelConfig c = tinyTransformer();
    RuntimeRates r;
    r.prefill = {1e6, 1e-3, 0};
    r.decode = {1e6, 0, 0};
    const Prediction p = predict(c, 2, 4, r, WorkSettings{});
    EXPECT_DOUBLE_EQ(p.prefillFlops, 773792.0);
    EXPECT_DOUBLE_EQ(p.ttft, 0.773792 + 1e-3);
}

TEST(RuntimeModel, MemoryBoundDecodeByHand) {
    // One step after a prefill of 10, batch 1, bf16 (App. "Memory Operation Counts"):
    // layer weights 2*(64*192 + 64*64 + 3*64*128) + norm weights 2*2*64 = 82176,
    // layer activations 2*(256 + 128 + 3*192) + norms 2*2*64 = 2176, LM head 2*(6400 + 164) = 13128,
    // embedding row, output norm and its weights 3*128 = 384, KV cache of 11 keys + q + out
    // 2*(64 + 11*128 + 64) = 3072: total 100936 bytes.
    const ModelConfig c = tinyTransformer();
    WorkSettings s;
    s.generatedTokens = 1;
    RuntimeRates r;
    r.prefill = {1e9, 0, 0};
    r.decode = {1e6, 0, 0};
    const Prediction p = predict(c, 1, 10, r, s);
    EXPECT_DOUBLE_EQ(p.decodeBytes, 100936.0);
    EXPECT_DOUBLE_EQ(p.stepTime, 0.100936);
    EXPECT_DOUBLE_EQ(p.throughput, 1 / 0.100936);
    // Memory: weights at 2 bytes, KV cache 2 * 64 * (10 + 1) elements at 2 bytes.
    EXPECT_DOUBLE_EQ(p.weightBytes, 2.0 * static_cast<double>(accounting::countParameters(c).total()));
    EXPECT_DOUBLE_EQ(p.cacheBytes, 2.0 * 128 * 11);
    EXPECT_LT(p.decodeIntensity(), 10);  // far below any accelerator's roof: memory-bound
}

TEST(RuntimeModel, AcceleratorRoofsAndStepPosition) {
    const auto b200 = *paperAccelerator("B200");
    const RuntimeRates r = ratesFromAccelerator(b200, 0.5, 0.25);
    EXPECT_EQ(r.prefill.rate, 0.5 * 2250e12);
    EXPECT_EQ(r.decode.rate, 0.25 * 7.7e12);
    EXPECT_EQ(r.prefill.overhead, 0);
    // The step is counted at the mean position of the measured 100 generated tokens.
    const ModelConfig t = accounting::makeStudyConfig(Family::Transformer, 1024, 24, 16);
    WorkSettings s;
    EXPECT_DOUBLE_EQ(decodeWork(t, 4, 1000, s),
                     accounting::decodeStepBytes(t, 4, 1000, 50.5, s.bytes).total());
    EXPECT_DOUBLE_EQ(prefillWork(t, 4, 0, s), prefillWork(t, 4, 1, s));  // a prefill of 0 runs one token
}

TEST(RuntimeModel, XlstmStepIsFlatInPrefillAndTransformerStepIsLinear) {
    const ModelConfig x = accounting::makeStudyConfig(Family::Xlstm, 4096, 32, 8);
    const ModelConfig t = accounting::makeStudyConfig(Family::Transformer, 4096, 32, 32);
    const WorkSettings s;
    EXPECT_DOUBLE_EQ(decodeWork(x, 8, 0, s), decodeWork(x, 8, 16384, s));
    const double w0 = decodeWork(t, 8, 0, s), w1 = decodeWork(t, 8, 8192, s), w2 = decodeWork(t, 8, 16384, s);
    EXPECT_NEAR((w2 - w1) / (w1 - w0), 1.0, 1e-12);
    // Slope: every layer reads keys and values of each new cache position, B n_kv (d_qk + d_hv) bytes_qkv.
    EXPECT_NEAR((w1 - w0) / 8192, 32.0 * 8 * 32 * (128 + 128) * 2, 1e-6);
}

TEST(RuntimeModel, RatesInterpolateInLogParameters) {
    const std::vector<SizedStageModel> fits{{1e10, {4e14, 6e-3, 2e-4}}, {1e8, {1e14, 1e-3, 0}}, {1e9, {2e14, 2e-3, 1e-4}}};
    const StageModel mid = interpolateRates(fits, std::sqrt(1e8 * 1e9));  // halfway in log N
    EXPECT_NEAR(mid.rate, std::sqrt(1e14 * 2e14), 1e-3 * 1e14);
    EXPECT_NEAR(mid.overhead, 1.5e-3, 1e-15);
    EXPECT_NEAR(mid.batchTerm, 0.5e-4, 1e-15);
    EXPECT_EQ(interpolateRates(fits, 1e9).rate, 2e14);  // at a fitted size: that fit
    EXPECT_EQ(interpolateRates(fits, 1e7).rate, 1e14);  // below the range: the smallest
    EXPECT_EQ(interpolateRates(fits, 1e12).overhead, 6e-3);  // above: the largest
    EXPECT_EQ(interpolateRates({}, 1e9).rate, 0);
}

// --- Fitting -------------------------------------------------------------------------------

TEST(RuntimeFit, RecoversKnownRatesExactly) {
    std::vector<double> work, batch, secs;
    for (double b : {1., 4., 16., 64.})
        for (double w : {1e9, 1e10, 1e11, 1e12}) {
            work.push_back(w * b);
            batch.push_back(b);
            secs.push_back(w * b / 2e14 + 3e-3 + 1e-4 * b);
        }
    for (bool robust : {false, true}) {
        FitOptions o;
        o.batchTerm = true;
        o.robust = robust;
        const StageFit f = fitRuntime(work, batch, secs, o);
        ASSERT_TRUE(f.ok) << f.error;
        EXPECT_NEAR(f.model.rate / 2e14, 1, 1e-7);
        EXPECT_NEAR(f.model.overhead / 3e-3, 1, 1e-6);
        EXPECT_NEAR(f.model.batchTerm / 1e-4, 1, 1e-6);
        EXPECT_NEAR(f.r2, 1, 1e-12);
        EXPECT_LT(f.medianRelError, 1e-7);
        EXPECT_EQ(f.nPoints, 16u);
    }
}

TEST(RuntimeFit, KeepsOverheadNonNegativeAndMarksOverheadDominatedPoints) {
    // Times below the pure rate line: an unconstrained fit would give a negative overhead.
    const std::vector<double> work{1e12, 2e12, 4e12, 8e12}, batch{1, 1, 1, 1};
    const std::vector<double> secs{0.9e12 / 1e14, 1.9e12 / 1e14, 3.9e12 / 1e14, 7.9e12 / 1e14};
    const StageFit f = fitRuntime(work, batch, secs, FitOptions{});
    ASSERT_TRUE(f.ok);
    EXPECT_EQ(f.model.overhead, 0);
    EXPECT_GT(f.model.rate, 0);

    // One point whose time is almost all overhead does not count as "variable".
    const std::vector<double> w2{1e6, 1e12, 2e12, 4e12}, b2{1, 1, 1, 1};
    const std::vector<double> s2{5e-3 + 1e6 / 1e14, 5e-3 + 1e-2, 5e-3 + 2e-2, 5e-3 + 4e-2};
    const StageFit g = fitRuntime(w2, b2, s2, FitOptions{});
    ASSERT_TRUE(g.ok);
    EXPECT_EQ(g.nVariable, 3u);
}

TEST(RuntimeFit, RejectsUnusableInput) {
    const std::vector<double> one{1e9}, b{1};
    EXPECT_EQ(fitRuntime(one, b, one, FitOptions{}).error, "needs at least 2 points, got 1");
    const std::vector<double> w{1e9, 2e9}, bb{1, 1}, bad{1e-3, -1};
    EXPECT_EQ(fitRuntime(w, bb, bad, FitOptions{}).error, "point 1 has a non-positive or non-finite time, work or batch");
}

// --- The study's measurements ----------------------------------------------------------------

TEST(InferenceStudyData, LoadsAndMarksFailedPoints) {
    SCALEX_REQUIRE_SHARED();
    const auto d = loadShared("inference_results_df_dict_llama2.csv");
    EXPECT_EQ(d.points.size(), 780u);
    ASSERT_EQ(d.models.size(), 6u);
    const auto failed = std::count_if(d.points.begin(), d.points.end(), [](const auto& p) { return p.failedFlag; });
    EXPECT_GT(failed, 0);
    const auto& first = d.points.front();
    EXPECT_EQ(first.model, "llama2_160m");
    EXPECT_EQ(first.line, 2);
    EXPECT_DOUBLE_EQ(first.ttftMs, 0.9448639750480652);
    // Architectures from the df_dict columns, reconciled with the logged parameter count:
    // llama2_7b's ffn_dim column says 11008, but the model that ran has 6863196160 parameters,
    // which is d_ff 10944 (the study's rule), as in Tab. transformer_tokenparam_hyperparams.
    for (const auto& m : d.models) {
        ASSERT_TRUE(m.config) << m.model;
        EXPECT_EQ(m.paramMismatch(), 0) << m.model;
    }
    const auto* m = d.find("llama2_7b");
    EXPECT_EQ(m->config->dFf, 10944);
    EXPECT_EQ(m->config->nHeads, 32);
    EXPECT_EQ(m->numParams, 6863196160.0);
    EXPECT_EQ(m->architectureSource,
              "df_dict inference_results_df_dict_llama2.csv (d_ff 10944 reproduces num_params; the file's 11008 does not)");
    EXPECT_EQ(d.find("llama2_1.4b")->architectureSource, "df_dict inference_results_df_dict_llama2.csv");
    const auto x = loadShared("inference_results_df_dict_xlstm.csv");
    const auto* x4 = x.find("xlstm_400m");
    ASSERT_TRUE(x4 && x4->config);
    EXPECT_EQ(x4->config->chunk, 128);
    EXPECT_EQ(x4->config->dQk, 128);
    for (const auto& xm : x.models) EXPECT_EQ(xm.paramMismatch(), 0) << xm.model;
}

TEST(InferenceStudyData, ResultsFileJoinsDfDictAndFallsBackToAppendixTables) {
    SCALEX_REQUIRE_SHARED();
    QString error;
    const QString results = test::sharedPath("data/xlstm/inference_results.csv");
    auto d = data::loadInferenceMeasurements(results, &error);
    ASSERT_TRUE(d) << error.toStdString();
    EXPECT_EQ(d->points.size(), 2340u);
    EXPECT_EQ(d->models.size(), 18u);
    const QStringList dicts = data::siblingDfDictFiles(results);
    ASSERT_EQ(dicts.size(), 2);
    for (const auto& f : dicts) ASSERT_TRUE(data::attachDfDictArchitectures(*d, f, &error)) << error.toStdString();
    auto table = data::loadAppendixConfigs(test::sourcePath("datasets/paper/model_configs.csv"), &error);
    ASSERT_TRUE(table) << error.toStdString();
    data::attachAppendixArchitectures(*d, *table, 128);
    for (const auto& m : d->models) ASSERT_TRUE(m.config) << m.model;
    EXPECT_EQ(d->find("llama2_1.4b")->architectureSource, "df_dict inference_results_df_dict_llama2.csv");
    EXPECT_EQ(d->find("llama3_7b")->architectureSource, "appendix transformer_tokenparam_hyperparams 6863M");
    // The step failed but the TTFT was measured: kept, marked, usable for the prefill fit only.
    const auto it = std::find_if(d->points.begin(), d->points.end(),
                                 [](const auto& p) { return p.model == "llama2_160m" && p.batch == 1024 && p.prefill == 1024; });
    ASSERT_NE(it, d->points.end());
    EXPECT_TRUE(it->failedFlag);
    EXPECT_TRUE(it->ttftValid());
    EXPECT_FALSE(it->stepValid());
}

TEST(InferenceStudyData, FitsReproduceMeasuredTimes) {
    SCALEX_REQUIRE_SHARED();
    // Per model and stage, the median relative error over the points whose modelled variable term
    // (FLOPs/alpha or bytes/beta) is at least half the modelled time stays under 10 %.
    for (const char* file : {"inference_results_df_dict_llama2.csv", "inference_results_df_dict_xlstm.csv"}) {
        const auto fits = fitAll(loadShared(file));
        ASSERT_EQ(fits.size(), 6u);
        for (const auto& f : fits) {
            for (const StageFit* s : {&f.prefill, &f.decode}) {
                ASSERT_TRUE(s->ok) << f.model << ": " << s->error;
                EXPECT_LT(s->medianRelErrorVariable, 0.10) << f.model;
                EXPECT_GE(s->nVariable, 10u) << f.model;
                EXPECT_GT(s->r2, 0.93) << f.model;
            }
            // Effective rates below the H100 roofs they were measured on.
            EXPECT_LT(f.prefill.model.rate, 989e12) << f.model;
            EXPECT_LT(f.decode.model.rate, 3.35e12) << f.model;
        }
    }
}

TEST(InferenceStudyData, UtilisationRisesWithModelSize) {
    SCALEX_REQUIRE_SHARED();
    // Fig. alphas: alpha_eff / alpha_acc (H100, 989e12) increases with model size for both families.
    const auto h100 = *paperAccelerator("H100");
    for (const char* file : {"inference_results_df_dict_xlstm.csv", "inference_results_df_dict_llama2.csv"}) {
        const auto fits = fitAll(loadShared(file));
        std::vector<double> n, u;
        for (const auto& f : fits) {
            n.push_back(f.params);
            u.push_back(f.prefill.model.rate / h100.flops);
        }
        EXPECT_GT(u.back(), 1.25 * u.front()) << file;
        EXPECT_GE(spearman(n, u), 0.85) << file;
        if (fits.front().family == Family::Xlstm) {
            for (std::size_t i = 1; i < u.size(); ++i) EXPECT_GT(u[i], u[i - 1]) << fits[i].model;
        }
        // (llama2_2.7b, with heads of width 80, sits below llama2_1.4b: one exception to the trend.)
    }
}

TEST(InferenceStudyData, DefaultConventionReproducesTheMeasurementsBest) {
    SCALEX_REQUIRE_SHARED();
    auto total = [](const accounting::FlopConvention& conv) {
        WorkSettings s;
        s.convention = conv;
        double sum = 0;
        for (const char* file : {"inference_results_df_dict_llama2.csv", "inference_results_df_dict_xlstm.csv"})
            for (const auto& f : fitAll(loadShared(file), s)) sum += f.prefill.medianRelErrorVariable;
        return sum;
    };
    const double chosen = total(runtimeConvention());
    EXPECT_LT(chosen, total(accounting::studyConvention()));
    EXPECT_LT(chosen, total(accounting::appendixConvention()));
}

TEST(InferenceStudyData, MeasuredStepTimeFlatForXlstmLinearForTransformer) {
    SCALEX_REQUIRE_SHARED();
    const auto x = loadShared("inference_results_df_dict_xlstm.csv");
    for (const auto& m : x.models) {
        const auto s = samplesOf(x, m.model, Stage::Decode, 1);
        ASSERT_GE(s.size(), 8u) << m.model;
        const auto [lo, hi] = std::minmax_element(s.begin(), s.end(), [](auto& a, auto& b) { return a.seconds < b.seconds; });
        EXPECT_LT(hi->seconds / lo->seconds, 1.10) << m.model;  // within 10 % from prefill 0 to 16k
    }
    const auto t = loadShared("inference_results_df_dict_llama2.csv");
    for (const auto& m : t.models) {
        const auto s = samplesOf(t, m.model, Stage::Decode, 1);
        ASSERT_GE(s.size(), 8u) << m.model;
        // Least-squares line step = a + b T: positive slope, R^2 > 0.98, and 16k at least 1.5x prefill 0.
        double mt = 0, ms = 0;
        for (auto& p : s) mt += p.prefill / s.size(), ms += p.seconds / s.size();
        double sxy = 0, sxx = 0, syy = 0;
        for (auto& p : s) {
            sxy += (p.prefill - mt) * (p.seconds - ms);
            sxx += (p.prefill - mt) * (p.prefill - mt);
            syy += (p.seconds - ms) * (p.seconds - ms);
        }
        EXPECT_GT(sxy / sxx, 0) << m.model;
        EXPECT_GT(sxy * sxy / (sxx * syy), 0.98) << m.model;
        EXPECT_GT(s.back().seconds / s.front().seconds, 1.5) << m.model;
    }
}

// --- Loader errors ---------------------------------------------------------------------------

TEST(InferenceMeasurements, BadInputNamesFileLineAndColumn) {
    QTemporaryDir dir;
    const QByteArray header = "model,family,batchsize,prefill,num_params,ttft_ms,steptime_ms,failed\n";
    struct Case {
        QByteArray body;
        QString expected;  // after "<path>:"
    };
    const Case cases[] = {
        {"m,xlstm,1,0,100,1.5,0.5,False\nm,xlstm,2,0,100,abc,0.5,False\n", "3:6 (ttft_ms): expected a number, got 'abc'"},
        {"m,xlstm,1,0,100,1.5,0.5\n", "2: expected 8 fields (as the header), found 7"},
        {"m,mamba,1,0,100,1.5,0.5,False\n", "2:2 (family): expected a family (llama2, llama3, llama, transformer, xlstm, mlstm), got 'mamba'"},
        {"m,xlstm,0,0,100,1.5,0.5,False\n", "2:3 (batchsize): expected a whole number >= 1, got '0'"},
        {"m,xlstm,1,12.5,100,1.5,0.5,False\n", "2:4 (prefill): expected a whole number >= 0, got '12.5'"},
        {"m,xlstm,1,0,100,-3,0.5,False\n", "2:6 (ttft_ms): expected a positive value or -1 (failed), got '-3'"},
        {"m,xlstm,1,0,100,1.5,0.5,maybe\n", "2:8 (failed): expected True or False, got 'maybe'"},
        {"m,xlstm,1,0,100,1.5,0.5,False\nm,llama2,2,0,100,1.5,0.5,False\n", "3:2 (family): model 'm' was 'xlstm' on an earlier line"},
    };
    int i = 0;
    for (const auto& c : cases) {
        const QString path = writeTemp(dir, QStringLiteral("bad%1.csv").arg(i++), header + c.body);
        QString error;
        EXPECT_FALSE(data::loadInferenceMeasurements(path, &error));
        EXPECT_EQ(error, path + ":" + c.expected);
    }
    // Quoted fields are read by the shared tokenizer; an unclosed quote is its error.
    const QString quoted = writeTemp(dir, "quoted.csv", header + "\"m\",\"xlstm\",1,0,100,1.5,0.5,False\n");
    QString qerror;
    auto qd = data::loadInferenceMeasurements(quoted, &qerror);
    ASSERT_TRUE(qd) << qerror.toStdString();
    EXPECT_EQ(qd->points[0].model, "m");
    const QString open = writeTemp(dir, "open.csv", header + "m,\"xlstm,1,0,100,1.5,0.5,False\n");
    EXPECT_FALSE(data::loadInferenceMeasurements(open, &qerror));
    EXPECT_TRUE(qerror.startsWith(open + ", line 2")) << qerror.toStdString();

    const QString noCol = writeTemp(dir, "nocol.csv", "model,family,batchsize,prefill,ttft_ms\nm,xlstm,1,0,1\n");
    QString error;
    EXPECT_FALSE(data::loadInferenceMeasurements(noCol, &error));
    EXPECT_EQ(error, noCol + ":1: missing column 'steptime_ms'");
    EXPECT_FALSE(data::loadInferenceMeasurements(dir.filePath("absent.csv"), &error));
    EXPECT_TRUE(error.startsWith(dir.filePath("absent.csv") + ": cannot open"));

    // A good file: comments and failed (-1) points are kept.
    const QString good = writeTemp(dir, "good.csv", "# comment\n" + header + "m,llama3,4,128,100,-1,-1,True\nm,llama3,1,0,100,2,1,False\n");
    auto d = data::loadInferenceMeasurements(good, &error);
    ASSERT_TRUE(d) << error.toStdString();
    ASSERT_EQ(d->points.size(), 2u);
    EXPECT_EQ(d->points[0].line, 3);
    EXPECT_TRUE(d->points[0].failedFlag);
    EXPECT_FALSE(d->points[0].ttftValid());
    EXPECT_EQ(d->points[0].family, Family::Transformer);
    EXPECT_EQ(d->models[0].familyTag, "llama3");
}

// --- Deployment questions -------------------------------------------------------------------

TEST(Deployment, LargestModelWithinBudget) {
    const auto cands = widthSweep(Family::Transformer, 512, 4096, 512, 24, 128);
    ASSERT_EQ(cands.size(), 8u);
    EXPECT_EQ(cands[1].config.nHeads, 8);
    const RuntimeRates r = ratesFromAccelerator(*paperAccelerator("H100"), 0.4, 0.6);
    const RatesFor fixed = [&](const ModelConfig&) { return r; };
    const WorkSettings s;
    // A budget just above candidate 5's TTFT and below candidate 6's picks candidate 5.
    const double t5 = predict(cands[5].config, 8, 4096, r, s).ttft, t6 = predict(cands[6].config, 8, 4096, r, s).ttft;
    ASSERT_LT(t5, t6);
    const auto a = largestWithinBudget(cands, Stage::Prefill, 0.5 * (t5 + t6), 8, 4096, fixed, s);
    ASSERT_TRUE(a.best);
    EXPECT_EQ(*a.best, 5u);
    EXPECT_EQ(a.evaluated.size(), 8u);
    EXPECT_TRUE(a.evaluated[0].meetsBudget);
    EXPECT_FALSE(a.evaluated[7].meetsBudget);
    EXPECT_FALSE(largestWithinBudget(cands, Stage::Decode, 1e-9, 8, 4096, fixed, s).best);
}

TEST(Deployment, CrossoverOfDecodeAdvantageMatchesClosedForm) {
    // Step bytes are affine in the prefill for the Transformer (a + b T) and constant for the xLSTM
    // (c); with equal rates and no overhead the advantage (a + b T) / c reaches F at T = (F c - a) / b.
    const ModelConfig t = accounting::makeStudyConfig(Family::Transformer, 2048, 24, 16);
    const ModelConfig x = accounting::makeStudyConfig(Family::Xlstm, 2048, 24, 8);
    const RuntimeRates r = ratesFromAccelerator(*paperAccelerator("A100"));
    const WorkSettings s;
    const double a = decodeWork(t, 4, 0, s), b = decodeWork(t, 4, 1, s) - a, c = decodeWork(x, 4, 0, s);
    for (double factor : {1.5, 3.0}) {
        const auto ans = advantageCrossover(t, r, x, r, Stage::Decode, 4, factor, s);
        ASSERT_TRUE(ans.context) << factor;
        EXPECT_EQ(*ans.context, std::ceil((factor * c - a) / b)) << factor;
    }
    // Prefill: the first whole context where the advantage reaches the factor.
    const auto p = advantageCrossover(t, r, x, r, Stage::Prefill, 1, 1.5, s);
    ASSERT_TRUE(p.context);
    EXPECT_GE(xlstmAdvantage(t, r, x, r, Stage::Prefill, 1, *p.context, s), 1.5);
    EXPECT_LT(xlstmAdvantage(t, r, x, r, Stage::Prefill, 1, *p.context - 1, s), 1.5);
    // Not reached below the upper end of the search.
    EXPECT_FALSE(advantageCrossover(t, r, x, r, Stage::Decode, 4, 1e6, s, 1, 65536).context);
}

// --- `scalex fit runtime` in process (the fit verb dispatches "runtime" to runFitRuntime) ------

TEST(FitRuntimeCommand, FitsEveryModelOfTheResultsFileWithJoinedArchitectures) {
    SCALEX_REQUIRE_SHARED();
    const QString results = test::sharedPath("data/xlstm/inference_results.csv");
    testing::internal::CaptureStdout();
    const int rc = cli::runFitRuntime({"runtime", "--data", results, "--stage", "decode", "--json"});
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(rc, 0);
    const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(out)).object();
    EXPECT_EQ(j["convention"].toString(), "appendix");
    EXPECT_EQ(j["f_causal"].toDouble(), 1.0);
    EXPECT_EQ(j["accelerator"].toObject()["name"].toString(), "H100");
    const QJsonArray fits = j["fits"].toArray();
    ASSERT_EQ(fits.size(), 18);
    for (const auto& v : fits) {
        const QJsonObject f = v.toObject();
        const QString model = f["model"].toString();
        EXPECT_EQ(f["stage"].toString(), "decode");
        EXPECT_TRUE(f["alpha_eff"].isNull());
        EXPECT_GT(f["beta_eff_over_acc"].toDouble(), 0.1) << model.toStdString();
        EXPECT_LT(f["beta_eff_over_acc"].toDouble(), 1.0) << model.toStdString();
        // Failed (-1) step times are counted, not fitted.
        EXPECT_EQ(f["n_points"].toInt() + f["n_failed"].toInt(), 130) << model.toStdString();
        // llama3 has no df_dict: its architecture is the appendix row of nearest parameter count.
        if (model.startsWith("llama3"))
            EXPECT_TRUE(f["architecture_source"].toString().startsWith("appendix transformer_tokenparam_hyperparams"));
        else
            EXPECT_TRUE(f["architecture_source"].toString().startsWith("df_dict"));
        if (f["family"].toString() == "xlstm") EXPECT_EQ(f["batch_term"].toDouble(), 0.0);
    }
}

TEST(FitRuntimeCommand, PointsListEveryFittedMeasurementWithItsLine) {
    SCALEX_REQUIRE_SHARED();
    const QString file = test::sharedPath("data/xlstm/inference_results_df_dict_xlstm.csv");
    testing::internal::CaptureStdout();
    const int rc = cli::runFitRuntime({"runtime", "--data", file, "--model", "xlstm_400m", "--stage", "prefill", "--points", "--json"});
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(rc, 0);
    const QJsonArray fits = QJsonDocument::fromJson(QByteArray::fromStdString(out)).object()["fits"].toArray();
    ASSERT_EQ(fits.size(), 1);
    const QJsonObject f = fits[0].toObject();
    const QJsonArray pts = f["points"].toArray();
    ASSERT_EQ(pts.size(), f["n_points"].toInt());
    const auto csv = test::readSimpleCsv(file);
    for (const auto& v : pts) {
        const QJsonObject p = v.toObject();
        const int row = p["line"].toInt() - 2;  // header on line 1
        EXPECT_EQ(csv.at(row, "model__model_tag"), "xlstm_400m");
        EXPECT_DOUBLE_EQ(p["measured"].toDouble(), csv.number(row, "measured_data__ttft") * 1e-3);
        EXPECT_DOUBLE_EQ(p["modelled"].toDouble(),
                         p["work"].toDouble() / f["alpha_eff"].toDouble() + f["eps"].toDouble());
    }
}

TEST(FitRuntimeCommand, BadOptionsThrowOneLineUsageErrors) {
    auto message = [](const QStringList& args) -> std::string {
        try {
            testing::internal::CaptureStdout();
            cli::runFitRuntime(args);
            testing::internal::GetCapturedStdout();
        } catch (const cli::UsageError& e) {
            testing::internal::GetCapturedStdout();
            return e.what();
        }
        return "(no error)";
    };
    EXPECT_EQ(message({"runtime", "--json"}), "missing required option --data (a measurement CSV)");
    EXPECT_EQ(message({"runtime", "--data", "x.csv", "--stage", "train"}), "--stage: unknown stage 'train' (expected prefill or decode)");
    EXPECT_EQ(message({"runtime", "--data", "x.csv", "--loss", "huber"}), "--loss: expected l1 or l2, got 'huber'");
    EXPECT_EQ(message({"runtime", "--data", "/nonexistent/x.csv"}),
              "--data: /nonexistent/x.csv: cannot open: No such file or directory");
}

TEST(PredictCommand, MeasuredRoofsOfABenchFileAsAccelerator) {
    // `scalex bench --out` stores measured roofs; predict uses its 16-bit GEMM rate and triad bandwidth.
    gpu::BenchReport report;
    report.device.backend = "cuda";
    report.device.name = "Test GPU";
    report.created = "2026-01-01T00:00:00Z";
    report.roofs.computeF32 = 50e12;
    report.roofs.compute16 = 400e12;
    report.roofs.bandwidth = 2e12;
    QTemporaryDir dir;
    const QString path = dir.filePath("bench.json");
    gpu::saveBenchReport(report, path);
    testing::internal::CaptureStdout();
    const int rc = cli::verbPredict({"predict", "runtime", "--family", "llama", "--d-model", "1024", "--n-layers", "24",
                                     "--n-heads", "16", "--batch", "2", "--prefill", "512", "--accelerator", path, "--json"});
    const std::string out = testing::internal::GetCapturedStdout();
    ASSERT_EQ(rc, 0);
    const QJsonObject j = QJsonDocument::fromJson(QByteArray::fromStdString(out)).object();
    EXPECT_EQ(j["accelerator"].toObject()["name"].toString(), "Test GPU (measured roofs)");
    EXPECT_NEAR(j["ttft_ms"].toDouble(), 1e3 * j["prefill_flops"].toDouble() / 400e12, 1e-12);
    EXPECT_NEAR(j["step_ms"].toDouble(), 1e3 * j["decode_step_bytes"].toDouble() / 2e12, 1e-12);

    report.roofs.bandwidth = 0;  // a compute-only run has no memory roof
    gpu::saveBenchReport(report, path);
    try {
        cli::verbPredict({"predict", "runtime", "--family", "llama", "--d-model", "1024", "--n-layers", "24",
                          "--n-heads", "16", "--accelerator", path});
        FAIL() << "expected a usage error";
    } catch (const cli::UsageError& e) {
        EXPECT_EQ(std::string(e.what()), "--accelerator: " + path.toStdString() +
                                             ": the benchmark has no usable roofs (memory_bandwidth must be positive)");
    }
}

// ---- any architecture: the roofline of a model spec ----
#include "core/accounting/ModelLadder.h"
#include "core/accounting/SpecAccounting.h"

namespace {
accounting::ModelSpec mixtralSpec() {
    accounting::ModelSpec s;
    s.name = "mixtral";
    s.dModel = 4096;
    s.vocab = 32000;
    s.attention = {.nHeads = 32, .nKvHeads = 8, .dQk = 128, .dV = 128};
    s.moe = {.nRouted = 8, .topK = 2, .expertWidth = 14336};
    s.layers.assign(32, {accounting::MixerKind::Attention, false, accounting::FeedForwardKind::Moe});
    return s;
}
}  // namespace

TEST(SpecRuntime, MixtureOfExpertsDecodeReadsTheTouchedExpertsAtTheBandwidthRoof) {
    const Accelerator h100 = *analysis::paperAccelerator("H100");
    const RuntimeRates rates = ratesFromAccelerator(h100);
    WorkSettings w;
    w.generatedTokens = 1;  // the step at context T_p + 1
    const accounting::ModelSpec s = mixtralSpec();
    ASSERT_FALSE(accounting::validate(s));
    const Prediction p = predict(s, 1, 8191, rates, w);
    // 25,497,714,688 bytes of weights (a quarter of the routed experts) and 1,073,872,896 of KV cache
    // at T = 8192 (SpecAccounting.DecodeStepReads... counts them by hand), over 3.35 TB/s.
    EXPECT_DOUBLE_EQ(p.decodeBytes, 25497714688.0 + 1073872896.0);
    EXPECT_DOUBLE_EQ(p.stepTime, (25497714688.0 + 1073872896.0) / 3.35e12);
    EXPECT_NEAR(p.stepTime * 1e3, 7.932, 1e-3);
    // A batch of 8 reads 7.2 of the 8 experts: 2.6 times the weights for 8 times the tokens.
    const Prediction p8 = predict(s, 8, 8191, rates, w);
    EXPECT_NEAR(p8.decodeBytes - 8 * 1073872896.0, 2 * (1343492096.0 + 45097156608.0 * (1 - std::pow(0.75, 8)) + 131072000.0 + 8 * 4096), 1);
    // TTFT: B T_p forward FLOPs per token at T_p (F_causal 1) over 989 TFLOP/s.
    EXPECT_DOUBLE_EQ(p.ttft, 8191 * accounting::forwardFlopsPerToken(s, 8191, w.convention).total() / 989e12);
    EXPECT_DOUBLE_EQ(p.weightBytes, 2 * 46702792704.0);
    EXPECT_DOUBLE_EQ(p.cacheBytes, 2 * 32.0 * 2 * 8 * 128 * 8192);
}

TEST(SpecRuntime, LargestRungWithinBudgetAndCrossoverBetweenAnyTwoSpecs) {
    const RuntimeRates rates = ratesFromAccelerator(*analysis::paperAccelerator("H100"));
    const WorkSettings w;
    accounting::ModelSpec gqa = mixtralSpec();
    gqa.name = "gqa";
    gqa.feedForward.width = 14336;
    for (auto& l : gqa.layers) l.feedForward = accounting::FeedForwardKind::Dense;
    const auto ladder = accounting::specLadder(gqa);
    std::vector<SpecCandidate> candidates;
    for (const auto& r : ladder.rungs) candidates.push_back({r.name, r});
    const MaxModelAnswer a = largestWithinBudget(candidates, Stage::Decode, 5e-3, 1, 4096, rates, w);
    ASSERT_TRUE(a.best);
    EXPECT_LE(a.evaluated[*a.best].seconds, 5e-3);
    ASSERT_LT(*a.best + 1, candidates.size());
    EXPECT_GT(a.evaluated[*a.best + 1].seconds, 5e-3);  // the next rung is over the budget
    EXPECT_EQ(candidates[*a.best].spec.dModel, 4096);

    // A Mamba model against the GQA Transformer: the step advantage grows with the context as the
    // KV cache does, and the crossover is where it first reaches the factor.
    accounting::ModelSpec mamba = gqa;
    mamba.name = "mamba";
    mamba.mamba = {.version = 2, .dInner = 8192, .dState = 128, .dConv = 4, .nHeads = 128, .nGroups = 8};
    for (auto& l : mamba.layers) l.mixer = accounting::MixerKind::Mamba;
    ASSERT_FALSE(accounting::validate(mamba));
    const CrossoverAnswer c = advantageCrossover(gqa, mamba, rates, Stage::Decode, 16, 2.0, w);
    ASSERT_TRUE(c.context);
    EXPECT_LT(c.advantageAtStart, 2.0);
    EXPECT_GE(specAdvantage(gqa, mamba, rates, Stage::Decode, 16, *c.context, w), 2.0);
    EXPECT_LT(specAdvantage(gqa, mamba, rates, Stage::Decode, 16, *c.context - 1, w), 2.0);
    // A sliding window caps the cache, so the Mamba model never gets twice as fast against it.
    accounting::ModelSpec window = gqa;
    window.attention.slidingWindow = 4096;
    for (auto& l : window.layers) l.local = true;
    EXPECT_FALSE(advantageCrossover(window, mamba, rates, Stage::Decode, 16, 2.0, w).context);
}
