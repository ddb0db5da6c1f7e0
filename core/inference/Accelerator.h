#pragma once
// Accelerator roofs for the runtime model: compute speed alpha_acc [FLOP/s], memory bandwidth
// beta_acc [byte/s] and communication bandwidth (App. "Modeling Inference Characteristics",
// Tab. accelerator_specs).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace scalex::inference {

struct Accelerator {
    std::string name;           // e.g. "H100"
    std::string description;    // e.g. "H100 SXM"
    int year = 0;
    double flops = 0;           // alpha_acc: dense bfloat16 FLOP/s, without sparsity
    double memoryBandwidth = 0; // beta_acc: byte/s
    double commBandwidth = 0;   // byte/s
    // Arithmetic intensity of the roof, alpha_acc / beta_acc [FLOP/byte].
    double intensity() const { return memoryBandwidth > 0 ? flops / memoryBandwidth : 0; }
    friend bool operator==(const Accelerator&, const Accelerator&) = default;
};

// The four rows of Tab. accelerator_specs: V100 SXM2, A100 SXM, H100 SXM, B200 HGX.
std::vector<Accelerator> paperAccelerators();

// Case-insensitive lookup by short name (V100, A100, H100, B200) or full description.
std::optional<Accelerator> paperAccelerator(std::string_view name);

// Empty when usable, else a one-line reason naming the field.
std::optional<std::string> validate(const Accelerator& accelerator);

}  // namespace scalex::inference
