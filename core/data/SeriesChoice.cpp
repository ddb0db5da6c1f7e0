#include "core/data/SeriesChoice.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/data/ColumnMapping.h"
#include "core/data/Series.h"
#include "core/data/Sweeps.h"

namespace scalex::data {

namespace {

bool positive(double v) { return known(v) && v > 0 && std::isfinite(v); }

// Columns that name a study or an experiment in merged collections, after the model-like ones.
constexpr std::string_view kExperimentColumns[] = {"experiment", "experiment_name", "exp", "exp_name", "study",
                                                   "source",     "paper",           "project", "dataset", "collection",
                                                   "origin",     "lab",             "organization", "organisation",
                                                   "sweep",      "sweep_name",      "task", "reference"};

std::string joinColumns(const std::vector<std::string>& columns) {
    if (columns.empty()) return "the file";
    std::string s;
    for (const auto& c : columns) s += (s.empty() ? "" : " / ") + c;
    return s;
}

// Pairs of candidates are weighed only when no single column will do; a table with many
// candidate columns stops at these.
constexpr std::size_t kMaxPairCandidates = 8;

}  // namespace

std::vector<std::string> seriesCandidateColumns(const RunTable& table) {
    const Run* first = nullptr;
    for (const auto& r : table.runs)
        if (r.raw.header) {
            first = &r;
            break;
        }
    if (!first) return {};
    std::vector<std::string> wanted;
    for (auto f : {RunField::Series, RunField::Family})
        for (auto s : fieldSpellings(f)) wanted.emplace_back(s);
    for (auto s : seriesColumnSpellings()) wanted.emplace_back(s);
    for (auto s : kExperimentColumns) wanted.emplace_back(s);
    std::vector<std::string> out;
    for (const auto& w : wanted)
        for (const auto& h : *first->raw.header)
            if (normalizeColumnName(h) == w && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
    return out;
}

GroupingConsidered weighGrouping(const RunTable& table, const std::vector<std::string>& columns) {
    GroupingConsidered g;
    g.columns = columns;
    const std::vector<std::string> hyper = hyperparameterColumns(table);
    // Where each run would sit: (series, context, N, D or budget), N and D to one part in a million.
    using Key = std::tuple<std::string, double, long long, long long, bool>;
    std::map<Key, std::vector<const Run*>> at;
    std::map<std::string, std::set<long long>> sizes;
    std::set<long long> allSizes;
    std::set<std::string> names;
    for (const auto& r : table.runs) {
        if (r.intermediateCheckpoint || r.hasProblems() || !std::isfinite(r.loss())) continue;
        const std::string series = seriesValue(r, columns);
        names.insert(series);  // a table with no N column has series too
        if (!positive(r.params)) continue;
        const long long n = std::llround(std::log(r.params) * 1e6);
        sizes[series].insert(n);
        allSizes.insert(n);
        const bool byTokens = positive(r.tokens);
        const double second = byTokens ? r.tokens : r.budget;
        if (!positive(second)) continue;
        at[{series, known(r.context) ? r.context : -1.0, n, std::llround(std::log(second) * 1e6), byTokens}].push_back(&r);
    }
    g.series = names.size();
    for (const auto& [key, runs] : at) {
        bool clash = false;
        for (std::size_t i = 0; i < runs.size() && !clash; ++i)
            for (std::size_t j = i + 1; j < runs.size() && !clash; ++j)
                clash = differingColumns(*runs[i], *runs[j], hyper).empty();
        if (clash) ++g.clashes;
    }
    // A column that names the size: every series one model size, where the runs have several. The
    // file's series and family columns say what a series is, so only the other candidates can.
    const bool declared = columns.size() == 1 && [&] {
        const auto f = fieldBySpelling(columns.front());
        return f && (*f == RunField::Series || *f == RunField::Family);
    }();
    g.singleSize = !declared && allSizes.size() > 1 &&
                   std::all_of(sizes.begin(), sizes.end(), [](const auto& s) { return s.second.size() <= 1; });
    return g;
}

SeriesChoice chooseSeriesGrouping(const RunTable& table) {
    SeriesChoice choice;
    const std::vector<std::string> candidates = seriesCandidateColumns(table);
    auto& weighed = choice.considered;
    for (const auto& c : candidates) weighed.push_back(weighGrouping(table, {c}));
    auto fits = [](const GroupingConsidered& g) { return g.clashes == 0 && !g.singleSize; };
    auto found = std::find_if(weighed.begin(), weighed.end(), fits);
    if (found == weighed.end() && candidates.size() > 1) {
        const std::size_t n = std::min(candidates.size(), kMaxPairCandidates);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j) weighed.push_back(weighGrouping(table, {candidates[i], candidates[j]}));
        found = std::find_if(weighed.begin(), weighed.end(), fits);
    }
    // One series per file: the last resort, and the only grouping of a file with no candidate.
    if (found == weighed.end()) {
        weighed.push_back(weighGrouping(table, {}));
        found = std::find_if(weighed.begin(), weighed.end(), fits);
    }
    // No grouping keeps every experiment apart: the one with the fewest clashes, sizes never series.
    if (found == weighed.end()) {
        found = std::min_element(weighed.begin(), weighed.end(), [](const GroupingConsidered& a, const GroupingConsidered& b) {
            return std::pair(a.singleSize, a.clashes) < std::pair(b.singleSize, b.clashes);
        });
    }
    found->chosen = true;
    choice.columns = found->columns;
    for (auto& g : weighed) {
        std::string why;
        if (g.singleSize) why = "every series holds a single model size (a size, not a series)";
        else if (g.clashes)
            why = std::to_string(g.clashes) + (g.clashes == 1 ? " place where a series holds" : " places where a series holds") +
                  " two runs at the same N and D that no hyperparameter tells apart";
        const std::string counted = std::to_string(g.series) + (g.series == 1 ? " series" : " series");
        if (g.chosen) g.verdict = "chosen: " + counted + (why.empty() ? ", each one experiment" : "; the least bad: " + why);
        else if (!why.empty()) g.verdict = "not taken: " + counted + "; " + why;
        else g.verdict = "not taken: " + counted + "; " + joinColumns(found->columns) + " comes first";
    }
    return choice;
}

}  // namespace scalex::data
