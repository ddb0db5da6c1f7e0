// Zamba2's shared transformer blocks as a group of their own (HF modeling_zamba2: num_mem_blocks
// blocks counted once, run by every "hybrid" layer): in the parameter groups, in `scalex account
// --json` and as the "Shared blocks" part of the breakdown view's bars, side by side with the
// models of the project. The seed tests/data/fuzz/hf_config/zamba2_keys.json has d = 64, 6 Mamba-2
// layers of which 3 are hybrid, 2 blocks with attention adapters of rank 8 (its shapes by hand in
// hf_mixers_test.cpp: 378,000 parameters).
#include <gtest/gtest.h>

#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>

#include "app/figures/views/FlopBreakdownFigure.h"
#include "core/accounting/SpecAccounting.h"
#include "core/analysis/AccountJson.h"
#include "core/analysis/Study.h"
#include "core/data/HfConfig.h"
#include "tests/support/GuiApp.h"
#include "tests/support/TestData.h"

using namespace scalex;
using namespace scalex::accounting;

namespace {

data::HfModel zamba2Model() {
    const auto m = data::readHfConfig(test::sourcePath("tests/data/fuzz/hf_config/zamba2_keys.json").toStdString());
    EXPECT_TRUE(m.ok()) << m.error().toString();
    return m.ok() ? *m : data::HfModel{};
}
ModelSpec zamba2() { return zamba2Model().spec; }

// The shapes of hf_mixers_test.cpp's Zamba2 test: a block's q, k, v 2d x 128, o 128 x d, gate_up
// d x 2 * 128, down 128 x d and RMSNorms of 2d and d; a use's linear d x d, q/k/v adapters 2d x 8 and
// 8 x 2d, and the gate_up adapter d x 8 and 8 x 2 * 128.
constexpr std::int64_t d = 64;
constexpr std::int64_t kBlock = 2 * d * 3 * 128 + 128 * d + d * 2 * 128 + 128 * d + 2 * d + d;
constexpr std::int64_t kUse = d * d + 3 * (2 * d * 8 + 8 * 2 * d) + d * 8 + 8 * 2 * 128;

}  // namespace

// The blocks are their own group: each block once, each use's own weights per use; no attention or
// feed-forward layers of the model's own.
TEST(SharedBlocks, AGroupOfTheirOwnCountedOnceUsedAtEveryHybridLayer) {
    const ModelSpec s = zamba2();
    const ParamCounts p = paramCounts(s);
    EXPECT_EQ(p.all.shared, 2 * kBlock + 3 * kUse);
    EXPECT_EQ(p.all.attention, 0);
    EXPECT_EQ(p.all.feedForward, 0);
    EXPECT_EQ(p.all.norms, 6 * d + d);  // the Mamba layers' and the final norm; the blocks' are theirs
    EXPECT_EQ(p.total(), 378'000);
    const SharedBlockParams per = sharedBlockParams(s);
    EXPECT_EQ(per.perBlock, kBlock);
    EXPECT_EQ(per.perUse, kUse);
    EXPECT_EQ(sharedBlockParams(ModelSpec{}).perBlock, 0);

    // The account JSON: the group, and the blocks and uses beside the architecture.
    const QJsonObject a = analysis::accountModelJson(zamba2Model(), "zamba2_keys.json", studyConvention(), ByteWidths{}, 4096, 1);
    EXPECT_EQ(a["params_groups"].toObject()["shared_blocks"].toInteger(), 2 * kBlock + 3 * kUse);
    const QJsonObject blocks = a["config"].toObject()["shared_blocks"].toObject();
    EXPECT_EQ(blocks["blocks"].toInteger(), 2);
    EXPECT_EQ(blocks["uses"].toInteger(), 3);
    EXPECT_EQ(blocks["params_per_block"].toInteger(), kBlock);
    EXPECT_EQ(blocks["params_per_use"].toInteger(), kUse);

    // Their FLOPs: the three uses' part of the forward pass, all of it that grows with the context
    // (the Mamba layers' scan does not).
    const FlopConvention conv = studyConvention();
    const FlopSplit at1k = forwardFlopsPerToken(s, 1024, conv), at2k = forwardFlopsPerToken(s, 2048, conv);
    const FlopSplit shared1k = sharedBlockFlopsPerToken(s, 1024, conv), shared2k = sharedBlockFlopsPerToken(s, 2048, conv);
    EXPECT_DOUBLE_EQ(shared1k.linear, 3 * 2.0 * (kBlock - 3 * d + kUse));
    EXPECT_DOUBLE_EQ(shared2k.seqMix - shared1k.seqMix, at2k.seqMix - at1k.seqMix);
    EXPECT_DOUBLE_EQ(at1k.linear - shared1k.linear, 2.0 * (6 * (d * (128 + 160 + 8) + 160 * 4 + 128 * d) + d * 100));
    EXPECT_EQ(sharedBlockFlopsPerToken(s, 1024, sixNdConvention()).total(), 0);
}

// The breakdown view's side-by-side bars: the Zamba2 model's shared blocks are a fourth part, taken
// out of the other three, which still add up to its forward FLOPs; the other models have none.
TEST(SharedBlocks, TheBreakdownViewShowsThemAsAPartOfTheirOwn) {
    test::ensureGuiApplication("scalex_shared_blocks_test");
    analysis::Study study;
    const ModelSpec s = zamba2();
    ASSERT_EQ(study.addSpec({"zamba2_keys", "", s}), "zamba2_keys");
    figures::FlopBreakdownFigure figure;
    ASSERT_TRUE(figure.controls().set("compare", "models"));
    figures::FigureInput in;
    in.study = &study;
    figure.draw(in);
    const double contexts[] = {8192, 131072};
    for (std::size_t c = 0; c < 2; ++c) {
        QChart* chart = figure.charts()[c];
        auto* bars = qobject_cast<QAbstractBarSeries*>(chart->series().value(0));
        ASSERT_NE(bars, nullptr);
        ASSERT_EQ(bars->count(), 4);
        QBarSet* shared = bars->barSets().back();
        EXPECT_EQ(shared->label(), "Shared blocks");
        auto* axis = qobject_cast<QBarCategoryAxis*>(chart->axes(Qt::Horizontal).value(0));
        ASSERT_NE(axis, nullptr);
        ASSERT_EQ(axis->categories(), (QStringList{"Transformer", "xLSTM", "zamba2_keys"}));
        EXPECT_EQ(shared->at(0), 0);
        EXPECT_EQ(shared->at(1), 0);
        // GFLOP per token: the Transformer preset's bars are billions.
        const FlopSplit all = forwardFlopsPerToken(s, contexts[c], figure.convention());
        const FlopSplit part = sharedBlockFlopsPerToken(s, contexts[c], figure.convention());
        EXPECT_NEAR(shared->at(2) * 1e9, part.total(), 1e-6 * part.total());
        double sum = 0;
        for (QBarSet* set : bars->barSets()) sum += set->at(2);
        EXPECT_NEAR(sum * 1e9, all.total(), 1e-9 * all.total());
        EXPECT_NEAR(bars->barSets()[1]->at(2) * 1e9, all.seqMix - part.seqMix, 1e-6 * all.total());
    }
    // A model without shared blocks draws no such part.
    analysis::Study plain;
    ModelSpec noShared = s;
    noShared.layers.assign(6, LayerSpec{MixerKind::Mamba, false, FeedForwardKind::None});
    noShared.sharedBlock = {};
    ASSERT_EQ(plain.addSpec({"mamba2", "", noShared}), "mamba2");
    in.study = &plain;
    figure.draw(in);
    auto* bars = qobject_cast<QAbstractBarSeries*>(figure.charts()[0]->series().value(0));
    ASSERT_NE(bars, nullptr);
    EXPECT_EQ(bars->count(), 3);
}
