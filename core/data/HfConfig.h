#pragma once
// Reads a Hugging Face config.json as published beside a model's weights into a model spec
// (core/accounting/ModelSpec.h), for the model types hfModelTypes() lists, and reports which
// fields it used, which it ignored, and what it assumed where the file is silent (the default of
// the type's configuration class in HF transformers). An unknown model type, a missing required
// field, a value of the wrong kind and fields that contradict each other are errors naming the
// field (LoadError::column).
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
};

struct HfModel {
    accounting::ModelSpec spec;
    ConfigReport report;
};

// The model types the reader knows (model_type values), in alphabetical order.
const std::vector<std::string>& hfModelTypes();

Expected<HfModel> parseHfConfig(const QByteArray& bytes, const std::string& file = "config.json");
Expected<HfModel> readHfConfig(const std::string& path);

}  // namespace scalex::data
