#pragma once
// A result that names runs (pointers into the table it was computed from) kept in ResultCache as a
// value: its pointers are stored as indices into that table and set to null, and whoever asks gets
// the result with its pointers into its own table. The key's revision is selectionRevision, which
// is the same only for the same runs at the same indices, so the result is the one an uncached
// computation on the caller's table gives, to the last digit.
//
// A result type says which run pointers it holds with `void visitRuns(T&, const RunVisitor&)`,
// visiting them in one fixed order (SeriesAnalyses.h).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/analysis/ResultCache.h"
#include "core/data/RunTable.h"

namespace scalex::analysis {

using RunVisitor = std::function<void(const data::Run*&)>;

template <class T>
void visitRuns(std::vector<T>& results, const RunVisitor& visit) {
    for (T& r : results) visitRuns(r, visit);
}
template <class T>
void visitRuns(std::optional<T>& result, const RunVisitor& visit) {
    if (result) visitRuns(*result, visit);
}

// A result with its run pointers as indices (-1: null).
template <class T>
struct KeptRuns {
    T value;  // every run pointer null
    std::vector<std::ptrdiff_t> runs;
};

template <class T>
KeptRuns<T> keepRuns(T value, const data::RunTable& table) {
    KeptRuns<T> kept;
    visitRuns(value, [&](const data::Run*& run) {
        kept.runs.push_back(run ? run - table.runs.data() : -1);
        run = nullptr;
    });
    kept.value = std::move(value);
    return kept;
}

template <class T>
T restoreRuns(const KeptRuns<T>& kept, const data::RunTable& table) {
    T value = kept.value;
    std::size_t k = 0;
    visitRuns(value, [&](const data::Run*& run) {
        const std::ptrdiff_t i = kept.runs.at(k++);
        run = i < 0 ? nullptr : &table.runs.at(static_cast<std::size_t>(i));
    });
    return value;
}

// The result of `key` from the shared cache, its runs in `table`; else `compute()` on `table`, kept
// unless `control` was cancelled by then (that result is handed back, not kept); `whenCancelled()`
// where `control` is cancelled while another thread computes it. The key's revision must be
// selectionRevision(table, …).
template <class T>
T cachedWithRuns(const ResultKey& key, const data::RunTable& table, const std::function<T()>& compute,
                 const fit::FitControl& control = {}, const std::function<T()>& whenCancelled = [] { return T{}; }) {
    const KeptRuns<T> kept = ResultCache::shared().getUnlessCancelled<KeptRuns<T>>(
        key, [&] { return keepRuns(compute(), table); }, control, [&] { return keepRuns(whenCancelled(), table); });
    return restoreRuns(kept, table);
}

}  // namespace scalex::analysis
