#pragma once
// The one cache of analysis results of the process: every view, export, recipe and verb that asks
// for the same result gets the one computed first, so that what a view shows depends on the study
// and the options alone, never on which view asked first, and nothing is computed twice.
//
// A result is kept by what it is made from (ResultKey): the analysis, its scope (the runs it looks
// at), its options as canonical JSON, and the study's revision stamp (a digest of the values of
// the runs it reads, so that a converted project or another window with the same runs shares it).
// A thread that asks for a result another is computing waits for it. The cache is bounded: the
// results used least recently are dropped first.
#include <QJsonObject>
#include <QJsonValue>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <span>
#include <string>
#include <type_traits>
#include <typeindex>

#include "core/analysis/FitTypes.h"

class QCryptographicHash;

namespace scalex::data {
struct RunTable;
}

namespace scalex::analysis {

struct RunFilter;

struct ResultKey {
    std::string analysis;  // "loss-surface", "isoflop-laws", …
    std::string scope;     // the runs looked at ("xlstm, T = 8192, token/param runs")
    std::string options;   // canonicalJson of the options
    std::string revision;  // the study's revision stamp for the runs read (runsRevision)
    friend bool operator==(const ResultKey&, const ResultKey&) = default;
};

// A JSON value as one text: keys sorted, no spaces, numbers in their shortest exact form.
std::string canonicalJson(const QJsonObject& object);
std::string canonicalJson(const QJsonValue& value);

// The revision stamp of the runs of `table` that pass `filter`: their count and a digest of the
// values an analysis reads (N, D, C, loss, context, budget, whether the user ticked the run in).
std::string runsRevision(const data::RunTable& table, const RunFilter& filter);

// The revision stamp of a result that names runs (KeptRuns.h): the runs an analysis of `filter`
// reads (those that pass it, with and without every sweep run), each with its index and what an
// analysis reads or reports of it (ids, source line, series, the numbers, sweep, problems, every
// cell as read). The same stamp: the same runs at the same indices, so a kept result's runs are
// the caller's runs at those indices.
std::string selectionRevision(const data::RunTable& table, const RunFilter& filter);

// A revision stamp made of the values an analysis reads that are not runs (measurements, a fit's
// points): numbers and texts added one after the other.
class RevisionDigest {
public:
    RevisionDigest();
    ~RevisionDigest();
    RevisionDigest(const RevisionDigest&) = delete;
    RevisionDigest& operator=(const RevisionDigest&) = delete;
    RevisionDigest& add(double value) { return addBytes(&value, sizeof value); }
    RevisionDigest& add(const std::string& text);
    // Plain values (points of doubles, with no padding) as their bytes.
    template <class T>
    RevisionDigest& add(std::span<const T> values) {
        static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % sizeof(double) == 0);
        add(static_cast<double>(values.size()));
        return addBytes(values.data(), values.size_bytes());
    }
    std::string result() const;

private:
    RevisionDigest& addBytes(const void* data, std::size_t size);
    std::unique_ptr<QCryptographicHash> hash_;
    std::size_t count_ = 0;
};
template <class T>
std::string valuesRevision(std::span<const T> values) {
    RevisionDigest d;
    d.add(values);
    return d.result();
}
// A number for an options key: finite ones as JSON numbers, others ("inf", "nan") as text.
QJsonValue keyNumber(double value);

class ResultCache {
public:
    explicit ResultCache(std::size_t capacity = 256) : capacity_(capacity) {}
    // The cache of the process.
    static ResultCache& shared();

    // The result of `key`: kept, else computed by `compute` on this thread (another thread that
    // asks meanwhile waits for it). `compute` returns null for a result not to keep (cancelled);
    // null also when `control` is cancelled while waiting for another thread's.
    template <class T>
    std::shared_ptr<const T> get(const ResultKey& key, const std::function<std::shared_ptr<const T>()>& compute,
                                 const fit::FitControl& control = {}) {
        const Claim c = claim(key, typeid(T), control);
        if (c.value) return std::static_pointer_cast<const T>(c.value);
        if (!c.mine) return nullptr;
        std::shared_ptr<const T> made;
        ++computed_;
        try {
            made = compute();
        } catch (...) {
            release(key, nullptr);
            throw;
        }
        release(key, made);
        return made;
    }
    // The result of `key`: kept, else `compute()` (returning a T) on this thread, kept unless
    // `control` was cancelled by then: that result is handed back and not kept. `whenCancelled()`
    // where `control` is cancelled while another thread computes it.
    template <class T, class Compute, class WhenCancelled>
    T getUnlessCancelled(const ResultKey& key, Compute compute, const fit::FitControl& control, WhenCancelled whenCancelled) {
        std::optional<T> handedBack;
        const auto kept = get<T>(
            key,
            [&]() -> std::shared_ptr<const T> {
                T made = compute();
                if (!control.cancelled()) return std::make_shared<const T>(std::move(made));
                handedBack = std::move(made);
                return nullptr;
            },
            control);
        if (kept) return *kept;
        if (handedBack) return std::move(*handedBack);
        return whenCancelled();
    }
    // The kept result of `key`; computes nothing.
    template <class T>
    std::shared_ptr<const T> find(const ResultKey& key) {
        return std::static_pointer_cast<const T>(findValue(key, typeid(T)));
    }
    // Keeps a result computed elsewhere, unless the same key is kept or under way.
    template <class T>
    void put(const ResultKey& key, std::shared_ptr<const T> value) {
        putValue(key, typeid(T), std::move(value));
    }
    void clear();
    std::size_t size() const;
    // How many results this cache has computed (get's `compute` run), since it was made.
    std::size_t computed() const;

private:
    struct Entry {
        ResultKey key;
        std::type_index type;
        std::shared_ptr<const void> value;  // null: under way
        bool underWay = false;
    };
    using Entries = std::list<Entry>;
    // The kept value; else the key claimed for the caller to compute (`mine`), or neither when
    // `control` was cancelled while another thread computed it.
    struct Claim {
        std::shared_ptr<const void> value;
        bool mine = false;
    };
    Claim claim(const ResultKey& key, std::type_index type, const fit::FitControl& control);
    void release(const ResultKey& key, std::shared_ptr<const void> value);
    std::shared_ptr<const void> findValue(const ResultKey& key, std::type_index type);
    void putValue(const ResultKey& key, std::type_index type, std::shared_ptr<const void> value);
    Entries::iterator locate(const ResultKey& key, std::type_index type);
    void dropOldest();

    std::size_t capacity_;
    std::atomic<std::size_t> computed_{0};
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    Entries entries_;  // most recently used last
};

}  // namespace scalex::analysis
