#include "app/gui/JobRunner.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrent>

#include "app/gui/JobPool.h"

namespace scalex::gui {

JobRunner::JobRunner(std::function<void(std::any)> done, QObject* parent)
    : QObject(parent), done_(std::move(done)), watcher_(new QFutureWatcher<std::any>(this)) {
    connect(watcher_, &QFutureWatcherBase::finished, this, &JobRunner::deliver);
}

JobRunner::~JobRunner() {
    if (cancel_) cancel_->store(true);
    watcher_->waitForFinished();
}

void JobRunner::start(Job job) {
    cancel();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    pending_ = true;
    const std::uint64_t generation = ++generation_;
    QPointer<JobRunner> self(this);
    // Forwarded to the UI thread when the share done moves by a percent (a fit reports thousands
    // of items) or a phase begins; dropped there when it comes after the job's answer or from a
    // job since replaced (the queue may hold a report behind the answer).
    auto report = [self, generation](std::size_t done, std::size_t total, const QString& phase) {
        QMetaObject::invokeMethod(self, [self, generation, done, total, phase] {
            if (self && self->pending_ && self->generation_ == generation)
                emit self->progressed(static_cast<qint64>(done), static_cast<qint64>(total), phase);
        }, Qt::QueuedConnection);
    };
    // The watcher follows the new job: the answer of the one it replaces never arrives.
    watcher_->setFuture(QtConcurrent::run(jobPool(), [job = std::move(job), cancel = cancel_, report] {
        fit::FitControl control;
        control.cancel = cancel.get();
        control.progress = [report](std::size_t done, std::size_t total) {
            if (total > 0 && (done == total || done * 100 / total != (done - 1) * 100 / total)) report(done, total, QString());
        };
        control.phase = [report](const char* phase, std::size_t done, std::size_t total) {
            if (done == 0 || total == 0 || done == total || done * 100 / total != (done - 1) * 100 / total)
                report(done, total, QString::fromUtf8(phase));
        };
        if (control.cancelled()) return std::any();  // replaced before it began
        return job(control);
    }));
}

void JobRunner::cancel() {
    if (cancel_) cancel_->store(true);
    pending_ = false;
}

void JobRunner::interrupt() {
    if (cancel_) cancel_->store(true);
}

void JobRunner::finish() {
    if (!pending_) return;
    watcher_->waitForFinished();
    deliver();
}

void JobRunner::deliver() {
    if (!pending_ || !watcher_->isFinished() || watcher_->isCanceled()) return;  // taken already, or replaced
    pending_ = false;
    done_(watcher_->result());
}

}  // namespace scalex::gui
