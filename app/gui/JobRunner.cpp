#include "app/gui/JobRunner.h"

#include <QPointer>

namespace scalex::gui {

JobRunnerBase::Started JobRunnerBase::begin() {
    cancel();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    pending_ = true;
    const std::uint64_t generation = ++generation_;
    QPointer<JobRunnerBase> self(this);
    // Forwarded to the UI thread when the share done moves by a percent (a fit reports thousands
    // of items) or a phase begins; dropped there when it comes after the job's answer or from a
    // job since replaced (the queue may hold a report behind the answer).
    auto report = [self, generation](std::size_t done, std::size_t total, const QString& phase) {
        QMetaObject::invokeMethod(self, [self, generation, done, total, phase] {
            if (self && self->pending_ && self->generation_ == generation)
                emit self->progressed(static_cast<qint64>(done), static_cast<qint64>(total), phase);
        }, Qt::QueuedConnection);
    };
    return {cancel_, report};
}

fit::FitControl JobRunnerBase::controlOf(const Started& started) {
    fit::FitControl control;
    control.cancel = started.cancel.get();
    auto report = started.report;
    control.progress = [report](std::size_t done, std::size_t total) {
        if (total > 0 && (done == total || done * 100 / total != (done - 1) * 100 / total)) report(done, total, QString());
    };
    control.phase = [report](const char* phase, std::size_t done, std::size_t total) {
        if (done == 0 || total == 0 || done == total || done * 100 / total != (done - 1) * 100 / total)
            report(done, total, QString::fromUtf8(phase));
    };
    return control;
}

void JobRunnerBase::cancel() {
    if (cancel_) cancel_->store(true);
    pending_ = false;
}

void JobRunnerBase::interrupt() {
    if (cancel_) cancel_->store(true);
}

}  // namespace scalex::gui
