// The one cache of analysis results (core/analysis/ResultCache.h): a result is computed once for
// the same analysis, scope, options and study revision, and again when any of them changes; a
// thread asking while another computes it waits for that one; the least recently used go first.
#include <gtest/gtest.h>

#include <QJsonObject>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/analysis/ResultCache.h"
#include "core/analysis/RunSelection.h"
#include "core/data/RunTable.h"

namespace an = scalex::analysis;

namespace {

// A result that counts how often it was computed.
struct Counted {
    int calls = 0;
    std::shared_ptr<const double> operator()(double value) {
        ++calls;
        return std::make_shared<const double>(value);
    }
};

an::ResultKey keyOf(const QJsonObject& options, const std::string& revision) {
    return {"slopes", "transformer, T = 8192", an::canonicalJson(options), revision};
}

scalex::data::RunTable tableOf(double loss) {
    scalex::data::RunTable table;
    for (double n : {1e8, 4e8}) {
        scalex::data::Run run;
        run.series = "transformer";
        run.params = n;
        run.tokens = 22 * n;
        run.flops = 6 * n * run.tokens;
        run.valLoss = loss;
        table.runs.push_back(run);
    }
    return table;
}

}  // namespace

TEST(ResultCache, ComputesOnceForTheSameKeyAndAgainWhenAnOptionOrTheRevisionChanges) {
    an::ResultCache cache;
    Counted compute;
    const QJsonObject options{{"huber_delta", 1e-3}, {"gamma", "free"}};
    const std::string revision = an::runsRevision(tableOf(3.1), {});
    const auto first = cache.get<double>(keyOf(options, revision), [&] { return compute(1.0); });
    const auto second = cache.get<double>(keyOf(options, revision), [&] { return compute(2.0); });
    EXPECT_EQ(compute.calls, 1);
    EXPECT_EQ(second, first) << "the kept result itself";
    EXPECT_EQ(*second, 1.0);

    // The same options written in another order are the same key (canonical JSON).
    QJsonObject reordered;
    reordered["gamma"] = "free";
    reordered["huber_delta"] = 1e-3;
    cache.get<double>(keyOf(reordered, revision), [&] { return compute(3.0); });
    EXPECT_EQ(compute.calls, 1);

    // Another option value, or runs with another loss (another revision): computed again.
    const auto otherOption = cache.get<double>(keyOf({{"huber_delta", 1e-2}, {"gamma", "free"}}, revision), [&] { return compute(4.0); });
    EXPECT_EQ(compute.calls, 2);
    EXPECT_EQ(*otherOption, 4.0);
    const std::string changed = an::runsRevision(tableOf(3.2), {});
    EXPECT_NE(changed, revision);
    const auto otherRevision = cache.get<double>(keyOf(options, changed), [&] { return compute(5.0); });
    EXPECT_EQ(compute.calls, 3);
    EXPECT_EQ(*otherRevision, 5.0);
    EXPECT_EQ(cache.size(), 3u);
    EXPECT_EQ(cache.computed(), 3u) << "the count of results computed";

    // find() computes nothing; clear() forgets.
    EXPECT_EQ(cache.find<double>(keyOf(options, revision)), first);
    EXPECT_FALSE(cache.find<double>(keyOf(options, "0:none")));
    cache.clear();
    EXPECT_FALSE(cache.find<double>(keyOf(options, revision)));
}

TEST(ResultCache, TheRevisionIsThatOfTheRunsTheScopeReads) {
    scalex::data::RunTable table = tableOf(3.1);
    table.runs[1].series = "xlstm";
    an::RunFilter transformer;
    transformer.series = "transformer";
    const std::string before = an::runsRevision(table, transformer);
    table.runs[1].valLoss = 2.9;  // a run outside the scope
    EXPECT_EQ(an::runsRevision(table, transformer), before);
    table.runs[0].userIncluded = true;  // ticked in by the user
    EXPECT_NE(an::runsRevision(table, transformer), before);
}

// A result that names runs is kept by the runs it reads at their indices (KeptRuns.h): a run out of
// scope changes nothing, the same runs at other indices or with another cell do.
TEST(ResultCache, TheSelectionRevisionIsThatOfTheRunsReadAtTheirIndices) {
    scalex::data::RunTable table = tableOf(3.1);
    table.runs[1].series = "xlstm";
    an::RunFilter transformer;
    transformer.series = "transformer";
    const std::string before = an::selectionRevision(table, transformer);
    table.runs[1].valLoss = 2.9;  // out of scope
    EXPECT_EQ(an::selectionRevision(table, transformer), before);
    scalex::data::RunTable moved = table;
    moved.runs.insert(moved.runs.begin(), moved.runs[1]);  // the same runs, the one in scope one place later
    EXPECT_NE(an::selectionRevision(moved, transformer), before);
    table.runs[0].sweepLeftOut = "not the best of its sweep: lr 0.004";  // out of scope now, in the sweep
    EXPECT_NE(an::selectionRevision(table, transformer), before);
    table.runs[0].sweepLeftOut.clear();
    table.runs[0].raw.joined = "a cell a law may read";
    EXPECT_NE(an::selectionRevision(table, transformer), before);
}

TEST(ResultCache, AResultNotKeptIsComputedByTheNextAskAndTheOldestGoFirst) {
    an::ResultCache cache(2);
    Counted compute;
    const auto key = [](int k) { return an::ResultKey{"slopes", "s", std::to_string(k), "r"}; };
    EXPECT_FALSE(cache.get<double>(key(0), [&] { ++compute.calls; return std::shared_ptr<const double>(); })) << "cancelled: not kept";
    cache.get<double>(key(0), [&] { return compute(0.0); });
    EXPECT_EQ(compute.calls, 2);
    cache.get<double>(key(1), [&] { return compute(1.0); });
    cache.find<double>(key(0));  // used last
    cache.get<double>(key(2), [&] { return compute(2.0); });
    EXPECT_EQ(cache.size(), 2u);
    EXPECT_TRUE(cache.find<double>(key(0)));
    EXPECT_FALSE(cache.find<double>(key(1))) << "the least recently used went";
    EXPECT_THROW(cache.find<int>(key(0)), std::logic_error) << "one key, one type of result";
}

TEST(ResultCache, AThreadAskingWhileAnotherComputesWaitsForIt) {
    an::ResultCache cache;
    std::atomic<int> calls{0};
    std::atomic<bool> started{false}, release{false};
    const an::ResultKey key{"isoflop-laws", "s", "{}", "r"};
    std::shared_ptr<const double> a, b;
    std::thread first([&] {
        a = cache.get<double>(key, [&] {
            ++calls;
            started = true;
            while (!release) std::this_thread::yield();
            return std::make_shared<const double>(7.0);
        });
    });
    while (!started) std::this_thread::yield();
    std::thread second([&] { b = cache.get<double>(key, [&] { ++calls; return std::make_shared<const double>(8.0); }); });
    release = true;
    first.join();
    second.join();
    EXPECT_EQ(calls, 1);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(*b, 7.0);
}
