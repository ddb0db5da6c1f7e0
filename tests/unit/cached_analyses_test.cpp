// The analyses kept in the one result cache (core/analysis/ResultCache.h, KeptRuns.h): asked again
// for the same runs and options they compute nothing and give, to the last digit, what an uncached
// computation gives, with run pointers into the asker's own table; a changed option or a changed run
// computes them again.
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <functional>
#include <string>

#include "core/analysis/AnalysisJson.h"
#include "core/analysis/KeptRuns.h"
#include "core/analysis/LawAnalysis.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/RuntimeAnalysis.h"
#include "core/analysis/SeriesAnalyses.h"
#include "core/analysis/Study.h"
#include "core/data/InferenceMeasurements.h"
#include "core/data/ExampleProject.h"
#include "core/data/PaperTables.h"
#include "core/data/Project.h"
#include "core/fit/LawLibrary.h"
#include "tests/support/TestData.h"

namespace an = scalex::analysis;
namespace data = scalex::data;
namespace fit = scalex::fit;

namespace {

// The built-in example as the program generates it from the paper's tables.
an::Study exampleStudy() {
    auto paper = data::loadPaperTables(scalex::test::sourcePath("datasets/paper"));
    EXPECT_TRUE(paper) << paper.error().toString();
    an::Study study;
    if (paper) study.setProject(data::makeExampleProject(*paper));
    return study;
}

std::string text(const QJsonObject& o) { return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString(); }

// A law fit's JSON without the time each group's fit took (which no two fits share).
std::string lawText(const an::LawAnalysis& a) {
    QJsonObject o = an::toJson(a);
    QJsonArray groups = o["groups"].toArray();
    for (auto g : groups) {
        QJsonObject group = g.toObject();
        EXPECT_TRUE(group.contains("seconds"));
        group.remove("seconds");
        g = group;
    }
    o["groups"] = groups;
    return text(o);
}

// The results the shared cache computes while `ask` runs.
std::size_t computedBy(const std::function<void()>& ask) {
    const std::size_t before = an::ResultCache::shared().computed();
    ask();
    return an::ResultCache::shared().computed() - before;
}

// Every run pointer of `result` points into `table`.
template <class T>
bool pointsInto(T result, const data::RunTable& table) {
    bool inside = true;
    std::size_t seen = 0;
    visitRuns(result, [&](const data::Run*& r) {
        ++seen;
        inside = inside && r >= table.runs.data() && r < table.runs.data() + table.runs.size();
    });
    return inside && seen > 0;
}

// The example's runs, one run's loss raised by 1 %.
data::RunTable withChangedLoss(data::RunTable table) {
    for (auto& r : table.runs)
        if (r.experimentSet == data::ExperimentSet::IsoFlop && r.loss() > 0) {
            r.valLoss = r.loss() * 1.01;
            break;
        }
    return table;
}

class CachedAnalyses : public ::testing::Test {
protected:
    void SetUp() override {
        an::ResultCache::shared().clear();
        study_ = exampleStudy();
    }
    an::Study study_;
};

}  // namespace

TEST_F(CachedAnalyses, IsoFlopLawsAreComputedOnceAndAreTheUncachedOnesInTheAskersRuns) {
    const data::RunTable& table = study_.runs();
    const an::AnalysisSettings& settings = study_.settings();
    const auto groups = an::seriesGroups(table, settings);
    ASSERT_FALSE(groups.empty());
    const an::SeriesGroup g = an::studySet(table, groups.front(), data::ExperimentSet::IsoFlop);
    an::IsoFlopAnalysis first;
    EXPECT_EQ(computedBy([&] { first = an::isoFlopAnalysis(table, settings, g); }), 1u);
    ASSERT_TRUE(first.result.nOptLaw) << "the example's IsoFLOP runs give a law";
    // A copy of the runs (another window, a converted project) gets the kept result in its own runs.
    const data::RunTable copy = table;
    an::IsoFlopAnalysis again;
    EXPECT_EQ(computedBy([&] { again = an::isoFlopAnalysis(copy, settings, g); }), 0u);
    EXPECT_TRUE(pointsInto(again, copy));
    EXPECT_TRUE(pointsInto(first, table));
    const std::string uncached = text(an::toJson(an::computeIsoFlopAnalysis(copy, settings, g)));
    EXPECT_EQ(text(an::toJson(again)), uncached);
    EXPECT_EQ(text(an::toJson(first)), uncached);

    // Another budget range, or a run's loss changed: computed again, and different.
    fit::IsoFlopSettings narrow;
    narrow.fitMax = 1e20;
    EXPECT_EQ(computedBy([&] { (void)an::isoFlopAnalysis(table, settings, g, narrow); }), 1u);
    const data::RunTable changed = withChangedLoss(table);
    an::IsoFlopAnalysis moved;
    EXPECT_EQ(computedBy([&] { moved = an::isoFlopAnalysis(changed, settings, g); }), 1u);
    EXPECT_NE(text(an::toJson(moved)), uncached);
}

TEST_F(CachedAnalyses, SlopesParetoAndTheirComparisonAreComputedOnce) {
    const data::RunTable& table = study_.runs();
    const an::AnalysisSettings& settings = study_.settings();
    auto slopesJson = [](const std::vector<an::SlopeAnalysis>& all) {
        QJsonArray out;
        for (const auto& a : all) out.append(an::toJson(a.result));
        return text(QJsonObject{{"slopes", out}});
    };
    std::vector<an::SlopeAnalysis> slopes;
    EXPECT_EQ(computedBy([&] { slopes = an::slopeAnalyses(table, settings); }), 1u);
    EXPECT_EQ(computedBy([&] { EXPECT_EQ(slopesJson(an::slopeAnalyses(table, settings)), slopesJson(slopes)); }), 0u);
    EXPECT_EQ(slopesJson(slopes), slopesJson(an::computeSlopeAnalyses(table, settings)));
    EXPECT_TRUE(pointsInto(slopes, table));
    fit::SlopeSettings fewer;
    fewer.minRuns = 4;
    EXPECT_EQ(computedBy([&] { (void)an::slopeAnalyses(table, settings, fewer); }), 1u);

    // Intervals of η: the bootstrap is kept by the analysis' points.
    fit::BootstrapSettings boot;
    boot.resamples = 40;
    ASSERT_FALSE(slopes.empty());
    fit::BootstrapResult eta;
    EXPECT_EQ(computedBy([&] { eta = an::slopeIntervals(slopes.front(), {}, boot); }), 1u);
    EXPECT_EQ(computedBy([&] { EXPECT_EQ(text(an::toJson(an::slopeIntervals(slopes.front(), {}, boot), boot)), text(an::toJson(eta, boot))); }), 0u);

    auto paretoJson = [](const std::vector<an::ParetoAnalysis>& all) {
        QJsonArray out;
        for (const auto& a : all) out.append(an::frontierJson(a));
        return text(QJsonObject{{"pareto", out}});
    };
    std::vector<an::ParetoAnalysis> pareto;
    EXPECT_EQ(computedBy([&] { pareto = an::paretoAnalyses(table, settings); }), 1u);
    EXPECT_EQ(computedBy([&] { EXPECT_EQ(paretoJson(an::paretoAnalyses(table, settings)), paretoJson(pareto)); }), 0u);
    EXPECT_EQ(paretoJson(pareto), paretoJson(an::computeParetoAnalyses(table, settings)));
    EXPECT_TRUE(pointsInto(pareto, table));

    std::optional<an::SeriesComparison> compared;
    EXPECT_EQ(computedBy([&] { compared = an::compareSeries(pareto, boot); }), 1u);
    ASSERT_TRUE(compared) << "the example has both families";
    const std::string keptJson = text(an::toJson(*compared, pareto, true));
    EXPECT_EQ(computedBy([&] { EXPECT_EQ(text(an::toJson(*an::compareSeries(pareto, boot), pareto, true)), keptJson); }), 0u);
    EXPECT_EQ(text(an::toJson(an::compareSeriesUncached(pareto, {compared->a, compared->b}, boot), pareto, true)), keptJson);
    boot.seed += 1;
    EXPECT_EQ(computedBy([&] { (void)an::compareSeries(pareto, boot); }), 1u);
    // A changed run: the analyses of the runs again.
    const data::RunTable changed = withChangedLoss(table);
    EXPECT_EQ(computedBy([&] { (void)an::paretoAnalyses(changed, settings); }), 1u);
    EXPECT_EQ(computedBy([&] { (void)an::slopeAnalyses(changed, settings); }), 1u);
}

TEST_F(CachedAnalyses, ALawFitIsComputedOnceAndAgainForAnotherLawOrOption) {
    const data::RunTable& table = study_.runs();
    const auto law = fit::shippedLaw("chinchilla");
    ASSERT_TRUE(law);
    an::LawFitOptions options;
    options.resamples = 0;
    options.fit.starts = 2;
    options.fit.refineCount = 2;
    an::LawAnalysis first;
    EXPECT_EQ(computedBy([&] { first = an::fitLawAnalysis(table, study_.settings(), *law, options); }), 1u);
    ASSERT_FALSE(first.error) << *first.error;
    ASSERT_FALSE(first.groups.empty());
    const std::string kept = lawText(first);
    an::LawAnalysis again;
    EXPECT_EQ(computedBy([&] { again = an::fitLawAnalysis(table, study_.settings(), *law, options); }), 0u);
    EXPECT_EQ(again.groups.front().fit.seconds, first.groups.front().fit.seconds) << "the kept fit itself";
    EXPECT_EQ(lawText(again), kept);
    EXPECT_EQ(lawText(an::computeLawAnalysis(table, study_.settings(), *law, options)), kept);
    options.fit.starts = 3;
    EXPECT_EQ(computedBy([&] { (void)an::fitLawAnalysis(table, study_.settings(), *law, options); }), 1u);
    const auto kaplan = fit::shippedLaw("kaplan");
    ASSERT_TRUE(kaplan);
    EXPECT_EQ(computedBy([&] { (void)an::fitLawAnalysis(table, study_.settings(), *kaplan, options); }), 1u);
    EXPECT_EQ(computedBy([&] { (void)an::fitLawAnalysis(withChangedLoss(table), study_.settings(), *kaplan, options); }), 1u);
}

TEST_F(CachedAnalyses, ARuntimeFitIsComputedOnceAndAgainForOtherMeasurementsOrOptions) {
    SCALEX_REQUIRE_SHARED();
    QString error;
    auto measured = data::loadInferenceMeasurements(scalex::test::sharedPath("data/xlstm/inference_results_df_dict_xlstm.csv"), &error);
    ASSERT_TRUE(measured) << error.toStdString();
    const an::RuntimeFitOptions options;
    const auto accelerator = an::paperAcceleratorOr("H100");
    an::RuntimeFitAnalysis first;
    EXPECT_EQ(computedBy([&] { first = an::runtimeFitAnalysis(*measured, options); }), 1u);
    ASSERT_FALSE(first.models.empty());
    const std::string kept = text(an::toJson(first, options, accelerator, true));
    EXPECT_EQ(computedBy([&] { EXPECT_EQ(text(an::toJson(an::runtimeFitAnalysis(*measured, options), options, accelerator, true)), kept); }), 0u);
    EXPECT_EQ(text(an::toJson(an::computeRuntimeFitAnalysis(*measured, options), options, accelerator, true)), kept);
    an::RuntimeFitOptions robust = options;
    robust.robust = !options.robust;
    EXPECT_EQ(computedBy([&] { (void)an::runtimeFitAnalysis(*measured, robust); }), 1u);
    data::InferenceData slower = *measured;
    for (auto& p : slower.points)
        if (p.stepMs > 0) p.stepMs *= 1.5;
    EXPECT_EQ(computedBy([&] { (void)an::runtimeFitAnalysis(slower, options); }), 1u);
}
