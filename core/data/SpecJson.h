#pragma once
// Scalex's own JSON for a model spec (core/accounting/ModelSpec.h): every field of the spec by
// the names validate() uses ("attention.n_kv_heads"), the layer list run-length coded, e.g.
//   {"format": "scalex-model-spec", "format_version": 1, "name": "llama", "d_model": 4096,
//    "vocab": 32000, ..., "attention": {"n_heads": 32, "n_kv_heads": 8, ...},
//    "feed_forward": {"width": 14336, "gated": true, "bias": false},
//    "layers": [{"mixer": "attention", "feed_forward": "dense", "repeat": 32}]}
// Written: every block that differs from an empty one, so reading gives back the same spec.
// Read: a block or field left out takes the value of an empty spec (0, false, RMSNorm), an
// unknown key or a value of the wrong kind is an error naming the field, and the spec must pass
// validate(). A model file (readModelFile) is a spec in this JSON or a Hugging Face config.json.
#include <QByteArray>
#include <QJsonObject>
#include <string>

#include "core/accounting/ModelSpec.h"
#include "core/data/HfConfig.h"
#include "core/data/LoadError.h"

namespace scalex::data {

inline constexpr const char* kSpecFormatName = "scalex-model-spec";
inline constexpr int kSpecFormatVersion = 1;

QJsonObject specToJson(const accounting::ModelSpec& spec);
// Indented JSON text of specToJson, ending in a newline.
QByteArray specJsonBytes(const accounting::ModelSpec& spec);

// `file` names the source in errors; fields are named with their block ("moe.top_k").
Expected<accounting::ModelSpec> specFromJson(const QJsonObject& object, const std::string& file);
Expected<accounting::ModelSpec> parseSpecJson(const QByteArray& bytes, const std::string& file);

// True when the object says it is a spec in Scalex's JSON ("format": "scalex-model-spec").
bool isSpecJson(const QJsonObject& object);

// A model file: Scalex's spec JSON, or a Hugging Face config.json (HfConfig.h). A spec file's
// report lists every field as used.
Expected<HfModel> parseModelFile(const QByteArray& bytes, const std::string& file);
Expected<HfModel> readModelFile(const std::string& path);

}  // namespace scalex::data
