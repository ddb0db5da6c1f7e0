#pragma once
// SplitMix64 (Steele, Lea & Flood 2014): a small, well-mixed generator whose sequence is fixed by
// its seed on every platform (unlike the standard distributions, whose algorithms the library
// chooses), so resamples and synthetic data are the same everywhere.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace scalex::fit {

struct SplitMix64 {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n) without modulo bias.
    std::size_t below(std::size_t n) {
        const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
        std::uint64_t x;
        do x = next();
        while (x >= limit);
        return static_cast<std::size_t>(x % n);
    }
    // Stream `index` of `seed` (bootstrap replicate b, ...): the state is a hash of both. Seeds
    // a multiple of the increment apart would give one stream shifted by a draw per index, so
    // replicate b would resample replicate 0's runs but b of them.
    static SplitMix64 stream(std::uint64_t seed, std::uint64_t index) {
        SplitMix64 hash{seed ^ (0xD1B54A32D192ED03ull * (index + 1))};
        return SplitMix64{hash.next()};
    }
    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Standard normal by Box & Muller (1958), one draw per call from two uniforms (1 − u keeps the
    // log finite), so that simulated losses are the same everywhere too.
    double normal() {
        const double u = 1.0 - uniform(), v = uniform();
        return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * 3.14159265358979323846 * v);
    }
};

}  // namespace scalex::fit
