#pragma once
// The views' one way of running long work (a figure's fits, bootstraps, frontiers): a job on the
// views' pool (JobPool.h), one at a time per runner. Starting a job cancels the one under way and
// drops its answer, so what arrives is always the answer to the last question asked; it reaches
// the view on the UI thread. Progress the job reports (fit::FitControl) comes as signals on the UI
// thread too. `finish()` waits for the answer at once (headless renders, exports, tests).
#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <any>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

#include "core/analysis/FitTypes.h"

namespace scalex::gui {

class JobRunner : public QObject {
    Q_OBJECT
public:
    using Job = std::function<std::any(const fit::FitControl& control)>;
    // `done` takes the answer of the last job started (not of one it replaced).
    JobRunner(std::function<void(std::any answer)> done, QObject* parent);
    // Cancels the job under way and waits for it: nothing of it outlives the view.
    ~JobRunner() override;

    // Starts `job` (which holds copies of what it reads), cancelling the one under way.
    void start(Job job);
    // Stops the job under way; its answer is dropped.
    void cancel();
    // Stops the job under way; its answer, cut short, still arrives (a Cancel button).
    void interrupt();
    // A job started whose answer has not been delivered.
    bool running() const { return pending_; }
    // Waits for the job under way, if any, and delivers its answer now.
    void finish();
    // The job under way (another job, such as a table export, may wait for its answer).
    QFuture<std::any> future() const { return watcher_->future(); }

signals:
    // The job's progress: `done` of `total` items of its present phase (named from the second on).
    void progressed(qint64 done, qint64 total, const QString& phase);

private:
    void deliver();
    std::function<void(std::any)> done_;
    QFutureWatcher<std::any>* watcher_;
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool pending_ = false;
    std::uint64_t generation_ = 0;  // of the last job started: its progress alone is shown
};

}  // namespace scalex::gui
