#pragma once
// The runtime-model analyses (Sec. "Modeling Inference Runtimes", App. "Modeling Inference
// Characteristics"): the accelerators whose roofs the runtime model is stated against, from the
// paper's table or from a table file (core/data reads the study's files; the Accelerator type is
// core/inference's).
#include <QString>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/inference/Accelerator.h"

namespace scalex::analysis {

// ---- accelerators ---------------------------------------------------------------------------

// An accelerator table in the format of datasets/paper/accelerators.csv (name, description, year,
// bf16_flops_per_s, memory_bandwidth_bytes_per_s, [arithmetic_intensity_flops_per_byte],
// [comm_bandwidth_bytes_per_s]). On error nothing, and *error is "FILE:LINE:COLUMN (NAME): what
// was expected".
std::optional<std::vector<inference::Accelerator>> loadAccelerators(const QString& path, QString* error);

}  // namespace scalex::analysis
