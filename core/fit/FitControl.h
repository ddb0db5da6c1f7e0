#pragma once
// How long-running fits (multi-start optimisation, bootstraps) are run: how many worker threads,
// a cancellation flag the caller may set from any thread, and a progress callback.
#include <atomic>
#include <cstddef>
#include <functional>

namespace scalex::fit {

struct FitControl {
    int threads = 0;                             // worker threads; 0 = every core
    const std::atomic<bool>* cancel = nullptr;   // set to true to stop handing out work
    // Called after each finished work item with (done, total). Calls are serialised, but they come
    // from worker threads: a GUI must forward them to its own thread.
    std::function<void(std::size_t done, std::size_t total)> progress;
    // Long fits in several phases (the L(N,D) fit: screening every start, then refining the best
    // and each distinct optimum on every run) name each later phase and count its items, so a
    // progress bar does not stand still at 100 % while they run. Same threading as `progress`.
    std::function<void(const char* phase, std::size_t done, std::size_t total)> phase;

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// Runs body(i) for every i in [0, n) on the control's threads (indices are handed out one by
// one, so the assignment of items to threads does not matter for the results). Stops handing out
// items once cancelled. Returns how many items ran. body must be safe to call concurrently for
// different i.
std::size_t parallelFor(std::size_t n, const FitControl& control, const std::function<void(std::size_t)>& body);

// The number of threads `control` asks for, resolved against the machine.
int resolvedThreads(const FitControl& control);

}  // namespace scalex::fit
