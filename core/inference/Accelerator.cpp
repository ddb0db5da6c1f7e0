#include "core/inference/Accelerator.h"

#include <algorithm>
#include <cctype>

namespace scalex::inference {

std::vector<Accelerator> paperAccelerators() {
    // Tab. accelerator_specs (bfloat16 without sparsity; memory and communication bandwidth).
    // The table's printed intensity column (133, 161, 295, 292) is alpha/beta rounded.
    return {
        {"V100", "V100 SXM2", 2017, 120e12, 0.9e12, 0.3e12},
        {"A100", "A100 SXM", 2020, 312e12, 2.039e12, 0.6e12},
        {"H100", "H100 SXM", 2022, 989e12, 3.35e12, 0.9e12},
        {"B200", "B200 HGX", 2025, 2250e12, 7.7e12, 1.8e12},
    };
}

namespace {
bool equalsIgnoreCase(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}
}  // namespace

std::optional<Accelerator> paperAccelerator(std::string_view name) {
    for (auto& a : paperAccelerators())
        if (equalsIgnoreCase(a.name, name) || equalsIgnoreCase(a.description, name)) return a;
    return std::nullopt;
}

std::optional<std::string> validate(const Accelerator& a) {
    if (a.name.empty()) return "name must not be empty";
    if (!(a.flops > 0)) return "flops_per_s must be positive";
    if (!(a.memoryBandwidth > 0)) return "memory_bandwidth must be positive";
    if (a.commBandwidth < 0) return "comm_bandwidth must not be negative";
    return std::nullopt;
}

}  // namespace scalex::inference
