#pragma once
// A generated table of checkpoints as a training log exports it (run_name, step, params, tokens,
// loss; one row per run and step, runs one after another): `runs` runs of `checkpoints` rows each.
// Deterministic, so that benchmarks of the same size read the same bytes.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace scalex::bench {

// Appends the table to `out` (a std::string or anything with append(const char*, size_t)).
template <typename Out>
void appendCheckpointStudy(Out& out, int runs, int checkpoints) {
    const char* header = "run_name,step,params,tokens,loss\n";
    out.append(header, std::char_traits<char>::length(header));
    char line[128];
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int r = 0; r < runs; ++r) {
        const double params = std::round(20e6 * std::pow(1.006, r % 1000));  // 20M .. ~8B, repeating every 1000 runs
        const double tokensPerStep = 1 << 19;
        for (int c = 1; c <= checkpoints; ++c) {
            const long long step = 100ll * c;
            const double tokens = tokensPerStep * static_cast<double>(step);
            // The Chinchilla form with a little noise (xorshift: same bytes on every machine).
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            const double noise = (static_cast<double>(state >> 11) / 9007199254740992.0 - 0.5) * 0.01;
            const double loss = 1.69 + 406.4 / std::pow(params, 0.34) + 410.7 / std::pow(tokens, 0.28) + noise;
            const int n = std::snprintf(line, sizeof line, "run_%04d,%lld,%.0f,%.0f,%.6f\n", r, step, params, tokens, loss);
            out.append(line, static_cast<std::size_t>(n));
        }
    }
}

inline std::string checkpointStudy(int runs, int checkpoints) {
    std::string out;
    out.reserve(static_cast<std::size_t>(runs) * static_cast<std::size_t>(checkpoints) * 48 + 64);
    appendCheckpointStudy(out, runs, checkpoints);
    return out;
}

}  // namespace scalex::bench
