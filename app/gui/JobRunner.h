#pragma once
// The views' one way of running long work (a figure's fits, bootstraps, frontiers): a job on the
// views' pool (JobPool.h), one at a time per runner. Starting a job cancels the one under way and
// drops its answer, so what arrives is always the answer to the last question asked; it reaches
// the view on the UI thread, typed (JobRunner<Answer>). Progress the job reports (fit::FitControl)
// comes as signals on the UI thread too. `finish()` waits for the answer at once (headless renders,
// exports, tests).
#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QtConcurrent/QtConcurrent>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "app/gui/JobPool.h"
#include "core/analysis/FitTypes.h"

namespace scalex::gui {

// What every runner shares whatever its answer: cancelling, progress signals, the generation of
// the job started last.
class JobRunnerBase : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    // Stops the job under way; its answer is dropped.
    void cancel();
    // Stops the job under way; its answer, cut short, still arrives (a Cancel button).
    void interrupt();
    // A job started whose answer has not been delivered.
    bool running() const { return pending_; }

signals:
    // The job's progress: `done` of `total` items of its present phase (named from the second on).
    void progressed(qint64 done, qint64 total, const QString& phase);

protected:
    // Cancels the job under way and readies the next: its cancel flag and the progress reports
    // of its control, forwarded to the UI thread.
    struct Started {
        std::shared_ptr<std::atomic<bool>> cancel;
        std::function<void(std::size_t, std::size_t, const QString&)> report;
    };
    Started begin();
    // The control a job runs under on the worker thread.
    static fit::FitControl controlOf(const Started& started);
    void stopAtEnd() {
        if (cancel_) cancel_->store(true);
    }
    std::shared_ptr<std::atomic<bool>> cancel_;
    bool pending_ = false;
    std::uint64_t generation_ = 0;  // of the last job started: its progress alone is shown
};

template <class Answer>
class JobRunner : public JobRunnerBase {
public:
    using Job = std::function<Answer(const fit::FitControl& control)>;
    // `done` takes the answer of the last job started (not of one it replaced).
    JobRunner(std::function<void(Answer answer)> done, QObject* parent)
        : JobRunnerBase(parent), done_(std::move(done)), watcher_(new QFutureWatcher<std::optional<Answer>>(this)) {
        connect(watcher_, &QFutureWatcherBase::finished, this, [this] { deliver(); });
    }
    // Cancels the job under way and waits for it: nothing of it outlives the view.
    ~JobRunner() override {
        stopAtEnd();
        watcher_->waitForFinished();
    }

    // Starts `job` (which holds copies of what it reads), cancelling the one under way.
    void start(Job job) {
        Started started = begin();
        // The watcher follows the new job: the answer of the one it replaces never arrives.
        watcher_->setFuture(QtConcurrent::run(jobPool(), [job = std::move(job), started]() -> std::optional<Answer> {
            const fit::FitControl control = controlOf(started);
            if (control.cancelled()) return std::nullopt;  // replaced before it began
            return job(control);
        }));
    }
    // Waits for the job under way, if any, and delivers its answer now.
    void finish() {
        if (!pending_) return;
        watcher_->waitForFinished();
        deliver();
    }
    // The job under way (another job, such as a table export, may wait for its answer); no
    // answer when it was replaced before it began.
    QFuture<std::optional<Answer>> future() const { return watcher_->future(); }

private:
    void deliver() {
        if (!pending_ || !watcher_->isFinished() || watcher_->isCanceled()) return;  // taken already, or replaced
        pending_ = false;
        std::optional<Answer> answer = watcher_->result();
        if (answer) done_(std::move(*answer));
    }
    std::function<void(Answer)> done_;
    QFutureWatcher<std::optional<Answer>>* watcher_;
};

}  // namespace scalex::gui
