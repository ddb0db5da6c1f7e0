#include "core/analysis/ResultCache.h"

#include <QByteArrayView>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <chrono>
#include <cmath>

#include "core/analysis/RunSelection.h"
#include "core/data/RunTable.h"

namespace scalex::analysis {

std::string canonicalJson(const QJsonObject& object) {
    // QJsonObject keeps its keys sorted, and QJsonDocument writes doubles in their shortest exact form.
    return QJsonDocument(object).toJson(QJsonDocument::Compact).toStdString();
}

std::string canonicalJson(const QJsonValue& value) {
    QJsonArray wrapped{value};
    const std::string text = QJsonDocument(wrapped).toJson(QJsonDocument::Compact).toStdString();
    return text.substr(1, text.size() - 2);  // without the array's brackets
}

std::string runsRevision(const data::RunTable& table, const RunFilter& filter) {
    RevisionDigest d;
    for (const auto& run : table.runs) {
        if (!passes(run, filter)) continue;
        const double values[] = {run.params, run.tokens, run.flops, run.loss(), run.context, run.budget, run.userIncluded.value_or(false) ? 1.0 : 0.0};
        d.add(std::span<const double>(values));
    }
    return d.result();
}

RevisionDigest::RevisionDigest() : hash_(std::make_unique<QCryptographicHash>(QCryptographicHash::Sha256)) {}
RevisionDigest::~RevisionDigest() = default;

RevisionDigest& RevisionDigest::addBytes(const void* data, std::size_t size) {
    hash_->addData(QByteArrayView(static_cast<const char*>(data), static_cast<qsizetype>(size)));
    ++count_;
    return *this;
}

RevisionDigest& RevisionDigest::add(const std::string& text) {
    add(static_cast<double>(text.size()));
    return addBytes(text.data(), text.size());
}

std::string RevisionDigest::result() const { return std::to_string(count_) + ":" + hash_->result().toHex().toStdString(); }

std::string selectionRevision(const data::RunTable& table, const RunFilter& filter) {
    RevisionDigest d;
    RunFilter everySweepRun = filter;
    everySweepRun.allSweepRuns = true;
    const std::vector<std::string>* header = nullptr;
    for (std::size_t i = 0; i < table.runs.size(); ++i) {
        const data::Run& run = table.runs[i];
        // An analysis reads the runs in scope and those their sweep's best stands for, no other.
        const bool in = passes(run, filter), inSweep = passes(run, everySweepRun);
        if (!in && !inSweep) continue;
        const double values[] = {static_cast<double>(i), in ? 1.0 : 0.0, inSweep ? 1.0 : 0.0,
                                 run.params, run.tokens, run.flops, run.loss(), run.context, run.budget,
                                 run.userIncluded ? (*run.userIncluded ? 1.0 : 0.0) : -1.0,
                                 static_cast<double>(run.sourceLine), static_cast<double>(run.problems.size()),
                                 static_cast<double>(run.experimentSet), run.family ? static_cast<double>(*run.family) : -1.0,
                                 static_cast<double>(run.dModel), static_cast<double>(run.nLayers), static_cast<double>(run.nHeads),
                                 static_cast<double>(run.nKvHeads), static_cast<double>(run.dFf), static_cast<double>(run.vocab)};
        d.add(std::span<const double>(values));
        for (const std::string* text : {&run.runId, &run.name, &run.series, &run.sweepLeftOut, &run.raw.joined}) d.add(*text);
        // Every cell as read: laws and conditions may read any column.
        if (run.raw.header && run.raw.header.get() != header) {
            header = run.raw.header.get();
            for (const std::string& column : *header) d.add(column);
        }
    }
    return d.result();
}

QJsonValue keyNumber(double value) { return std::isfinite(value) ? QJsonValue(value) : QJsonValue(QString::number(value)); }

ResultCache& ResultCache::shared() {
    // Never destroyed: a job the window superseded may still be finishing on a worker thread while
    // the program exits (an error in its options after the window was made), and it stores its
    // result here after the static destructors have run.
    static ResultCache* cache = new ResultCache;
    return *cache;
}

ResultCache::Entries::iterator ResultCache::locate(const ResultKey& key, std::type_index type) {
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
        if (it->key == key) {
            // The analysis names the type of its result: one key with two types is a bug.
            if (it->type != type) throw std::logic_error("ResultCache: the result of '" + key.analysis + "' asked for as another type");
            return it;
        }
    return entries_.end();
}

ResultCache::Claim ResultCache::claim(const ResultKey& key, std::type_index type, const fit::FitControl& control) {
    std::unique_lock lock(mutex_);
    for (;;) {
        const auto it = locate(key, type);
        if (it == entries_.end()) {
            entries_.push_back({key, type, nullptr, true});
            return {nullptr, true};
        }
        if (!it->underWay) {
            entries_.splice(entries_.end(), entries_, it);  // used last
            return {it->value, false};
        }
        if (control.cancelled()) return {};
        changed_.wait_for(lock, std::chrono::milliseconds(20));  // and look at the cancel flag again
    }
}

void ResultCache::release(const ResultKey& key, std::shared_ptr<const void> value) {
    {
        std::lock_guard lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->key == key && it->underWay) {
                if (value) {
                    it->value = std::move(value);
                    it->underWay = false;
                    entries_.splice(entries_.end(), entries_, it);
                } else {
                    entries_.erase(it);  // left to the next that asks
                }
                break;
            }
        dropOldest();
    }
    changed_.notify_all();
}

std::shared_ptr<const void> ResultCache::findValue(const ResultKey& key, std::type_index type) {
    std::lock_guard lock(mutex_);
    const auto it = locate(key, type);
    if (it == entries_.end() || it->underWay) return nullptr;
    entries_.splice(entries_.end(), entries_, it);
    return it->value;
}

void ResultCache::putValue(const ResultKey& key, std::type_index type, std::shared_ptr<const void> value) {
    if (!value) return;
    {
        std::lock_guard lock(mutex_);
        if (locate(key, type) != entries_.end()) return;
        entries_.push_back({key, type, std::move(value), false});
        dropOldest();
    }
    changed_.notify_all();
}

void ResultCache::dropOldest() {
    std::size_t kept = 0;
    for (const auto& e : entries_) kept += e.underWay ? 0 : 1;
    for (auto it = entries_.begin(); kept > capacity_ && it != entries_.end();)
        if (!it->underWay) it = entries_.erase(it), --kept;
        else ++it;
}

void ResultCache::clear() {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();)
        if (!it->underWay) it = entries_.erase(it);
        else ++it;
}

std::size_t ResultCache::computed() const { return computed_; }

std::size_t ResultCache::size() const {
    std::lock_guard lock(mutex_);
    std::size_t kept = 0;
    for (const auto& e : entries_) kept += e.underWay ? 0 : 1;
    return kept;
}

}  // namespace scalex::analysis
