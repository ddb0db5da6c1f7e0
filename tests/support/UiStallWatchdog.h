#pragma once
// Pings the UI thread every few milliseconds from a thread of its own; the time a ping waits for
// its answer is the UI thread's stall (its event-loop latency). Each stall is charged to the action
// under way when the answer came (`current`, set by the UI thread). Used by the random-actions test
// and the window's benchmarks. SCALEX_STALL_REPORT_MS=N prints every stall longer than N ms.
// Beside the wall time a stall lasted it measures the CPU time the UI thread spent in it: on a
// machine busy with other work the wall time stretches, the UI thread's own work does not.
#include <QMetaObject>
#include <QObject>
#include <QString>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <pthread.h>
#include <thread>

namespace scalex::test {

class UiStallWatchdog {
public:
    using Clock = std::chrono::steady_clock;
    // Made on the UI thread.
    UiStallWatchdog() : receiver_(new QObject) {
        pthread_getcpuclockid(pthread_self(), &uiClock_);
        thread_ = std::thread([this] {
            while (!stop_) {
                if (!pending_.exchange(true)) {
                    const auto sent = Clock::now();
                    const double sentCpu = uiCpuMs();
                    QMetaObject::invokeMethod(receiver_.get(), [this, sent, sentCpu] { answer(sent, sentCpu); }, Qt::QueuedConnection);
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
            }
        });
    }
    ~UiStallWatchdog() {
        stop_ = true;
        thread_.join();
        receiver_.reset();  // drops an unanswered ping
    }
    UiStallWatchdog(const UiStallWatchdog&) = delete;
    UiStallWatchdog& operator=(const UiStallWatchdog&) = delete;

    // Names the action a stall was charged to once the action knows its name.
    void rename(const QString& from, const QString& to) {
        if (longestAction_ == from) longestAction_ = to;
        if (longestCpuAction_ == from) longestCpuAction_ = to;
    }
    QString current;
    double longestMs() const { return longestMs_; }
    QString longestAction() const { return longestAction_; }
    // The most CPU time the UI thread spent in one stall, and the action it was charged to.
    double longestCpuMs() const { return longestCpuMs_; }
    QString longestCpuAction() const { return longestCpuAction_; }

private:
    double uiCpuMs() const {
        timespec t{};
        clock_gettime(uiClock_, &t);
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    }
    void answer(Clock::time_point sent, double sentCpu) {
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - sent).count();
        const double cpuMs = uiCpuMs() - sentCpu;
        static const double reportMs = qEnvironmentVariableIsSet("SCALEX_STALL_REPORT_MS") ? qEnvironmentVariable("SCALEX_STALL_REPORT_MS").toDouble() : 0;
        // The stall's end on the monotonic clock, to find it in a profile (`perf record -k CLOCK_MONOTONIC`).
        if (reportMs > 0 && ms > reportMs)
            std::printf("stall %.0f ms (UI thread CPU %.0f ms) during %s (ended at %.3f s monotonic)\n", ms, cpuMs, qPrintable(current),
                        std::chrono::duration<double>(Clock::now().time_since_epoch()).count());
        if (ms > longestMs_) {
            longestMs_ = ms;
            longestAction_ = current;
        }
        if (cpuMs > longestCpuMs_) {
            longestCpuMs_ = cpuMs;
            longestCpuAction_ = current;
        }
        pending_ = false;
    }
    std::unique_ptr<QObject> receiver_;
    std::thread thread_;
    std::atomic<bool> stop_{false}, pending_{false};
    clockid_t uiClock_{};
    double longestMs_ = 0, longestCpuMs_ = 0;
    QString longestAction_, longestCpuAction_;
};

}  // namespace scalex::test
