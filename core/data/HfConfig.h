#pragma once
// Reads a Hugging Face config.json as published beside a model's weights into a model spec
// (core/accounting/ModelSpec.h) by the keys it has, model_type a hint, not a gate: the types
// hfModelTypes() lists have a parser or a hint of their own (what their configs leave unsaid:
// q/k norms, sinks, expert biases), any other decoder is read from its keys alone, and a
// multimodal config's language model from text_config. The report says which keys were used, which
// ignored, and what was assumed where the file is silent (the default of the type's configuration
// class in HF transformers). A config whose layers cannot be determined, a missing required key, a
// value of the wrong kind and keys that contradict each other are errors naming the key
// (LoadError::column, with LoadError::key set).
#include <QByteArray>
#include <string>
#include <vector>

#include "core/accounting/ModelSpec.h"
#include "core/data/LoadError.h"

namespace scalex::data {

struct ConfigField {
    std::string name;   // the key in config.json; nested keys as "ssm_cfg.d_state"
    std::string value;  // the value read or assumed, as JSON text
    std::string note;   // why it was ignored or assumed, where that needs saying
};

struct ConfigReport {
    std::string modelType;             // model_type, or "mamba_ssm" for a state-spaces checkpoint's config
    std::vector<ConfigField> used;     // fields the spec is made from
    std::vector<ConfigField> ignored;  // fields present that do not change the accounting
    std::vector<ConfigField> assumed;  // fields absent, with the value taken
    // A multimodal config's vision tower and projector, counted where Scalex knows the tower
    // (Gemma 3's SigLIP), apart from the language model the spec counts; 0 and empty otherwise.
    std::int64_t visionParameters = 0;
    std::string vision;  // what visionParameters counts, and from which modeling code
};

struct HfModel {
    accounting::ModelSpec spec;
    ConfigReport report;
};

// The model types the reader knows by name (a parser or a hint of their own), in alphabetical order;
// others are read by their keys.
const std::vector<std::string>& hfModelTypes();

Expected<HfModel> parseHfConfig(const QByteArray& bytes, const std::string& file = "config.json");
Expected<HfModel> readHfConfig(const std::string& path);

}  // namespace scalex::data
