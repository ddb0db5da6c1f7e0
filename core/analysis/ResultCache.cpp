#include "core/analysis/ResultCache.h"

#include <QByteArrayView>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <chrono>

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
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::size_t count = 0;
    for (const auto& run : table.runs) {
        if (!passes(run, filter)) continue;
        const double values[] = {run.params, run.tokens, run.flops, run.loss(), run.context, run.budget, run.userIncluded.value_or(false) ? 1.0 : 0.0};
        hash.addData(QByteArrayView(reinterpret_cast<const char*>(values), sizeof values));
        ++count;
    }
    return std::to_string(count) + ":" + hash.result().toHex().toStdString();
}

ResultCache& ResultCache::shared() {
    static ResultCache cache;
    return cache;
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

std::size_t ResultCache::size() const {
    std::lock_guard lock(mutex_);
    std::size_t kept = 0;
    for (const auto& e : entries_) kept += e.underWay ? 0 : 1;
    return kept;
}

}  // namespace scalex::analysis
