#include "core/fit/FitControl.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace scalex::fit {

int resolvedThreads(const FitControl& control) {
    if (control.threads > 0) return control.threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t parallelFor(std::size_t n, const FitControl& control, const std::function<void(std::size_t)>& body) {
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> done{0};
    std::mutex progressMutex;
    std::exception_ptr failure;
    std::mutex failureMutex;
    auto worker = [&] {
        for (;;) {
            if (control.cancelled()) return;
            const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n) return;
            try {
                body(i);
            } catch (...) {
                std::lock_guard lock(failureMutex);
                if (!failure) failure = std::current_exception();
                next.store(n);  // stop the others
                return;
            }
            const std::size_t finished = done.fetch_add(1) + 1;
            if (control.progress) {
                std::lock_guard lock(progressMutex);
                control.progress(finished, n);
            }
        }
    };
    const int threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(resolvedThreads(control)), std::max<std::size_t>(n, 1)));
    if (threads <= 1) {
        worker();
    } else {
        std::vector<std::thread> pool;
        pool.reserve(static_cast<std::size_t>(threads));
        for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
        for (auto& t : pool) t.join();
    }
    if (failure) std::rethrow_exception(failure);
    return done.load();
}

}  // namespace scalex::fit
