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
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <typeindex>

#include "core/analysis/FitTypes.h"

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
        try {
            made = compute();
        } catch (...) {
            release(key, nullptr);
            throw;
        }
        release(key, made);
        return made;
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
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    Entries entries_;  // most recently used last
};

}  // namespace scalex::analysis
