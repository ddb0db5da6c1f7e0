// The L(N,D) surfaces the figures draw besides the loss-surface view (SurfaceFits.h): each fit is
// made once for the same runs, include toggles, analysis settings and fit settings (in any study),
// and made again when any of them changes; a fit made elsewhere for the same runs is taken; the
// paper's surface stands in only where it is passed (the paper's study).
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <thread>
#include <vector>

#include "core/analysis/Condition.h"
#include "core/analysis/Study.h"
#include "core/analysis/SurfaceFits.h"
#include "core/data/PaperTables.h"
#include "core/data/RunTableIo.h"
#include "tests/support/TestData.h"

namespace an = scalex::analysis;
using scalex::accounting::Family;

namespace {

// The example's runs (datasets/example: Token/Param runs at 8192, IsoFLOP runs at three contexts).
an::Study exampleStudy() {
    an::Study study;
    for (const char* file : {"datasets/example/generated-tokenparam-ctx8192.csv", "datasets/example/generated-isoflop.csv"}) {
        auto table = scalex::data::loadRunTable(scalex::test::sourcePath(file).toStdString());
        EXPECT_TRUE(table) << table.error().toString();
        if (table) study.addRuns(std::move(*table), file);
    }
    return study;
}

// Every other value of each axis of the paper's grid (the loss-surface view's quick grid).
scalex::fit::LossSurfaceSettings quickGrid() {
    scalex::fit::LossSurfaceSettings s;
    auto everyOther = [](const std::vector<double>& axis) {
        std::vector<double> out;
        for (std::size_t i = 0; i < axis.size(); i += 2) out.push_back(axis[i]);
        return out;
    };
    const scalex::fit::InitGrid& g = s.grid;
    s.grid = {everyOther(g.logA), everyOther(g.logB), everyOther(g.logE), everyOther(g.alpha), everyOther(g.beta), everyOther(g.gamma)};
    return s;
}

// A control that counts the starts fitted (0: the fit was kept).
struct Counting {
    std::atomic<std::size_t> items{0};
    scalex::fit::FitControl control() {
        scalex::fit::FitControl c;
        c.progress = [this](std::size_t, std::size_t) { ++items; };
        return c;
    }
};

std::array<double, 6> paramsOf(const an::GroupSurface& s) {
    EXPECT_TRUE(s.surface) << s.problem;
    return s.surface ? s.surface->asArray() : std::array<double, 6>{};
}

}  // namespace

TEST(SurfaceFits, AFitIsMadeOnceForTheSameRunsAndSettings) {
    an::Study study = exampleStudy();
    const auto group = an::surfaceGroup(study.runs(), study.settings(), "transformer");
    ASSERT_TRUE(group);
    EXPECT_EQ(group->context, 8192) << "the paper's context, where the example has its Token/Param runs";
    EXPECT_EQ(group->filter.experimentSet, scalex::data::ExperimentSet::TokenParam);
    const auto grid = quickGrid();

    Counting first;
    const an::GroupSurface a = an::groupSurface(study.runs(), study.settings(), *group, grid, first.control());
    EXPECT_GT(first.items, 0u);
    Counting second;
    const an::GroupSurface b = an::groupSurface(study.runs(), study.settings(), *group, grid, second.control());
    EXPECT_EQ(second.items, 0u) << "the same runs and settings: the fit kept";
    EXPECT_EQ(paramsOf(a), paramsOf(b));
    ASSERT_TRUE(an::keptGroupSurface(study.runs(), study.settings(), *group, grid));

    // The same runs loaded again (another study, as another window or a render has): the same fit.
    const an::Study reloaded = exampleStudy();
    EXPECT_NE(reloaded.runsRevision(), study.runsRevision());
    Counting other;
    EXPECT_EQ(paramsOf(an::groupSurface(reloaded.runs(), reloaded.settings(), *group, grid, other.control())), paramsOf(a));
    EXPECT_EQ(other.items, 0u);

    // Other analysis settings: another fit.
    an::AnalysisSettings wider = study.settings();
    wider.huberDelta = 1e-2;
    Counting widened;
    const an::GroupSurface c = an::groupSurface(study.runs(), wider, *group, grid, widened.control());
    EXPECT_GT(widened.items, 0u);
    EXPECT_NE(paramsOf(c), paramsOf(a));

    // A run of the group left out (which changes no revision of the runs) is another fit.
    const auto revision = study.runsRevision();
    int left = -1;
    for (int i = 0; i < static_cast<int>(study.runs().runs.size()) && left < 0; ++i)
        if (an::passes(study.runs().runs[static_cast<std::size_t>(i)], group->filter)) left = i;
    ASSERT_GE(left, 0);
    ASSERT_TRUE(study.setIncluded(left, false));
    EXPECT_EQ(study.runsRevision(), revision);
    Counting toggled;
    const an::GroupSurface d = an::groupSurface(study.runs(), study.settings(), *group, grid, toggled.control());
    EXPECT_GT(toggled.items, 0u);
    EXPECT_NE(paramsOf(d), paramsOf(a));
}

// The loss-surface view's fit, kept for the same key, is what the other views take; two jobs
// asking for one fit at once make it once.
TEST(SurfaceFits, AFitMadeElsewhereOrUnderWayIsTaken) {
    const an::Study study = exampleStudy();
    const auto group = an::surfaceGroup(study.runs(), study.settings(), "xlstm");
    ASSERT_TRUE(group);
    const auto grid = quickGrid();
    const auto fitSettings = an::lossSurfaceSettings(study.settings(), grid);
    const an::LossSurfaceAnalysis analysis = an::lossSurfaceAnalysis(study.runs(), study.settings(), *group, fitSettings);
    ASSERT_FALSE(analysis.error);
    an::keepGroupSurface(study.runs(), study.settings(), *group, fitSettings, analysis);
    Counting taken;
    const an::GroupSurface s = an::groupSurface(study.runs(), study.settings(), *group, grid, taken.control());
    EXPECT_EQ(taken.items, 0u);
    EXPECT_EQ(paramsOf(s), analysis.fit.best.asArray());

    // The same fit asked for by two threads at once (the transformer's at γ = 1): made once.
    an::AnalysisSettings fixed = study.settings();
    fixed.fitGamma = false;
    const auto transformer = an::surfaceGroup(study.runs(), fixed, "transformer");
    ASSERT_TRUE(transformer);
    Counting once;  // the items of one fit, not kept
    an::computeLossSurfaceAnalysis(study.runs(), fixed, *transformer, an::lossSurfaceSettings(fixed, grid), once.control());
    Counting both;
    std::vector<an::GroupSurface> results(2);
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < 2; ++k)
        threads.emplace_back([&, k] { results[k] = an::groupSurface(study.runs(), fixed, *transformer, grid, both.control()); });
    for (auto& t : threads) t.join();
    EXPECT_EQ(both.items.load(), once.items.load());
    EXPECT_EQ(paramsOf(results[0]), paramsOf(results[1]));
}

// A family's surface: its own runs' fit where they give one, else the paper's where it is passed
// (the paper's study), else none with the reason.
TEST(SurfaceFits, AFamilyTakesThePapersSurfaceOnlyWhereItIsPassed) {
    const an::Study study = exampleStudy();
    // The paper's tables from the source tree (the program reads them from its resources).
    const auto tables = scalex::data::loadPaperTables(scalex::test::sourcePath("datasets/paper"));
    ASSERT_TRUE(tables) << tables.error().toString();
    const auto paper = an::paperSurface(*tables, Family::Xlstm, study.settings().huberDelta);
    ASSERT_TRUE(paper);
    const an::FamilySurface own = an::familySurface(study.runs(), study.settings(), Family::Xlstm, std::nullopt, paper);
    ASSERT_TRUE(own.surface);
    EXPECT_FALSE(own.paper);
    EXPECT_EQ(own.fittedTo, "xLSTM, T = 8192");
    EXPECT_NE(own.surface->asArray(), paper->asArray());

    // Three Token/Param runs are too few for the six parameters.
    an::AnalysisSettings few = study.settings();
    few.scope.where = {*an::parseCondition("num_params>5e9")};
    const an::FamilySurface fallback = an::familySurface(study.runs(), few, Family::Xlstm, 8192.0, paper);
    EXPECT_TRUE(fallback.paper);
    ASSERT_TRUE(fallback.surface);
    EXPECT_EQ(fallback.surface->asArray(), paper->asArray());
    EXPECT_NE(fallback.problem.find("the L(N,D) fit needs at least 6"), std::string::npos) << fallback.problem;
    const an::FamilySurface none = an::familySurface(study.runs(), few, Family::Xlstm, 8192.0, std::nullopt);
    EXPECT_FALSE(none.surface);
    EXPECT_FALSE(none.paper);
    EXPECT_FALSE(none.problem.empty());
}
