#pragma once
// Reads a run table on the job pool (JobPool.h) so that the window keeps drawing while a large
// study loads: progress as the share of the file read, and cancel.
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <atomic>
#include <memory>
#include <optional>

#include "core/data/RunTableIo.h"

namespace scalex::gui {

class RunTableLoader : public QObject {
    Q_OBJECT
public:
    explicit RunTableLoader(QObject* parent = nullptr);
    // Cancels a load under way and waits for it.
    ~RunTableLoader() override;

    // Starts reading `path` (a load under way is cancelled first).
    void start(const QString& path);
    void cancel();
    bool busy() const { return watcher_ != nullptr; }
    QString path() const { return path_; }
    // The table read, or its error (data::kLoadCancelled when cancelled); once, after finished().
    data::Expected<data::RunTable> takeResult();

signals:
    void progressed(int percent);
    void finished();

private:
    QFutureWatcher<void>* watcher_ = nullptr;  // of the load under way
    std::shared_ptr<std::atomic<bool>> cancel_;
    std::optional<data::Expected<data::RunTable>> result_;
    QString path_;
};

}  // namespace scalex::gui
