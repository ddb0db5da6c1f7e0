#include "core/analysis/StudyReading.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>

#include "core/data/ColumnMapping.h"
#include "core/data/Series.h"

namespace scalex::analysis {

using data::known;
using data::Run;
using data::RunField;

namespace {

constexpr const char* kRoleNames[] = {"quantity", "budget",     "condition", "knob", "repeat",
                                      "identifier", "descriptor", "step",      "measure", "constant"};

bool positive(double v) { return known(v) && v > 0 && std::isfinite(v); }

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '"')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '"' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

double parseNumber(std::string_view s) {
    s = trim(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    if (s.empty()) return data::kUnknown;
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v)) return data::kUnknown;
    return v;
}

// The words of a column's name: "trainer.train_batch_size" -> trainer, train, batch, size.
std::vector<std::string> nameWords(const std::string& column) {
    std::vector<std::string> words{std::string()};
    for (char c : data::normalizeColumnName(column)) {
        if (c == '_' || c == '(' || c == ')') {
            if (!words.back().empty()) words.emplace_back();
        } else {
            words.back() += c;
        }
    }
    if (words.back().empty()) words.pop_back();
    return words;
}

bool nameSays(const std::string& column, std::initializer_list<std::string_view> words) {
    const auto have = nameWords(column);
    std::string joined;
    for (const auto& w : have) joined += w;
    for (auto w : words)
        if (joined == w || std::find(have.begin(), have.end(), w) != have.end()) return true;
    return false;
}

// Names that confirm what the values suggest (never decide alone).
bool namesHyperparameter(const std::string& c) {
    return nameSays(c, {"lr", "learningrate", "bsz", "gbsz", "gbs", "bs", "batchsize", "globalbatchsize", "batch", "wd",
                        "weightdecay", "beta1", "beta2", "momentum", "dropout", "warmup", "eps", "epsilon", "clip",
                        "gradclip", "schedule", "scheduler", "decay", "optimizer", "optimiser", "init", "initstd", "mup"});
}
bool namesRepeat(const std::string& c) { return nameSays(c, {"seed", "seeds", "repeat", "replicate", "trial", "rep"}); }
bool namesStep(const std::string& c) {
    return nameSays(c, {"step", "steps", "iter", "iters", "iteration", "iterations", "epoch", "epochs", "elapsed", "progress", "checkpoint", "ckpt",
                        "portion", "fraction"});
}
bool namesMeasure(const std::string& c) {
    return nameSays(c, {"loss", "ppl", "perplexity", "acc", "accuracy", "score", "eval", "bpb", "bpc", "metric"});
}
bool namesMachine(const std::string& c) {
    return nameSays(c, {"node", "nodes", "gpu", "gpus", "device", "devices", "time", "seconds", "second", "runtime",
                        "duration", "memory", "mem", "throughput", "host", "rank", "worker", "workers", "hours", "sec"});
}

bool looksLikeTimestamp(std::string_view s) {
    // Four digits, a separator, two digits, a separator, two digits: 2024_11_26, 2024-11-26T...
    for (std::size_t i = 0; i + 10 <= s.size(); ++i) {
        auto digits = [&](std::size_t at, std::size_t n) {
            for (std::size_t k = 0; k < n; ++k)
                if (!std::isdigit(static_cast<unsigned char>(s[at + k]))) return false;
            return true;
        };
        auto sep = [&](char c) { return c == '-' || c == '_' || c == '/' || c == '.'; };
        if (digits(i, 4) && sep(s[i + 4]) && digits(i + 5, 2) && sep(s[i + 7]) && digits(i + 8, 2)) return true;
    }
    return false;
}

bool looksLikeHash(std::string_view s) {
    // A run of 8 or more hexadecimal characters holding both digits and letters (a commit, a W&B id).
    std::size_t run = 0;
    bool digit = false, letter = false;
    for (char c : s) {
        if (std::isxdigit(static_cast<unsigned char>(c))) {
            ++run;
            (std::isdigit(static_cast<unsigned char>(c)) ? digit : letter) = true;
            if (run >= 8 && digit && letter) return true;
        } else {
            run = 0;
            digit = letter = false;
        }
    }
    return false;
}

std::string shortNumber(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
}

std::string someValues(const std::set<std::string>& values, std::size_t most = 4) {
    std::string s;
    std::size_t n = 0;
    for (const auto& v : values) {
        if (n == most) {
            s += ", ...";
            break;
        }
        s += (n++ ? ", " : "") + v;
    }
    return s;
}

std::string plural(std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

long long logKey(double v) { return std::llround(std::log(v) * 1e6); }

// What the reader mapped a column to, by the field's key (ColumnChoice::field).
std::optional<RunField> mappedField(const data::RunTable& table, const std::string& column) {
    for (const auto& c : table.mapping)
        if (c.column == column)
            if (auto f = data::fieldByKey(c.field)) return f;
    return std::nullopt;
}

std::string fieldWords(RunField f) {
    switch (f) {
        case RunField::Params: return "N, the parameter count";
        case RunField::Tokens: return "D, the training tokens";
        case RunField::Flops: return "C, the training compute";
        case RunField::ValLoss: return "the loss (validation)";
        case RunField::TrainLoss: return "the training loss";
        case RunField::Context: return "the context length";
        default: return std::string(data::fieldKey(f));
    }
}

struct Scoped {
    std::vector<std::size_t> runs;                // indices into the table, in scope
    std::vector<std::string> columns;             // union of the headers, in order of first appearance
    std::vector<std::vector<std::string_view>> cells;  // per scoped run, per column ("" where its header lacks it)
};

Scoped scopedCells(const data::RunTable& table, const RunFilter& scope) {
    Scoped s;
    RunFilter all = scope;
    all.allSweepRuns = true;
    all.series.reset();
    std::map<const std::vector<std::string>*, std::vector<int>> where;  // header -> union index of each of its columns
    std::unordered_map<std::string, int> index;
    for (std::size_t i = 0; i < table.runs.size(); ++i) {
        const Run& r = table.runs[i];
        if (!passes(r, all)) continue;
        s.runs.push_back(i);
        const auto* h = r.raw.header.get();
        if (h && !where.count(h)) {
            std::vector<int> idx;
            for (const auto& name : *h) {
                auto [it, fresh] = index.emplace(name, static_cast<int>(s.columns.size()));
                if (fresh) s.columns.push_back(name);
                idx.push_back(it->second);
            }
            where[h] = std::move(idx);
        }
    }
    s.cells.resize(s.runs.size());
    for (std::size_t k = 0; k < s.runs.size(); ++k) {
        const Run& r = table.runs[s.runs[k]];
        auto& row = s.cells[k];
        row.assign(s.columns.size(), std::string_view());
        if (!r.raw.header) continue;
        const auto& idx = where[r.raw.header.get()];
        const auto cells = r.raw.split();
        for (std::size_t c = 0; c < idx.size() && c < cells.size(); ++c) row[static_cast<std::size_t>(idx[c])] = trim(cells[c]);
    }
    // Runs of several files with no column naming them: the file (its `dataset`) is read as a column
    // too, so that two files of one study are one experiment and two measurements of the same runs
    // (Gemstones' DCLM and FineWeb-Edu losses) are two.
    const bool named = std::any_of(s.columns.begin(), s.columns.end(),
                                   [](const std::string& c) { return data::normalizeColumnName(c) == "dataset"; });
    const bool files = std::any_of(s.runs.begin(), s.runs.end(),
                                   [&](std::size_t i) { return table.runs[i].dataset != table.runs[s.runs.front()].dataset; });
    if (!named && files) {
        s.columns.emplace_back("dataset");
        for (std::size_t k = 0; k < s.runs.size(); ++k) s.cells[k].push_back(table.runs[s.runs[k]].dataset);
    }
    return s;
}

}  // namespace

std::string_view roleName(ColumnRole role) { return kRoleNames[static_cast<int>(role)]; }

std::optional<ColumnRole> parseRole(std::string_view name) {
    std::string n;
    for (char c : name) n += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (int i = 0; i < static_cast<int>(std::size(kRoleNames)); ++i)
        if (n == kRoleNames[i] || n == std::string(kRoleNames[i]) + "s") return static_cast<ColumnRole>(i);
    if (n == "seed" || n == "seeds") return ColumnRole::Repeat;
    if (n == "id" || n == "ids") return ColumnRole::Identifier;
    if (n == "hyperparameter" || n == "tuned") return ColumnRole::Knob;
    if (n == "series" || n == "experiment") return ColumnRole::Condition;
    return std::nullopt;
}

std::string roleNames() {
    std::string s;
    for (auto n : kRoleNames) s += (s.empty() ? "" : ", ") + std::string(n);
    return s;
}

const ColumnReading* StudyReading::column(const std::string& name) const {
    for (const auto& c : columns)
        if (c.column == name) return &c;
    return nullptr;
}

std::optional<double> budgetInName(std::string_view name) {
    // A number in scientific notation standing alone between separators: "isoflop-6e+19-d2304", "3e18".
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) continue;
        if (i > 0 && (std::isalnum(static_cast<unsigned char>(name[i - 1])) || name[i - 1] == '.')) continue;
        std::size_t j = i;
        while (j < name.size() && (std::isdigit(static_cast<unsigned char>(name[j])) || name[j] == '.')) ++j;
        if (j >= name.size() || (name[j] != 'e' && name[j] != 'E')) continue;
        std::size_t k = j + 1;
        if (k < name.size() && name[k] == '+') ++k;
        const std::size_t expStart = k;
        while (k < name.size() && std::isdigit(static_cast<unsigned char>(name[k]))) ++k;
        if (k == expStart || (k < name.size() && std::isalnum(static_cast<unsigned char>(name[k])))) continue;
        std::string text(name.substr(i, j - i));
        text += 'e';
        text += std::string(name.substr(expStart, k - expStart));
        const double v = parseNumber(text);
        if (v >= 1e12 && v < 1e30) return v;  // a training budget in FLOPs, not a small constant
    }
    return std::nullopt;
}

StudyReading readStudy(const data::RunTable& table, const RunFilter& scope, const ReadingOptions& options) {
    StudyReading out;
    const std::size_t total = table.runs.size();
    out.series.assign(total, std::string());
    out.sweepLeftOut.assign(total, std::string());
    out.checkpoint.assign(total, 0);
    out.budget.assign(total, data::kUnknown);
    out.curveStep.assign(total, data::kUnknown);
    out.curveName.assign(total, std::string());

    Scoped s = scopedCells(table, scope);
    const std::size_t n = s.runs.size();
    const std::size_t ncol = s.columns.size();
    auto run = [&](std::size_t k) -> const Run& { return table.runs[s.runs[k]]; };

    // The user's roles, checked against the columns.
    std::map<std::string, ColumnRole> chosen;
    for (const auto& [column, role] : options.roles) {
        const auto r = parseRole(role);
        const bool present = std::find(s.columns.begin(), s.columns.end(), column) != s.columns.end();
        if (!r) out.roleErrors.push_back({table.source, 0, column, "'" + role + "' is no role (roles: " + roleNames() + ")"});
        else if (!present && n > 0) out.roleErrors.push_back({table.source, 0, column, "no such column to give a role"});
        else chosen[column] = *r;
    }

    // Points: the runs with N and D, at their context.
    std::vector<char> hasPoint(n, 0);
    std::vector<long long> nKey(n, 0), dKey(n, 0);
    std::vector<double> ctx(n, -1.0);
    for (std::size_t k = 0; k < n; ++k) {
        const Run& r = run(k);
        ctx[k] = known(r.context) ? r.context : -1.0;
        if (positive(r.params)) nKey[k] = logKey(r.params);
        if (positive(r.params) && positive(r.tokens)) {
            hasPoint[k] = 1;
            dKey[k] = logKey(r.tokens);
        }
    }

    out.columns.resize(ncol);
    std::vector<char> decided(ncol, 0);
    std::vector<std::set<std::string>> distinct(ncol);
    std::vector<std::size_t> nonEmpty(ncol, 0);
    std::vector<char> numeric(ncol, 1);
    for (std::size_t c = 0; c < ncol; ++c) {
        out.columns[c].column = s.columns[c];
        for (std::size_t k = 0; k < n; ++k) {
            const auto v = s.cells[k][c];
            if (v.empty() || v == "null" || v == "None" || v == "nan" || v == "NaN") continue;
            ++nonEmpty[c];
            if (distinct[c].size() < 100000) distinct[c].insert(std::string(v));
            if (numeric[c] && std::isnan(parseNumber(v))) numeric[c] = 0;
        }
        if (nonEmpty[c] == 0) numeric[c] = 0;
    }
    auto decide = [&](std::size_t c, ColumnRole role, std::string evidence, std::string weighed = {}) {
        out.columns[c].role = role;
        out.columns[c].evidence = std::move(evidence);
        if (!weighed.empty()) out.columns[c].weighed = std::move(weighed);
        decided[c] = 1;
    };
    auto value = [&](std::size_t k, std::size_t c) { return s.cells[k][c]; };

    // ---- 1. The user's roles, the reader's fields, constants, identifiers ----
    std::vector<std::size_t> declared;  // the file's series and family columns: conditions by declaration
    for (std::size_t c = 0; c < ncol; ++c) {
        const std::string& name = s.columns[c];
        if (auto it = chosen.find(name); it != chosen.end()) {
            decide(c, it->second, "chosen by the user");
            out.columns[c].chosen = true;
            continue;
        }
        if (const auto f = mappedField(table, name)) {
            switch (*f) {
                case RunField::Params: case RunField::Tokens: case RunField::ValLoss: case RunField::TrainLoss:
                case RunField::Context:
                    decide(c, ColumnRole::Quantity, fieldWords(*f) + " (the column the reader took for it)");
                    continue;
                case RunField::Flops: {
                    const auto unit = data::computeUnit(name);
                    decide(c, ColumnRole::Quantity,
                           fieldWords(*f) + (unit.name.empty() ? std::string(" in FLOPs") : " in " + unit.name + ", read as FLOPs"));
                    continue;
                }
                case RunField::Budget: decide(c, ColumnRole::Budget, "the nominal IsoFLOP budget the file gives each run"); continue;
                case RunField::Step: decide(c, ColumnRole::Step, "the step of each checkpoint (the reader's step column)"); continue;
                case RunField::Series: case RunField::Family: {
                    // The file's series column, else its family column (a family beside a series column is
                    // read from its values: it mostly follows the series).
                    const bool seriesColumn = std::any_of(table.mapping.begin(), table.mapping.end(), [](const data::ColumnChoice& m) {
                        return m.field == data::fieldKey(RunField::Series);
                    });
                    if (*f == RunField::Family && seriesColumn) break;
                    decide(c, ColumnRole::Condition, "the file names each run's " + fieldWords(*f) + " in it");
                    // Tables that name the family in columns of different names (model_family, model_type)
                    // give it one condition: the run's family, by its canonical name.
                    const bool familyDeclared = *f == RunField::Family && std::any_of(declared.begin(), declared.end(), [&](std::size_t d) {
                        const auto g = mappedField(table, s.columns[d]);
                        return g && *g == RunField::Family;
                    });
                    if (!familyDeclared) declared.push_back(c);
                    continue;
                }
                case RunField::RunId: case RunField::Name:
                    decide(c, ColumnRole::Identifier, "names each run (" + plural(distinct[c].size(), "value", "values") + ")");
                    continue;
                case RunField::ExperimentSet:
                    // A column of experiment sets (isoflop, tokenparam); other values (exp0, exp1) are read as any text.
                    if (std::none_of(s.runs.begin(), s.runs.end(), [&](std::size_t i) {
                            return table.runs[i].experimentSet != data::ExperimentSet::Other;
                        }))
                        break;
                    decide(c, ColumnRole::Descriptor, "the file's " + std::string(data::fieldKey(*f)) + " of each run");
                    continue;
                case RunField::Status: case RunField::SelectedInPaper: case RunField::FlopMode:
                case RunField::ParamsSource: case RunField::TokensSource: case RunField::FlopsSource: case RunField::Included:
                    decide(c, ColumnRole::Descriptor, "the file's " + std::string(data::fieldKey(*f)) + " of each run");
                    continue;
                case RunField::DModel: case RunField::NLayers: case RunField::NHeads: case RunField::NKvHeads: case RunField::DQk:
                case RunField::DHv: case RunField::DFf: case RunField::Vocab: case RunField::Chunk:
                    decide(c, ColumnRole::Descriptor, "the model's " + std::string(data::fieldKey(*f)));
                    continue;
                default: break;  // dataset, batch size, learning rate, steps: read from the values
            }
        }
        if (distinct[c].size() <= 1) {
            decide(c, ColumnRole::Constant,
                   distinct[c].empty() ? "empty in scope" : "one value in scope: " + *distinct[c].begin());
            continue;
        }
        if (!numeric[c]) {
            std::size_t stamped = 0;
            for (const auto& v : distinct[c]) stamped += looksLikeTimestamp(v) || looksLikeHash(v);
            if (nonEmpty[c] >= 4 && distinct[c].size() * 10 >= nonEmpty[c] * 9) {
                decide(c, ColumnRole::Identifier,
                       "unique per run: " + std::to_string(distinct[c].size()) + " values over " + plural(nonEmpty[c], "run", "runs"));
                continue;
            }
            if (stamped * 5 >= distinct[c].size() * 4) {
                decide(c, ColumnRole::Identifier,
                       "a launch id: its values are dates, times or hashes (" + someValues(distinct[c], 2) + "); " +
                           std::to_string(distinct[c].size()) + " values over " + plural(nonEmpty[c], "run", "runs"),
                       "not a condition: a run's launch does not make it another experiment");
                continue;
            }
        }
    }

    // Whether a column holds one value wherever `key` is the same (runs without a key ignored).
    auto functionOf = [&](std::size_t c, const std::function<std::optional<std::string>(std::size_t)>& key) {
        std::unordered_map<std::string, std::string_view> seen;
        for (std::size_t k = 0; k < n; ++k) {
            const auto kk = key(k);
            if (!kk) continue;
            auto [it, fresh] = seen.emplace(*kk, value(k, c));
            if (!fresh && it->second != value(k, c)) return false;
        }
        return !seen.empty();
    };
    auto groupKey = [&](std::size_t k, const std::vector<std::size_t>& conds) {
        std::string g;
        for (auto c : conds) {
            g += value(k, c);
            g += '\x1f';
        }
        return g;
    };
    auto pointKey = [&](std::size_t k, const std::vector<std::size_t>& conds) -> std::optional<std::string> {
        if (!hasPoint[k]) return std::nullopt;
        return groupKey(k, conds) + std::to_string(ctx[k]) + "|" + std::to_string(nKey[k]) + "|" + std::to_string(dKey[k]);
    };
    // Points where a column takes two values or more among runs at one (N, D), and the runs there.
    struct Variation {
        std::size_t points = 0, runs = 0;
    };
    auto variesAtPoints = [&](std::size_t c, const std::vector<std::size_t>& conds) {
        std::map<std::string, std::pair<std::set<std::string_view>, std::size_t>> at;
        for (std::size_t k = 0; k < n; ++k)
            if (auto p = pointKey(k, conds)) {
                auto& e = at[*p];
                e.first.insert(value(k, c));
                ++e.second;
            }
        Variation v;
        for (const auto& [key, e] : at)
            if (e.first.size() > 1) ++v.points, v.runs += e.second;
        return v;
    };

    // ---- 2. Steps ----
    // A count along training that reaches its run's total at the run's end (current_steps and
    // total_steps; a portion of the steps that reaches 1): the rows before the end are checkpoints.
    std::vector<char> isCheckpoint(n, 0);
    std::vector<std::pair<std::size_t, std::string>> totalSteps;  // step column -> its total's column (empty: 1)
    for (std::size_t c = 0; c < ncol; ++c) {
        const std::string& name = s.columns[c];
        if (decided[c] || !numeric[c] || !namesStep(name) || namesHyperparameter(name) || namesMeasure(name)) continue;
        std::vector<double> x(n);
        for (std::size_t k = 0; k < n; ++k) x[k] = parseNumber(value(k, c));
        // Never past the total but in a row in a hundred (a logger's last step may overshoot it).
        auto endsAt = [&](const std::function<double(std::size_t)>& total) {
            std::size_t ends = 0, before = 0, past = 0;
            for (std::size_t k = 0; k < n; ++k) {
                const double t = total(k);
                if (std::isnan(x[k]) || std::isnan(t)) continue;
                past += x[k] > t * (1 + 1e-9);
                (x[k] >= t * (1 - 1e-9) ? ends : before)++;
            }
            return ends > 0 && before > 0 && past * 100 <= ends + before;
        };
        // Its total is a column named for the same count (current_steps: total_steps; current_epoch:
        // total_epochs), else 1 (a portion of the run).
        auto stem = [](std::string w) {
            if (w.size() > 3 && w.back() == 's') w.pop_back();
            return w;
        };
        std::set<std::string> counted;
        for (const auto& w : nameWords(name))
            if (w != "current" && w != "elapsed" && w != "portion" && w != "fraction" && w != "num" && w != "n") counted.insert(stem(w));
        std::optional<std::string> total;
        for (std::size_t t = 0; t < ncol && !total; ++t) {
            if (t == c || !numeric[t] || namesMeasure(s.columns[t])) continue;
            bool sameCount = false;
            for (const auto& w : nameWords(s.columns[t])) sameCount = sameCount || counted.count(stem(w));
            if (sameCount && endsAt([&](std::size_t k) { return parseNumber(value(k, t)); })) total = s.columns[t];
        }
        const bool portion = !total && endsAt([](std::size_t) { return 1.0; });
        if (!total && !portion) continue;
        // A row is a checkpoint where every such count says it is before its run's end.
        std::size_t before = 0;
        const bool first = totalSteps.empty();
        for (std::size_t k = 0; k < n; ++k) {
            const double t = total ? parseNumber(value(k, static_cast<std::size_t>(
                                                             std::find(s.columns.begin(), s.columns.end(), *total) - s.columns.begin())))
                                   : 1.0;
            // Before its end, or logged past it (a row the run's own last checkpoint is not).
            const bool along = !std::isnan(x[k]) && !std::isnan(t) && std::abs(x[k] - t) > 1e-9 * std::abs(t);
            before += along;
            isCheckpoint[k] = along && (first || isCheckpoint[k]);
        }
        decide(c, ColumnRole::Step,
               "reaches " + (total ? "'" + *total + "'" : std::string("1")) + " at each run's end; " + plural(before, "row", "rows") +
                   " before it (or past it) are checkpoints along a run",
               "not a knob: a count along training");
        totalSteps.push_back({c, total.value_or(std::string())});
    }
    // Checkpoints are loss curves, not runs: they count in no point, no sweep and no budget.
    const std::vector<char> rowHasPoint = hasPoint;
    for (std::size_t k = 0; k < n; ++k)
        if (isCheckpoint[k]) hasPoint[k] = 0;
    // Else a number that rises along the runs at one point while the loss falls (tables whose D is a
    // run's total): its checkpoints are found once the runs' other columns are read (5. below).
    for (std::size_t c = 0; c < ncol; ++c) {
        const std::string& name = s.columns[c];
        if (decided[c] || !numeric[c] || !namesStep(name) || namesHyperparameter(name) || namesMeasure(name)) continue;
        std::map<std::string, std::map<double, std::pair<double, int>>> at;  // point -> value -> (loss sum, count)
        for (std::size_t k = 0; k < n; ++k)
            if (rowHasPoint[k]) {
                const auto p = std::optional(std::to_string(ctx[k]) + "|" + std::to_string(nKey[k]) + "|" + std::to_string(dKey[k]));
                const double x = parseNumber(value(k, c)), l = run(k).loss();
                if (std::isnan(x) || !std::isfinite(l)) continue;
                auto& e = at[*p][x];
                e.first += l;
                ++e.second;
            }
        std::size_t pairs = 0, falling = 0, points = 0;
        for (const auto& [key, byValue] : at) {
            if (byValue.size() < 2) continue;
            ++points;
            double prev = std::nan("");
            for (const auto& [x, e] : byValue) {
                const double mean = e.first / e.second;
                if (!std::isnan(prev)) ++pairs, falling += mean < prev;
                prev = mean;
            }
        }
        if (points > 0 && pairs >= 2 && falling * 4 >= pairs * 3)
            decide(c, ColumnRole::Step,
                   "rises along the runs at " + plural(points, "(N, D) point", "(N, D) points") + " while the loss falls (" +
                       std::to_string(falling) + " of " + std::to_string(pairs) + " steps)",
                   "not a knob: the loss falls with it at every point, as along training");
    }

    // ---- 3. Conditions: text columns that separate runs at one (N, D), or whose values are separate designs ----
    std::vector<std::size_t> conditions = declared;
    if (!options.seriesBy.empty()) {
        conditions.clear();
        for (const auto& by : options.seriesBy)
            for (std::size_t c = 0; c < ncol; ++c)
                if (s.columns[c] == by || data::normalizeColumnName(s.columns[c]) == data::normalizeColumnName(by)) {
                    decide(c, ColumnRole::Condition, "the series are grouped by it (--series)");
                    out.columns[c].chosen = true;
                    conditions.push_back(c);
                }
    }
    for (std::size_t c = 0; c < ncol; ++c)
        if (decided[c] && out.columns[c].role == ColumnRole::Condition && out.columns[c].chosen &&
            std::find(conditions.begin(), conditions.end(), c) == conditions.end())
            conditions.push_back(c);
    // Whether a column's values each span a design of their own: three sizes or more over a factor
    // of three in compute (or tokens), as separate experiments do and budgets or size names do not.
    // Tokens per parameter vary too, so a level is neither one budget nor one rung of a token/parameter ladder.
    auto separateDesigns = [&](std::size_t c) {
        struct Level {
            std::set<long long> sizes;
            double cLo = 0, cHi = 0, rLo = 0, rHi = 0;
        };
        std::map<std::string_view, Level> levels;
        for (std::size_t k = 0; k < n; ++k) {
            if (!hasPoint[k]) continue;
            const Run& r = run(k);
            const double scale = positive(r.flops) ? r.flops : r.params * r.tokens, ratio = r.tokens / r.params;
            auto [it, fresh] = levels.try_emplace(value(k, c));
            Level& l = it->second;
            if (fresh) l.cLo = l.cHi = scale, l.rLo = l.rHi = ratio;
            l.sizes.insert(nKey[k]);
            l.cLo = std::min(l.cLo, scale), l.cHi = std::max(l.cHi, scale);
            l.rLo = std::min(l.rLo, ratio), l.rHi = std::max(l.rHi, ratio);
        }
        // Every value three model sizes or more (a profile at one budget is a design too), two of them
        // or more a design in full (over a factor of three in compute); not the rungs of a token/parameter
        // ladder (values that are the runs' tokens per parameter, "22", "M44").
        if (levels.size() < 2) return false;
        std::size_t full = 0;
        for (const auto& [v, l] : levels) {
            if (l.sizes.size() < 3) return false;
            full += l.cHi >= 3 * l.cLo;
        }
        if (full < 2) return false;
        std::size_t withRatio = 0, ratioLike = 0;
        for (std::size_t k = 0; k < n; ++k) {
            if (!hasPoint[k]) continue;
            ++withRatio;
            const std::string_view text = value(k, c);
            const std::size_t digit = text.find_first_of("0123456789");
            const double x = digit == std::string_view::npos ? data::kUnknown : parseNumber(text.substr(digit));
            const double ratio = run(k).tokens / run(k).params;
            ratioLike += !std::isnan(x) && std::abs(x / ratio - 1) < 0.15;
        }
        return ratioLike * 5 < withRatio * 4;
    };
    // What the file says of each run's design (experiment set, FLOP count, status) with its context and
    // the conditions: a column that follows these describes the design, not another experiment (the
    // study's isoflop and tokenparam files, or one set of runs counted under two FLOP conventions).
    std::vector<std::size_t> designColumns;
    for (std::size_t c = 0; c < ncol; ++c)
        if (decided[c] && out.columns[c].role == ColumnRole::Descriptor && mappedField(table, s.columns[c])) designColumns.push_back(c);
    auto followsDesign = [&](std::size_t c) {
        if (designColumns.empty()) return false;
        return functionOf(c, [&](std::size_t k) {
            return std::optional(groupKey(k, conditions) + groupKey(k, designColumns) + std::to_string(ctx[k]));
        });
    };
    {
        std::set<std::size_t> byDesign;  // conditions on weak evidence: their designs, or a minority of the runs at points
        const std::size_t pointRuns = static_cast<std::size_t>(std::count(hasPoint.begin(), hasPoint.end(), 1));
        std::vector<std::size_t> candidates;
        for (std::size_t c = 0; c < ncol; ++c)
            if (!decided[c] && !numeric[c]) candidates.push_back(c);
        std::stable_sort(candidates.begin(), candidates.end(),
                         [&](std::size_t a, std::size_t b) { return distinct[a].size() < distinct[b].size(); });
        for (auto c : candidates) {
            // No run in scope has N and D to compare at (a table of other variables): a text column of a
            // few values, each holding three runs or more, groups the runs as its authors grouped them.
            if (pointRuns == 0) {
                std::map<std::string_view, std::size_t> levels;
                for (std::size_t k = 0; k < n; ++k) ++levels[value(k, c)];
                const bool grouping = levels.size() >= 2 && levels.size() <= 20 &&
                                      std::all_of(levels.begin(), levels.end(), [](const auto& l) { return l.second >= 3; });
                if (!grouping) continue;
                decide(c, ColumnRole::Condition,
                       "no run has N and D to compare at: its " + plural(levels.size(), "value groups", "values group") +
                           " the runs (" + someValues(distinct[c]) + ")",
                       "not an identifier: each value holds three runs or more");
                conditions.push_back(c);
                continue;
            }
            const Variation v = variesAtPoints(c, conditions);
            const bool designs = v.points == 0 && separateDesigns(c);
            if (v.points == 0 && !designs) continue;
            if (followsDesign(c)) {
                decide(c, ColumnRole::Descriptor, "follows the runs' experiment set, FLOP count and context",
                       "not a condition: the same experiment under another design");
                continue;
            }
            // A condition that the others already fix adds no experiment.
            if (!conditions.empty() && functionOf(c, [&](std::size_t k) { return std::optional(groupKey(k, conditions)); })) {
                std::string by;
                for (auto o : conditions) by += (by.empty() ? "" : ", ") + s.columns[o];
                decide(c, ColumnRole::Descriptor, "one value per series: follows " + by, "not a condition of its own");
                continue;
            }
            if (!options.seriesBy.empty()) {
                decide(c, ColumnRole::Descriptor,
                       v.points ? "separates runs at " + plural(v.points, "(N, D) point", "(N, D) points") +
                                      ", but the series are grouped by --series"
                                : "its values are separate designs, but the series are grouped by --series");
                continue;
            }
            std::string evidence =
                v.points ? "splits " + plural(v.runs, "run", "runs") + " at " + plural(v.points, "(N, D) point", "(N, D) points") +
                               "; text values " + someValues(distinct[c])
                         : "each of its values is a design of its own (three model sizes or more; two or more over a "
                           "factor of three in compute; not tokens per parameter): " +
                               someValues(distinct[c]);
            decide(c, ColumnRole::Condition, std::move(evidence), "not a knob: text, not a number tuned at each point");
            conditions.push_back(c);
            // Weak evidence: its values are separate designs, or it separates a minority of the runs at
            // points (two experiments whose grids meet by chance).
            if (designs || v.runs * 2 < pointRuns) byDesign.insert(c);
        }
        // A condition on weak evidence that the others fix adds nothing once they are chosen (a model
        // column of a merged collection that follows its experiment column): the series are named by
        // the others. One that separates most runs at their points stays, as the file's authors set it.
        if (options.seriesBy.empty())
            for (std::size_t i = declared.size(); i < conditions.size();) {
                std::vector<std::size_t> others = conditions;
                others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
                const std::size_t c = conditions[i];
                if (byDesign.count(c) && !others.empty() && functionOf(c, [&](std::size_t k) { return std::optional(groupKey(k, others)); })) {
                    std::string by;
                    for (auto o : others) by += (by.empty() ? "" : ", ") + s.columns[o];
                    decide(c, ColumnRole::Descriptor, "one value per series: follows " + by, "not a condition of its own");
                    conditions = std::move(others);
                } else {
                    ++i;
                }
            }
        std::sort(conditions.begin() + static_cast<std::ptrdiff_t>(options.seriesBy.empty() ? declared.size() : conditions.size()),
                  conditions.end());
    }

    // ---- 4. Descriptors, derived quantities, knobs, repeats, measures ----
    // The passes over every row below compare integer ids of points and sizes (a table may hold a
    // million runs): the point of each row within the conditions, and its model size.
    std::vector<int> pointId(n, -1), sizeId(n, -1);
    int pointCount = 0, sizeCount = 0;
    {
        std::unordered_map<std::string, int> points;
        std::unordered_map<long long, int> sizes;
        for (std::size_t k = 0; k < n; ++k) {
            if (nKey[k]) sizeId[k] = sizes.emplace(nKey[k], static_cast<int>(sizes.size())).first->second;
            if (auto p = pointKey(k, conditions)) pointId[k] = points.emplace(std::move(*p), static_cast<int>(points.size())).first->second;
        }
        pointCount = static_cast<int>(points.size());
        sizeCount = static_cast<int>(sizes.size());
    }
    // Whether a column holds one value wherever the id is the same.
    auto functionOfIds = [&](std::size_t c, const std::vector<int>& ids, int count) {
        std::vector<std::string_view> first(static_cast<std::size_t>(count));
        std::vector<char> seen(static_cast<std::size_t>(count), 0);
        bool any = false;
        for (std::size_t k = 0; k < n; ++k) {
            const int i = ids[k];
            if (i < 0) continue;
            any = true;
            if (!seen[static_cast<std::size_t>(i)]) seen[static_cast<std::size_t>(i)] = 1, first[static_cast<std::size_t>(i)] = value(k, c);
            else if (first[static_cast<std::size_t>(i)] != value(k, c)) return false;
        }
        return any;
    };
    auto variesAtIds = [&](std::size_t c) {
        std::vector<std::string_view> first(static_cast<std::size_t>(pointCount));
        std::vector<int> runsAt(static_cast<std::size_t>(pointCount), 0);
        std::vector<char> varies(static_cast<std::size_t>(pointCount), 0);
        for (std::size_t k = 0; k < n; ++k) {
            const int i = pointId[k];
            if (i < 0) continue;
            const auto u = static_cast<std::size_t>(i);
            if (runsAt[u]++ == 0) first[u] = value(k, c);
            else if (first[u] != value(k, c)) varies[u] = 1;
        }
        Variation v;
        for (std::size_t u = 0; u < varies.size(); ++u)
            if (varies[u]) ++v.points, v.runs += static_cast<std::size_t>(runsAt[u]);
        return v;
    };
    auto recurs = [&](std::size_t c) {
        // Values repeated across points: half of the values or more occur at two points or more.
        std::unordered_map<std::string_view, std::pair<int, bool>> where;  // value -> (its first point, at another too)
        for (std::size_t k = 0; k < n; ++k) {
            if (pointId[k] < 0) continue;
            auto [it, fresh] = where.try_emplace(value(k, c), pointId[k], false);
            if (!fresh && it->second.first != pointId[k]) it->second.second = true;
        }
        std::size_t repeated = 0;
        for (const auto& [v, e] : where) repeated += e.second;
        return !where.empty() && repeated * 2 >= where.size();
    };
    for (std::size_t c = 0; c < ncol; ++c) {
        if (decided[c]) continue;
        const std::string& name = s.columns[c];
        if (functionOfIds(c, sizeId, sizeCount)) {
            decide(c, ColumnRole::Descriptor,
                   "one value per model size (" + plural(distinct[c].size(), "value", "values") + "): a property of the model",
                   "not a condition: it changes only with N");
            continue;
        }
        const Variation v = variesAtIds(c);
        if (v.points == 0) {
            if (numeric[c] && !namesMeasure(name) && functionOfIds(c, pointId, pointCount)) {
                if (namesHyperparameter(name))
                    decide(c, ColumnRole::Knob, "set per (N, D) point; no point holds two settings, so no sweep to choose from");
                else
                    decide(c, ColumnRole::Quantity, "one value per (N, D) point: another count of the run's scale");
                continue;
            }
            if (numeric[c]) decide(c, ColumnRole::Measure, "a number measured per run (" + plural(distinct[c].size(), "value", "values") + ")");
            else decide(c, ColumnRole::Descriptor, "does not separate runs at one (N, D), and its values are not separate designs");
            continue;
        }
        const std::string at = "varies among the runs at " + plural(v.points, "(N, D) point", "(N, D) points") + " (" +
                               plural(v.runs, "run", "runs") + ")";
        if (!numeric[c]) {  // a text column the conditions already fix, or the user's grouping leaves out
            decide(c, ColumnRole::Descriptor, at + "; text values " + someValues(distinct[c]));
            continue;
        }
        if (namesRepeat(name)) {
            decide(c, ColumnRole::Repeat, at + "; its name says seed", "not a knob: a seed is not tuned");
            continue;
        }
        if (namesMeasure(name)) {
            decide(c, ColumnRole::Measure, at + "; its name says a measured loss or metric", "not a knob: it does not set the training");
            continue;
        }
        if (namesMachine(name)) {
            decide(c, ColumnRole::Measure, at + "; its name says hardware or timing", "not a knob: it does not set the training");
            continue;
        }
        if (namesStep(name)) {
            decide(c, ColumnRole::Measure, at + "; its name says a count along training (a step or epoch), not a setting",
                   "not a knob: every run stays; not a step: the loss does not fall along it");
            continue;
        }
        // A knob: its name says a hyperparameter, or its values are a small grid set at point after
        // point (a dozen values or fewer, each at three points or more on average). Values that recur
        // but track the run (unique tokens, a data size) are read as describing it: of two readings the
        // one that keeps every run.
        const bool grid = distinct[c].size() <= 12 && recurs(c) &&
                          static_cast<double>(v.points) >= 3.0 * static_cast<double>(distinct[c].size()) / 2.0;
        if (namesHyperparameter(name) || grid) {
            decide(c, ColumnRole::Knob,
                   at + "; " + (namesHyperparameter(name) ? std::string("its name says hyperparameter") : std::string("a grid of ") +
                                                                                                              plural(distinct[c].size(), "value", "values") +
                                                                                                              " set point after point") +
                       " (" + someValues(distinct[c]) + ")",
                   "not a repeat: its name says no seed; not a measure: a few values set before training");
            continue;
        }
        decide(c, ColumnRole::Descriptor, at + (recurs(c) ? "; its values recur, but track the runs (" : "; its values do not recur across points (") +
                                              plural(distinct[c].size(), "value", "values") + ")",
               "not a knob: of two readings the one that keeps every run (--role " + name + "=knob makes it one)");
    }
    for (std::size_t c = 0; c < ncol; ++c) {
        const ColumnRole r = out.columns[c].role;
        if (r == ColumnRole::Knob) out.knobs.push_back(s.columns[c]);
        if (r == ColumnRole::Repeat) out.repeats.push_back(s.columns[c]);
        if (r == ColumnRole::Step) out.steps.push_back(s.columns[c]);
    }
    // Conditions in the order chosen (declared first, then by fewest values), as the series name them.
    for (auto c : conditions) out.conditions.push_back(s.columns[c]);
    // What a column that makes no series of its own follows, said of the conditions as chosen.
    for (std::size_t c = 0; c < ncol; ++c)
        if (out.columns[c].role == ColumnRole::Descriptor && out.columns[c].evidence.rfind("one value per series: follows ", 0) == 0) {
            std::string by;
            for (auto o : conditions)
                if (o != c) by += (by.empty() ? "" : ", ") + s.columns[o];
            out.columns[c].evidence = "one value per series: follows " + by;
        }
    auto columnsOf = [&](ColumnRole role) {
        std::vector<std::size_t> cs;
        for (std::size_t c = 0; c < ncol; ++c)
            if (out.columns[c].role == role) cs.push_back(c);
        return cs;
    };
    const auto knobs = columnsOf(ColumnRole::Knob), steps = columnsOf(ColumnRole::Step);
    const auto repeats = columnsOf(ColumnRole::Repeat);

    // What tells one run from another at a point where the file names none: its settings (conditions,
    // knobs, repeats) and the identifiers shared by several rows (a launch id, not a row id).
    std::vector<std::size_t> runIdentity = conditions;
    runIdentity.insert(runIdentity.end(), knobs.begin(), knobs.end());
    runIdentity.insert(runIdentity.end(), repeats.begin(), repeats.end());
    for (std::size_t c = 0; c < ncol; ++c)
        if (out.columns[c].role == ColumnRole::Identifier && distinct[c].size() * 2 <= nonEmpty[c]) runIdentity.push_back(c);

    // ---- 5. Checkpoints a step column finds: the rows of one run differ only along training ----
    const bool fileStep = std::any_of(steps.begin(), steps.end(), [&](std::size_t c) {
        const auto f = mappedField(table, s.columns[c]);
        return f && *f == RunField::Step;
    });
    if (!totalSteps.empty()) {
        for (std::size_t k = 0; k < n; ++k)
            if (isCheckpoint[k]) out.checkpoint[s.runs[k]] = 1, ++out.checkpointRows;
        // Each row's run where the file names none: its size, the total its step reaches, its
        // settings (conditions, knobs, repeats) and its launch; the step along it.
        std::vector<std::size_t> identity = runIdentity;
        for (const auto& [column, totalName] : totalSteps)
            if (!totalName.empty())
                identity.push_back(static_cast<std::size_t>(std::find(s.columns.begin(), s.columns.end(), totalName) - s.columns.begin()));
        const std::size_t stepColumn = totalSteps.front().first;
        for (std::size_t k = 0; k < n; ++k) {
            const Run& r = run(k);
            if (!r.runId.empty() || !r.name.empty() || known(r.step)) continue;
            std::string name = "N " + shortNumber(r.params);
            for (auto c : identity)
                if (!value(k, c).empty()) name += ", " + s.columns[c] + " " + std::string(value(k, c));
            out.curveName[s.runs[k]] = std::move(name);
            out.curveStep[s.runs[k]] = parseNumber(value(k, stepColumn));
        }
        const auto& [column, total] = totalSteps.front();
        out.notes.push_back("checkpoints: " + plural(out.checkpointRows, "row", "rows") + " before " + s.columns[column] + " reaches " +
                            (total.empty() ? std::string("1") : total) +
                            " are checkpoints along their runs (loss curves), left out of the analyses");
    } else if (!steps.empty() && !fileStep) {
        const std::vector<std::size_t>& identity = runIdentity;
        std::map<std::string, std::vector<std::size_t>> runsOf;
        for (std::size_t k = 0; k < n; ++k)
            if (auto p = pointKey(k, identity)) runsOf[*p].push_back(k);
        const std::size_t stepColumn = steps.front();
        std::size_t along = 0;
        for (const auto& [key, rows] : runsOf) {
            if (rows.size() < 2) continue;
            double last = -std::numeric_limits<double>::infinity();
            for (auto k : rows) last = std::max(last, parseNumber(value(k, stepColumn)));
            bool any = false;
            for (auto k : rows)
                if (parseNumber(value(k, stepColumn)) < last) isCheckpoint[k] = 1, any = true;
            along += any;
        }
        for (std::size_t k = 0; k < n; ++k)
            if (isCheckpoint[k]) out.checkpoint[s.runs[k]] = 1, ++out.checkpointRows;
        if (out.checkpointRows)
            out.notes.push_back("checkpoints along " + plural(along, "run", "runs") + " (" + s.columns[stepColumn] + "): each run's last is the run, the other " +
                                plural(out.checkpointRows, "row is", "rows are") + " its loss curve, left out of the analyses");
    }

    // ---- 6. Sweeps: at each point, the knobs' best setting stands for it (repeats averaged) ----
    std::size_t pointsCount = 0;
    {
        std::map<int, std::map<std::string, std::vector<std::size_t>>> at;  // point -> setting -> runs
        std::vector<char> pointSeen(static_cast<std::size_t>(pointCount), 0);
        for (std::size_t k = 0; k < n; ++k) {
            if (isCheckpoint[k] || !hasPoint[k] || !std::isfinite(run(k).loss()) || pointId[k] < 0) continue;
            if (!pointSeen[static_cast<std::size_t>(pointId[k])]) pointSeen[static_cast<std::size_t>(pointId[k])] = 1, ++pointsCount;
            if (!knobs.empty()) at[pointId[k]][groupKey(k, knobs)].push_back(k);
        }
        std::set<std::string> swept;
        for (const auto& [point, settings] : at) {
            if (settings.size() < 2 || knobs.empty()) continue;
            auto mean = [&](const std::vector<std::size_t>& rows) {
                double sum = 0;
                for (auto k : rows) sum += run(k).loss();
                return sum / static_cast<double>(rows.size());
            };
            const auto best = std::min_element(settings.begin(), settings.end(),
                                               [&](const auto& a, const auto& b) { return mean(a.second) < mean(b.second); });
            const double bestLoss = mean(best->second);
            const std::size_t bestRun = best->second.front();
            ++out.sweeps;
            for (const auto& [setting, rows] : settings) {
                if (&rows == &best->second) continue;
                for (auto k : rows) {
                    std::string values;
                    for (auto c : knobs)
                        if (value(k, c) != value(bestRun, c)) {
                            values += (values.empty() ? "" : ", ") + s.columns[c] + " " + std::string(value(k, c));
                            swept.insert(s.columns[c]);
                        }
                    char delta[32];
                    std::snprintf(delta, sizeof delta, "%+.3g", run(k).loss() - bestLoss);
                    out.sweepLeftOut[s.runs[k]] = "not the best of its sweep: " + values + ", loss " + delta;
                    ++out.sweepRunsLeftOut;
                }
            }
        }
        if (out.sweeps) {
            std::string over;
            for (auto c : knobs)
                if (swept.count(s.columns[c])) over += (over.empty() ? "" : ", ") + s.columns[c];
            out.notes.push_back("sweeps: " + std::to_string(out.sweeps) + " over " + over +
                                " (runs of one series at the same N and D); the best setting of each stands for it, " +
                                plural(out.sweepRunsLeftOut, "other run is", "other runs are") +
                                " left out (all sweep runs: --all-sweep-runs)");
        }
        // A sweep that covers only some points of a series leaves the others at whatever setting they
        // were trained with: the runs kept then mix settings, which biases a profile as much as a badly
        // tuned run. Said where one setting wins the series' sweeps throughout (three or more, three in
        // four): then the others are systematically worse, not merely tuned per size.
        std::vector<std::string> by = options.seriesBy;
        if (by.empty())
            for (auto c : conditions) by.push_back(s.columns[c]);
        for (auto c : knobs) {
            if (!swept.count(s.columns[c])) continue;
            std::map<std::string, std::map<std::string, int>> wins;  // series -> winning value -> sweeps
            std::map<std::string, std::set<std::string>> kept;       // series -> values among the runs kept
            for (const auto& [point, settings] : at) {
                std::optional<std::size_t> winner;
                for (const auto& [setting, rows] : settings)
                    for (auto k : rows) {
                        const std::string series = data::seriesValue(run(k), by);
                        if (out.sweepLeftOut[s.runs[k]].empty()) {
                            kept[series].insert(std::string(value(k, c)));
                            if (settings.size() > 1) winner = k;
                        }
                    }
                if (winner) ++wins[data::seriesValue(run(*winner), by)][std::string(value(*winner, c))];
            }
            for (const auto& [series, values] : kept) {
                int sweeps = 0, most = 0;
                for (const auto& [v, count] : wins[series]) sweeps += count, most = std::max(most, count);
                if (values.size() < 2 || most < 3 || 4 * most < 3 * sweeps) continue;
                std::string list;
                for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
                out.notes.push_back("sweeps: the runs kept in series " + series + " mix " + s.columns[c] + " " + list +
                                    " (points no sweep covers keep their own setting): --series " + s.columns[c] +
                                    " or --where analyses each setting apart");
            }
        }
        if (!repeats.empty()) {
            std::string by;
            for (auto c : repeats) by += (by.empty() ? "" : ", ") + s.columns[c];
            out.notes.push_back("repeats: runs that differ only in " + by +
                                " are repeats of one point; every one stays in the fits, and a sweep compares their mean loss");
        }
    }
    out.points = pointsCount;

    // ---- 7. Budgets: the file's column, else the run names checked against C, else clusters of C ----
    {
        std::vector<std::size_t> withC;
        for (std::size_t k = 0; k < n; ++k)
            if (!isCheckpoint[k] && hasPoint[k] && positive(run(k).flops) && std::isfinite(run(k).loss())) withC.push_back(k);
        const bool tokenParam = [&] {
            return !withC.empty() && std::all_of(withC.begin(), withC.end(), [&](std::size_t k) {
                return run(k).experimentSet == data::ExperimentSet::TokenParam;
            });
        }();
        std::optional<std::string> budgetColumn;
        for (std::size_t c = 0; c < ncol; ++c)
            if (out.columns[c].role == ColumnRole::Budget) budgetColumn = s.columns[c];
        const bool fileBudgets =
            std::any_of(withC.begin(), withC.end(), [&](std::size_t k) { return known(run(k).budget); });
        auto& b = out.budgets;
        std::set<double> levels;
        if (fileBudgets) {
            b.source = "column '" + budgetColumn.value_or("budget") + "'";
            for (auto k : withC) {
                const Run& r = run(k);
                if (known(r.budget)) {
                    out.budget[s.runs[k]] = r.budget;
                    levels.insert(r.budget);
                } else if (r.experimentSet != data::ExperimentSet::TokenParam) {
                    b.unassigned.push_back({s.runs[k], "its budget cell is empty"});
                }
            }
        } else if (!withC.empty() && !tokenParam) {
            // The budget a run's name gives, the same multiple of its compute as the other runs'.
            std::vector<std::optional<double>> named(withC.size());
            std::vector<double> ratios;
            for (std::size_t i = 0; i < withC.size(); ++i) {
                const Run& r = run(withC[i]);
                named[i] = budgetInName(r.name);
                if (!named[i]) named[i] = budgetInName(r.runId);
                if (named[i]) ratios.push_back(r.flops / *named[i]);
            }
            if (ratios.size() * 2 >= withC.size() && ratios.size() >= 3) {
                std::vector<double> sorted = ratios;
                std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
                const double m = sorted[sorted.size() / 2];
                std::map<double, double> levelOf;  // name budget -> level in the runs' compute
                // A name's budget in the runs' compute: three significant digits where that is within 0.1 %
                // (a tracker's total of 3.0000026 x the name's budget is 3 x).
                auto tidy = [](double level) {
                    const double p = std::pow(10.0, std::floor(std::log10(level)) - 2);
                    const double round = std::round(level / p) * p;
                    return std::abs(round / level - 1) < 1e-3 ? round : level;
                };
                for (std::size_t i = 0; i < withC.size(); ++i)
                    if (named[i] && std::abs(run(withC[i]).flops / *named[i] / m - 1) <= 0.25) levelOf[*named[i]] = tidy(*named[i] * m);
                for (const auto& [nb, level] : levelOf) levels.insert(level);
                char ratio[32];
                std::snprintf(ratio, sizeof ratio, "%.3g", m);
                b.source = "run names (" + (run(withC.front()).name.empty() ? run(withC.front()).runId : run(withC.front()).name) +
                           ", ...), the compute " + ratio + "x the name's budget";
                for (std::size_t i = 0; i < withC.size(); ++i) {
                    const std::size_t k = withC[i];
                    const double C = run(k).flops;
                    if (named[i] && levelOf.count(*named[i]) && std::abs(C / *named[i] / m - 1) <= 0.25) {
                        out.budget[s.runs[k]] = levelOf[*named[i]];
                        continue;
                    }
                    // A run whose name says another multiple: by its compute, to the level it lies at.
                    const auto near = std::min_element(levels.begin(), levels.end(), [&](double a, double b2) {
                        return std::abs(std::log(C / a)) < std::abs(std::log(C / b2));
                    });
                    if (near != levels.end() && std::abs(C / *near - 1) <= 0.25) {
                        out.budget[s.runs[k]] = *near;
                        continue;
                    }
                    std::string why = "its compute " + shortNumber(C) + " lies at no budget of the study";
                    if (named[i]) why = "its name says " + shortNumber(*named[i]) + ", but " + why;
                    b.unassigned.push_back({s.runs[k], why});
                }
            } else {
                // Clusters of C: the densest window of compute within a factor 1.5 (±20 %, as a
                // nominal budget's runs lie about it) holding three model sizes or more is a budget;
                // then the densest of the rest, until no window holds three sizes. Runs between the
                // windows are in no budget.
                constexpr double kWindow = 0.1761;  // log10(1.5)
                // The distinct (C, N) of the runs, with how many runs each holds (a million runs of a few
                // thousand distinct points cluster as fast as the points), in ascending C.
                std::map<std::pair<double, long long>, std::size_t> distinctAt;
                for (auto k : withC) ++distinctAt[{run(k).flops, nKey[k]}];
                std::vector<double> logC;
                std::vector<long long> sizeOf;
                std::vector<std::size_t> weight;
                for (auto& [key, countThenIndex] : distinctAt) {
                    logC.push_back(std::log10(key.first));
                    sizeOf.push_back(key.second);
                    weight.push_back(countThenIndex);
                    countThenIndex = weight.size() - 1;  // from here on: the point's index
                }
                const std::size_t m = logC.size();
                std::vector<int> clusterOf(m, -1);
                std::vector<std::pair<std::size_t, std::size_t>> windows;  // [first, last) in the distinct points
                // Each round slides a window over the points not yet in a budget (two pointers, the
                // sizes in it counted): linear in the points; at most 200 budgets.
                for (int round = 0; round < 200; ++round) {
                    std::size_t bestFirst = 0, bestLast = 0, bestCount = 0, inCount = 0;
                    std::unordered_map<long long, int> inWindow;
                    for (std::size_t i = 0, j = 0; i < m; ++i) {
                        if (clusterOf[i] >= 0) {
                            inWindow.clear();
                            inCount = 0;
                            j = i + 1;
                            continue;
                        }
                        if (j < i) j = i;
                        while (j < m && clusterOf[j] < 0 && logC[j] - logC[i] <= kWindow) ++inWindow[sizeOf[j]], inCount += weight[j++];
                        // A profile spans model sizes (at one compute, N and D trade): three sizes or more
                        // over a factor of two, not the neighbouring sizes of a fixed-token ladder.
                        if (inWindow.size() >= 3 && inCount > bestCount) {
                            long long lo = sizeOf[i], hi = lo;
                            for (const auto& [size, count] : inWindow) lo = std::min(lo, size), hi = std::max(hi, size);
                            if (hi - lo >= std::llround(std::log(2.0) * 1e6)) bestFirst = i, bestLast = j, bestCount = inCount;
                        }
                        // i leaves the window.
                        if (j > i) {
                            inCount -= weight[i];
                            if (auto it = inWindow.find(sizeOf[i]); it != inWindow.end() && --it->second == 0) inWindow.erase(it);
                        }
                    }
                    if (bestCount == 0) break;
                    for (std::size_t q = bestFirst; q < bestLast; ++q) clusterOf[q] = static_cast<int>(windows.size());
                    windows.push_back({bestFirst, bestLast});
                }
                std::size_t clustered = 0;
                for (const auto& [first, last] : windows)
                    for (std::size_t q = first; q < last; ++q) clustered += weight[q];
                if (clustered * 2 >= withC.size() && clustered > 0) {
                    b.source = "clusters of the runs' compute C (the densest windows of a factor 1.5 holding three model sizes or more, "
                               "over a factor of two)";
                    std::vector<double> levelOf(windows.size());
                    for (std::size_t w = 0; w < windows.size(); ++w) {
                        const auto [first, last] = windows[w];
                        double logSum = 0, runs = 0;
                        for (std::size_t q = first; q < last; ++q) logSum += logC[q] * static_cast<double>(weight[q]), runs += static_cast<double>(weight[q]);
                        double level = std::pow(10.0, logSum / runs);
                        // Two significant digits where the cluster holds them (1.0e19, not 1.0037e19).
                        const double p = std::pow(10.0, std::floor(std::log10(level)) - 1);
                        const double round = std::round(level / p) * p;
                        if (std::log10(round) >= logC[first] - 1e-9 && std::log10(round) <= logC[last - 1] + 1e-9) level = round;
                        levelOf[w] = level;
                        levels.insert(level);
                    }
                    for (auto k : withC) {
                        const std::size_t q = distinctAt.at({run(k).flops, nKey[k]});
                        if (clusterOf[q] >= 0) {
                            out.budget[s.runs[k]] = levelOf[static_cast<std::size_t>(clusterOf[q])];
                            continue;
                        }
                        const double C = run(k).flops;
                        const auto near = std::min_element(levels.begin(), levels.end(), [&](double a, double b2) {
                            return std::abs(std::log(C / a)) < std::abs(std::log(C / b2));
                        });
                        b.unassigned.push_back({s.runs[k], "its compute " + shortNumber(C) + " lies in no cluster of three model sizes" +
                                                               (near != levels.end() ? " (the nearest budget, " + shortNumber(*near) +
                                                                                           ", is " + shortNumber(std::max(C / *near, *near / C)) +
                                                                                           "x away)"
                                                                                     : std::string())});
                    }
                } else {
                    b.source = "none: the runs' compute forms no budgets (" + std::to_string(clustered) + " of " +
                               plural(withC.size(), "run", "runs") + " lie in clusters of three model sizes or more)";
                }
            }
        } else {
            b.source = withC.empty() ? "none: no run in scope has N, D and C" : "none: token/parameter runs, not an IsoFLOP design";
        }
        b.levels.assign(levels.begin(), levels.end());
        if (!b.unassigned.empty())
            out.notes.push_back("budgets: " + plural(b.unassigned.size(), "run lands", "runs land") +
                                " in no budget (check lists them with the reason)");
    }

    // ---- 8. Series: the conditions' values (the file name where there are none) ----
    std::vector<std::string> by = options.seriesBy;
    if (by.empty())
        for (const auto& c : out.conditions) by.push_back(c);
    // With no condition left in scope, the text columns the scope fixes (`--where model=lab-c`) name the
    // one series, as they named it in the whole study.
    if (by.empty())
        for (const auto& w : scope.where)
            if (w.op == RowCondition::Op::Equal && std::isnan(w.number))
                if (const auto* c = out.column(w.column); c && c->role == ColumnRole::Constant) by.push_back(w.column);
    // No condition at all: one series, named by the first table (several files with nothing that
    // separates their runs are one study: a file of held-out runs beside its training runs). A run
    // made by a program (the built-in example) has no cells to read: it keeps the series it was made in.
    const std::string oneSeries = n > 0 ? run(0).dataset : total > 0 ? table.runs.front().dataset : std::string();
    for (std::size_t i = 0; i < total; ++i)
        out.series[i] = !table.runs[i].raw.header && options.seriesBy.empty() ? table.runs[i].series
                        : by.empty()                                      ? oneSeries
                                                                          : data::seriesValue(table.runs[i], by);
    out.runsInScope = n - static_cast<std::size_t>(std::count(isCheckpoint.begin(), isCheckpoint.end(), 1));
    return out;
}

}  // namespace scalex::analysis
