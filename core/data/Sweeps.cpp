#include "core/data/Sweeps.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/data/ColumnMapping.h"

namespace scalex::data {

namespace {

// The words of a column's last name part: "config.optimizer.peak_lr" -> {"peak", "lr"}.
std::vector<std::string> lastPartWords(std::string_view name) {
    const std::size_t cut = name.find_last_of("./");
    if (cut != std::string_view::npos) name.remove_prefix(cut + 1);
    std::vector<std::string> words{std::string()};
    for (char c : name) {
        if (c == '_' || c == '-' || c == ' ') {
            if (!words.back().empty()) words.emplace_back();
        } else {
            words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    if (words.back().empty()) words.pop_back();
    return words;
}

bool positive(double v) { return known(v) && v > 0 && std::isfinite(v); }

std::string lossDelta(double delta) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.3g", delta);
    return buf;
}

constexpr std::string_view kNotePrefix = "sweeps: ";

}  // namespace

bool isHyperparameterColumn(std::string_view name) {
    const std::vector<std::string> words = lastPartWords(name);
    std::string joined;
    for (const auto& w : words) joined += w;
    // Whole names first: spellings whose words alone say nothing ("rate", "size", "decay").
    for (std::string_view n : {"learningrate", "lr", "peaklr", "maxlr", "minlr", "batchsize", "globalbatchsize", "bsz", "bs",
                               "gbs", "microbatchsize", "seed", "weightdecay", "wd", "beta1", "beta2", "adambeta1", "adambeta2",
                               "momentum", "dropout", "epsilon", "eps", "adameps", "gradclip", "gradclipnorm", "clipgradnorm",
                               "gradientclipping", "warmup", "warmupsteps", "lrwarmupsteps", "numlrwarmupsteps", "warmupratio",
                               "lrschedule", "schedule", "scheduler", "lrendfactor", "lrcooldownsteps", "cooldownsteps",
                               "optimizer", "optimiser", "initstd", "zloss"})
        if (joined == n) return true;
    for (const auto& w : words)
        if (w == "lr" || w == "seed" || w == "warmup" || w == "dropout" || w == "bsz" || w == "optimizer" || w == "optimiser")
            return true;
    return false;
}

std::vector<std::string> hyperparameterColumns(const RunTable& table) {
    std::vector<std::string> out;
    for (const auto& run : table.runs)
        if (run.raw.header) {
            for (const auto& h : *run.raw.header)
                if (isHyperparameterColumn(h)) out.push_back(h);
            break;
        }
    return out;
}

std::vector<std::string> differingColumns(const Run& a, const Run& b, const std::vector<std::string>& columns) {
    std::vector<std::string> out;
    for (const auto& c : columns)
        if (a.raw.value(c).value_or(std::string()) != b.raw.value(c).value_or(std::string())) out.push_back(c);
    return out;
}

std::vector<Sweep> markSweeps(RunTable& table) {
    for (auto& run : table.runs) run.sweepLeftOut.clear();
    table.notes.erase(std::remove_if(table.notes.begin(), table.notes.end(),
                                     [](const std::string& n) { return n.rfind(kNotePrefix, 0) == 0; }),
                      table.notes.end());
    const std::vector<std::string> columns = hyperparameterColumns(table);
    std::vector<Sweep> sweeps;
    if (columns.empty()) return sweeps;

    // Runs at the same (series, context, N, D); N and D to one part in a million.
    using Key = std::tuple<std::string, double, long long, long long>;
    std::map<Key, std::vector<std::size_t>> at;
    for (std::size_t i = 0; i < table.runs.size(); ++i) {
        const Run& r = table.runs[i];
        if (r.intermediateCheckpoint || r.hasProblems() || !positive(r.params) || !positive(r.tokens) || !std::isfinite(r.loss()))
            continue;
        const double context = known(r.context) ? r.context : -1.0;
        at[{r.series, context, std::llround(std::log(r.params) * 1e6), std::llround(std::log(r.tokens) * 1e6)}].push_back(i);
    }
    std::set<std::string> swept;
    std::size_t leftOut = 0;
    for (auto& [key, idx] : at) {
        if (idx.size() < 2) continue;
        std::sort(idx.begin(), idx.end());
        std::size_t best = idx.front();
        for (auto i : idx)
            if (table.runs[i].loss() < table.runs[best].loss()) best = i;
        // A sweep: its runs differ from the best in a hyperparameter; runs that differ in none are
        // repeats (or another experiment), not tuning, and stay.
        Sweep sweep;
        sweep.best = best;
        std::set<std::string> differ;
        for (auto i : idx) {
            if (i == best) continue;
            const auto d = differingColumns(table.runs[i], table.runs[best], columns);
            if (d.empty()) continue;
            sweep.runs.push_back(i);
            differ.insert(d.begin(), d.end());
        }
        if (sweep.runs.empty()) continue;
        for (const auto& c : columns)
            if (differ.count(c)) sweep.columns.push_back(c);
        for (auto i : sweep.runs) {
            Run& r = table.runs[i];
            std::string values;
            for (const auto& c : differingColumns(r, table.runs[best], columns))
                values += (values.empty() ? "" : ", ") + c + " " + r.raw.value(c).value_or(std::string());
            r.sweepLeftOut = "not the best of its sweep: " + values + ", loss " + lossDelta(r.loss() - table.runs[best].loss());
            ++leftOut;
        }
        sweep.runs.push_back(best);
        std::sort(sweep.runs.begin(), sweep.runs.end());
        swept.insert(sweep.columns.begin(), sweep.columns.end());
        sweeps.push_back(std::move(sweep));
    }
    if (!sweeps.empty()) {
        std::string over;
        for (const auto& c : columns)
            if (swept.count(c)) over += (over.empty() ? "" : ", ") + c;
        table.notes.push_back(std::string(kNotePrefix) + std::to_string(sweeps.size()) + " over " + over +
                              " (runs of one series at the same N and D); the best run of each stands for it, " +
                              std::to_string(leftOut) + (leftOut == 1 ? " other is" : " others are") +
                              " left out (all sweep runs: --all-sweep-runs)");
        // A sweep that covers only some points of a series leaves the others at whatever setting
        // they were trained with: the runs kept then mix settings, which biases a profile as much
        // as a badly tuned run. Say so, and how to take each setting apart.
        // Only where one setting wins the series' sweeps throughout (three or more, three in four):
        // then the others are systematically worse, not merely tuned per size.
        for (const auto& c : columns) {
            if (!swept.count(c)) continue;
            std::map<std::string, std::map<std::string, int>> wins;  // series -> winning value -> sweeps
            for (const auto& sweep : sweeps)
                if (std::find(sweep.columns.begin(), sweep.columns.end(), c) != sweep.columns.end())
                    ++wins[table.runs[sweep.best].series][table.runs[sweep.best].raw.value(c).value_or("")];
            std::map<std::string, std::set<std::string>> kept;  // series -> values among the runs kept
            for (const auto& [key, idx] : at)
                for (auto i : idx)
                    if (table.runs[i].sweepLeftOut.empty()) kept[std::get<0>(key)].insert(table.runs[i].raw.value(c).value_or(""));
            for (const auto& [series, values] : kept) {
                int total = 0, most = 0;
                for (const auto& [value, n] : wins[series]) total += n, most = std::max(most, n);
                if (values.size() < 2 || most < 3 || 4 * most < 3 * total) continue;
                std::string list;
                for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
                table.notes.push_back(std::string(kNotePrefix) + "the runs kept in series " + series + " mix " + c + " " + list +
                                      " (points no sweep covers keep their own setting): --series " + c +
                                      " or --where analyses each setting apart");
            }
        }
    }
    return sweeps;
}

}  // namespace scalex::data
