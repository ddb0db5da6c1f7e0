// A view's table export after its figure was drawn, on the built-in example, headless (as a recipe's
// render followed by `scalex render --table` in one process, or the window's Export dialog after the
// view was shown):
// - cold: the result cache emptied every round, so the figure's analyses and the table's intervals
//   are all computed again (what every export did before results were kept);
// - cached: the figure drawn once before the rounds; each round makes a new figure of the view,
//   computes and draws it and exports its tables, reading every analysis from the cache.
// Both rounds draw the figure, so the difference is the computation the cache saves.
#include <benchmark/benchmark.h>

#include <QApplication>

#include "app/figures/ViewFigure.h"
#include "core/analysis/ResultCache.h"
#include "core/analysis/Study.h"
#include "core/data/Project.h"

static void initResources() { Q_INIT_RESOURCE(scalex); }

namespace {

const scalex::analysis::Study& example() {
    static const scalex::analysis::Study study = [] {
        static int argc = 1;
        static char name[] = "scalex_cache_bench";
        static char* argv[] = {name, nullptr};
        if (!QApplication::instance()) {
            qputenv("QT_QPA_PLATFORM", "offscreen");
            new QApplication(argc, argv);
            initResources();
        }
        QString error;
        auto project = scalex::data::loadExampleProject(&error);
        if (!project) qFatal("cannot open the example: %s", qPrintable(error));
        scalex::analysis::Study s;
        s.setProject(std::move(*project));
        return s;
    }();
    return study;
}

// A new figure of `view`, computed and drawn, and its tables exported: the rows of its first table.
std::size_t drawAndExport(const QString& view) {
    const scalex::analysis::Study& study = example();
    const scalex::figures::FigureInput in{&study};
    auto figure = scalex::figures::makeFigure(view);
    figure->refresh(in);
    figure->compute(in);
    figure->draw(in);
    const auto job = figure->tablesJob(in);
    const auto tables = job ? job(scalex::fit::FitControl{}) : std::vector<scalex::figures::FigureTable>{};
    return tables.empty() ? 0 : tables.front().table.rows.size();
}

void BM_TableAfterDraw(benchmark::State& state, const QString& view, bool cached) {
    auto& cache = scalex::analysis::ResultCache::shared();
    cache.clear();
    std::size_t rows = drawAndExport(view);  // the draw the export follows
    const std::size_t before = cache.computed();
    for (auto _ : state) {
        if (!cached) cache.clear();
        rows = drawAndExport(view);
    }
    state.counters["rows"] = static_cast<double>(rows);
    state.counters["computed_per_round"] =
        static_cast<double>(cache.computed() - before) / static_cast<double>(std::max<benchmark::IterationCount>(state.iterations(), 1));
}

const bool registered = [] {
    for (const QString view : {"isoflop", "overtraining", "pareto", "context", "laws", "surface", "optimal"})
        for (const bool cached : {false, true})
            benchmark::RegisterBenchmark(("BM_TableAfterDraw/" + view + (cached ? "/cached" : "/cold")).toStdString().c_str(),
                                         [view, cached](benchmark::State& s) { BM_TableAfterDraw(s, view, cached); })
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
    return true;
}();

}  // namespace
