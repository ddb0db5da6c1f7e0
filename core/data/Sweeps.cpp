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

}  // namespace scalex::data
