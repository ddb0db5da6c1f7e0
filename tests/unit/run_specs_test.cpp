// Runs that name their model spec (core/data/RunSpecs.h): a `spec` column naming a spec of the
// project or a model file beside the table gives each run its accounting (N by hand count, C from
// the spec's FLOPs per token at the run's context), an unknown name is an error naming file, line
// and field, the binding survives a saved project, and a series whose runs name specs of several
// sizes gives its own ladder c_T(N) to the context analysis and the compute-optimal query.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <cmath>

#include "core/accounting/SpecAccounting.h"
#include "core/analysis/ContextStudy.h"
#include "core/analysis/OptimalInputs.h"
#include "core/analysis/Study.h"
#include "core/data/RunSpecs.h"
#include "core/data/RunTableIo.h"
#include "core/data/SpecJson.h"

using namespace scalex;

namespace {

// Two sizes of one grouped-query attention architecture in Scalex's spec JSON.
constexpr const char* kSmall = R"({"format": "scalex-model-spec", "format_version": 1, "name": "gqa-small", "d_model": 256,
  "vocab": 1000, "norms_per_block": 1, "final_norm": true,
  "attention": {"n_heads": 4, "n_kv_heads": 2, "d_qk": 64, "d_v": 64},
  "feed_forward": {"width": 1024, "gated": true},
  "layers": [{"mixer": "attention", "feed_forward": "dense", "repeat": 2}]})";
constexpr const char* kLarge = R"({"format": "scalex-model-spec", "format_version": 1, "name": "gqa-large", "d_model": 512,
  "vocab": 1000, "norms_per_block": 1, "final_norm": true,
  "attention": {"n_heads": 8, "n_kv_heads": 2, "d_qk": 64, "d_v": 64},
  "feed_forward": {"width": 2048, "gated": true},
  "layers": [{"mixer": "attention", "feed_forward": "dense", "repeat": 4}]})";

// By hand: untied embedding and head V d; per layer q and o d (H d_qk), k and v d (G d_qk), a gated
// feed-forward 3 d F, two RMSNorms d; a final norm d.
constexpr std::int64_t kSmallParams = 2 * 1000 * 256 + 2 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 1024 + 2 * 256) + 256;
constexpr std::int64_t kLargeParams = 2 * 1000 * 512 + 4 * (2 * 512 * 512 + 2 * 512 * 128 + 3 * 512 * 2048 + 2 * 512) + 512;

accounting::ModelSpec spec(const char* json) {
    auto s = data::parseSpecJson(QByteArray(json), "spec.json");
    EXPECT_TRUE(s) << (s ? std::string() : s.error().toString());
    return s ? *s : accounting::ModelSpec{};
}

struct Fixture {
    QTemporaryDir dir;
    std::string table;  // the run table's path

    // A run table `rows` (after the header) beside models/gqa-large.json.
    explicit Fixture(const std::string& header, const std::string& rows) {
        QDir(dir.path()).mkpath("models");
        QFile large(dir.filePath("models/gqa-large.json"));
        EXPECT_TRUE(large.open(QIODevice::WriteOnly));
        large.write(kLarge);
        large.close();
        table = dir.filePath("gqa.csv").toStdString();
        QFile f(QString::fromStdString(table));
        EXPECT_TRUE(f.open(QIODevice::WriteOnly));
        f.write((header + "\n" + rows).c_str());
    }

    data::Project project() const {
        auto t = data::loadRunTable(table);
        EXPECT_TRUE(t) << (t ? std::string() : t.error().toString());
        data::Project p;
        p.title = "gqa";
        p.tables.push_back({"gqa", t ? *t : data::RunTable{}});
        p.specs.push_back({"gqa-small", "", spec(kSmall)});
        return p;
    }
};

constexpr const char* kHeader = "run,spec,context_length,num_tokens_training,val_loss";

}  // namespace

TEST(RunSpecs, HandCountsOfTheNamedSpecsGiveEachRunItsParametersAndCompute) {
    EXPECT_EQ(accounting::paramCounts(spec(kSmall)).total(), kSmallParams);
    EXPECT_EQ(accounting::paramCounts(spec(kLarge)).total(), kLargeParams);
    Fixture fx(kHeader, "a,gqa-small,2048,1e9,3.5\nb,models/gqa-large.json,4096,2e9,3.2\nc,,2048,1e9,3.4\n");
    analysis::Study study;
    study.setProject(fx.project());
    ASSERT_TRUE(study.specErrors().empty()) << study.specErrors().front().toString();
    const auto& runs = study.runs().runs;
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].specName, "gqa-small");
    EXPECT_EQ(runs[0].params, static_cast<double>(kSmallParams));
    EXPECT_EQ(runs[0].paramsSource, data::Provenance::Derived);
    EXPECT_DOUBLE_EQ(runs[0].flops, accounting::trainingFlopsPerToken(spec(kSmall), 2048) * 1e9);
    EXPECT_EQ(runs[0].flopsSource, data::Provenance::Derived);
    EXPECT_TRUE(runs[0].included());
    // The file beside the table, counted at the run's own context.
    EXPECT_EQ(runs[1].params, static_cast<double>(kLargeParams));
    EXPECT_DOUBLE_EQ(runs[1].flops, accounting::trainingFlopsPerToken(spec(kLarge), 4096) * 2e9);
    EXPECT_GT(runs[1].flops, 6.0 * kLargeParams * 2e9);  // attention over 4096 tokens costs more than 6ND
    // A run naming no spec has none, and its missing N stays a problem.
    EXPECT_FALSE(runs[2].spec);
    EXPECT_FALSE(runs[2].included());
    // Not every run names one: the series has no ladder of its own.
    EXPECT_FALSE(data::seriesSpecLadder(study.runs(), runs[0].series));
}

TEST(RunSpecs, AnUnknownSpecNameIsAnErrorNamingFileLineAndField) {
    Fixture fx(kHeader, "a,gqa-small,2048,1e9,3.5\nb,gqa-tiny,2048,1e9,3.4\n");
    analysis::Study study;
    study.setProject(fx.project());
    ASSERT_EQ(study.specErrors().size(), 1u);
    const data::LoadError& e = study.specErrors().front();
    EXPECT_EQ(e.toString(), fx.table + ", line 3, column 'spec': unknown spec 'gqa-tiny': no spec of the project has this name (it has "
                                       "gqa-small) and no model file is at " +
                                QDir(fx.dir.path()).filePath("gqa-tiny").toStdString());
    // The run is kept with the reason and left out.
    const data::Run& run = study.runs().runs[1];
    EXPECT_FALSE(run.included());
    EXPECT_EQ(run.problems.back(), "spec: " + e.message);
    // Adding the spec it names binds it.
    accounting::ModelSpec tiny = spec(kSmall);
    tiny.name = "gqa-tiny";
    EXPECT_EQ(study.addSpec({"gqa-tiny", "", tiny}), "gqa-tiny");
    EXPECT_TRUE(study.specErrors().empty());
    EXPECT_EQ(study.runs().runs[1].params, static_cast<double>(kSmallParams));
}

TEST(RunSpecs, TheBindingSurvivesASavedProjectAndAnEditedSpecRecounts) {
    Fixture fx(kHeader, "a,gqa-small,2048,1e9,3.5\nb,models/gqa-large.json,2048,2e9,3.2\n");
    analysis::Study study;
    study.setProject(fx.project());
    auto bytes = data::writeProject(study.project());
    ASSERT_TRUE(bytes) << bytes.error().toString();
    auto back = data::readProject(*bytes, "gqa.scalex");
    ASSERT_TRUE(back) << back.error().toString();
    analysis::Study reopened;
    reopened.setProject(std::move(*back));
    ASSERT_TRUE(reopened.specErrors().empty());
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(reopened.runs().runs[i].params, study.runs().runs[i].params) << i;
        EXPECT_EQ(reopened.runs().runs[i].flops, study.runs().runs[i].flops) << i;
    }
    // The spec edited in the project: its runs are counted anew.
    accounting::ModelSpec wider = spec(kSmall);
    wider.feedForward.width = 2048;
    EXPECT_TRUE(reopened.setSpec({"gqa-small", "", wider}));
    EXPECT_FALSE(reopened.setSpec({"gqa-small", "", wider}));
    EXPECT_EQ(reopened.runs().runs[0].params, static_cast<double>(kSmallParams + 2 * 3 * 256 * 1024));
}

TEST(RunSpecs, ASeriesOfSpecsIsItsOwnLadderForTheContextAnalysisAndTheOptimum) {
    Fixture fx(kHeader, "a,gqa-small,2048,1e9,3.5\nb,models/gqa-large.json,2048,2e9,3.2\nc,gqa-small,2048,3e9,3.3\n");
    analysis::Study study;
    study.setProject(fx.project());
    const std::string series = study.runs().runs[0].series;
    const auto ladder = data::seriesSpecLadder(study.runs(), series);
    ASSERT_TRUE(ladder);
    // The distinct specs, from the smallest up, then the largest sized up to the wider default widths.
    ASSERT_EQ(ladder->rungs.size(), 2u + 10u);  // 768 to 16384
    EXPECT_EQ(ladder->rungs[0].name, "gqa-small");
    EXPECT_EQ(ladder->rungs[1].name, "gqa-large");
    EXPECT_TRUE(ladder->rungs[2] == accounting::scaleSpec(spec(kLarge), 768));
    EXPECT_EQ(ladder->rungs.back().dModel, 16384);

    // The context analysis draws the series on its own surface with its ladder.
    const analysis::ContextRequest request = analysis::contextRequest(study, {});
    ASSERT_EQ(request.seriesLadders.size(), 1u);
    EXPECT_EQ(request.seriesLadders[0].name, series);
    ASSERT_TRUE(request.seriesLadders[0].ladder);
    EXPECT_EQ(request.seriesLadders[0].ladder->rungs.size(), 12u);
    EXPECT_EQ(request.seriesLadders[0].isoFlopRuns.series, series);

    // The compute-optimal query counts c_T(N) from the specs at the runs' context (and the
    // reference context), through them in log N: within 1 % of each spec's own count.
    analysis::OptimalQuery query;
    query.fitSurfaces = false;
    query.intervals.resamples = 0;
    const auto inputs = analysis::optimalInputs(study.runs(), study.settings(), study.paper(), query);
    ASSERT_EQ(inputs.size(), 1u);
    for (const auto& rung : ladder->rungs) {
        const double n = static_cast<double>(accounting::paramCounts(rung).activeTotal());
        EXPECT_NEAR(inputs[0].computePerToken(n) / accounting::trainingFlopsPerToken(rung, 2048), 1.0, 0.01) << rung.name;
        EXPECT_NEAR(inputs[0].referencePerToken(n) / accounting::trainingFlopsPerToken(rung, query.referenceContext), 1.0, 0.01);
    }
}

TEST(RunSpecs, AFamilySeriesNamingSpecsCountsThemInPlaceOfThePapersConfigurations) {
    Fixture fx("run,model_family,spec,context_length,num_tokens_training,val_loss",
               "a,transformer,gqa-small,2048,1e9,3.5\nb,transformer,models/gqa-large.json,2048,2e9,3.2\n");
    analysis::Study study;
    study.setProject(fx.project());
    const analysis::ContextRequest request = analysis::contextRequest(study, {});
    ASSERT_EQ(request.inputs.size(), 2u);
    ASSERT_TRUE(request.inputs[0].runSpecs);
    ASSERT_EQ(request.inputs[0].runSpecs->rungs.size(), 12u);
    EXPECT_EQ(request.inputs[0].runSpecs->rungs[0].name, "gqa-small");
    EXPECT_EQ(request.inputs[0].runSpecs->rungs[1].name, "gqa-large");
    EXPECT_FALSE(request.inputs[1].runSpecs);  // no xLSTM runs
    EXPECT_TRUE(request.seriesLadders.empty());
}
