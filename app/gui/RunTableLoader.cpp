#include "app/gui/RunTableLoader.h"

#include <QtConcurrent/QtConcurrentRun>

#include "app/gui/JobPool.h"

namespace scalex::gui {

RunTableLoader::RunTableLoader(QObject* parent) : QObject(parent) {}

RunTableLoader::~RunTableLoader() {
    cancel();
    if (watcher_) watcher_->waitForFinished();
}

void RunTableLoader::start(const QString& path) {
    cancel();
    if (watcher_) {
        // The load before is dropped unseen: its watcher's signal, still queued, finds it replaced.
        watcher_->waitForFinished();
        watcher_ = nullptr;
    }
    path_ = path;
    result_.reset();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    auto cancelled = cancel_;
    auto* result = &result_;
    const std::string file = path.toStdString();
    data::LoadOptions options;
    // From the reading thread: the percentage reaches the window through its event loop.
    options.progress = [this, cancelled, last = -1](double share) mutable {
        const int percent = static_cast<int>(share * 100);
        if (percent != last) {
            last = percent;
            QMetaObject::invokeMethod(this, [this, percent] { emit progressed(percent); }, Qt::QueuedConnection);
        }
        return !*cancelled;
    };
    auto* watcher = new QFutureWatcher<void>(this);
    watcher_ = watcher;
    connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, cancelled] {
        watcher->deleteLater();
        if (watcher != watcher_) return;
        watcher_ = nullptr;
        // A load cancelled after its last check still counts as cancelled: the window keeps its project.
        if (*cancelled) result_ = data::LoadError{path_.toStdString(), 0, "", data::kLoadCancelled};
        emit finished();
    });
    watcher->setFuture(QtConcurrent::run(jobPool(), [file, options, result] { *result = data::loadRunTable(file, options); }));
}

void RunTableLoader::cancel() {
    if (cancel_) *cancel_ = true;
}

data::Expected<data::RunTable> RunTableLoader::takeResult() {
    if (!result_) return data::LoadError{path_.toStdString(), 0, "", data::kLoadCancelled};
    auto out = std::move(*result_);
    result_.reset();
    return out;
}

}  // namespace scalex::gui
