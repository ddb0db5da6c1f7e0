#pragma once
// The object `scalex account --json` prints, composed once for the verb and the Python module's
// scalex.account: the accounting (App. "Parameter Counts", "FLOP Counts", "Memory Operation
// Counts") of the paper's study architecture from its sizes, or of any spec or Hugging Face config.
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/accounting/CacheSize.h"
#include "core/accounting/FlopCount.h"
#include "core/accounting/MemoryOps.h"
#include "core/accounting/ModelConfig.h"
#include "core/accounting/ModelSpec.h"
#include "core/accounting/SpecAccounting.h"
#include "core/data/HfConfig.h"

namespace scalex::analysis {

// The FLOP factors and byte widths an account may change, by their option names (--f-causal, --bytes-qkv, ...).
struct AccountFactorOption {
    const char* name;
    double accounting::OpFactors::*field;
};
inline constexpr AccountFactorOption kAccountFactorOptions[] = {
    {"f-causal", &accounting::OpFactors::causal}, {"f-softmax", &accounting::OpFactors::softmax},
    {"f-norm", &accounting::OpFactors::norm},     {"f-skip", &accounting::OpFactors::skip},
    {"f-exp", &accounting::OpFactors::exp},       {"f-log", &accounting::OpFactors::log},
    {"f-sig", &accounting::OpFactors::sig},       {"f-max", &accounting::OpFactors::max},
    {"f-abs", &accounting::OpFactors::abs},       {"f-swish", &accounting::OpFactors::swish},
};

struct AccountByteOption {
    const char* name;
    double accounting::ByteWidths::*field;
};
inline constexpr AccountByteOption kAccountByteOptions[] = {
    {"bytes-weights", &accounting::ByteWidths::weights},     {"bytes-embedding", &accounting::ByteWidths::embedding},
    {"bytes-qkv", &accounting::ByteWidths::qkv},             {"bytes-gates", &accounting::ByteWidths::gates},
    {"bytes-state", &accounting::ByteWidths::state},         {"bytes-act", &accounting::ByteWidths::act},
    {"bytes-act-norm", &accounting::ByteWidths::actNorm},    {"bytes-act-ff", &accounting::ByteWidths::actFf},
    {"bytes-norm-weights", &accounting::ByteWidths::normWeights},
};

inline constexpr accounting::MixerKind kMixerKinds[] = {accounting::MixerKind::Attention, accounting::MixerKind::Mlstm,
                                                        accounting::MixerKind::Mamba, accounting::MixerKind::DeltaNet,
                                                        accounting::MixerKind::ShortConv};
// attention, mlstm, mamba, delta_net, short_conv: the keys of the account's "layers".
QString mixerKindName(accounting::MixerKind kind);

// The study's configuration from its sizes (makeStudyConfig) with the checks of the verbs'
// architecture options; nullopt and `problem` naming the option (--n-heads, --chunk, ...) when they fail.
std::optional<accounting::ModelConfig> studyConfigFromSizes(accounting::Family family, std::int64_t dModel, std::int64_t nLayers,
                                                            std::int64_t nHeads, const accounting::ConfigOverrides& overrides,
                                                            const std::string& headsOption, std::string* problem);

// The cache kind of an account: `cache` (mha, gqa, mla or mlstm) or the configuration's default;
// nullopt and `problem` naming --cache when it is unknown or contradicts the family (`familyText`, as given).
std::optional<accounting::SequenceMix> cacheKindFor(const accounting::ModelConfig& config, const std::optional<std::string>& cache,
                                                    const std::string& familyText, std::string* problem);

// `scalex account --family ... --json`: parameters, training FLOPs per token, forward FLOPs of a
// sequence, prefill and decode-step FLOPs and bytes, and the cache of `mix`.
QJsonObject accountStudyJson(const accounting::ModelConfig& config, accounting::SequenceMix mix, const accounting::FlopConvention& convention,
                             const accounting::ByteWidths& bytes, double ctx, double batch, double prefill, double generate);

// The figures an account of a spec gives at a context and batch, computed once for its text and its JSON.
struct SpecAccount {
    accounting::ParamCounts params;
    accounting::FlopSplit forward;   // per token at `ctx`
    double train = 0;                // training FLOPs per token at `ctx`
    double sixN = 0;                 // 6 x the active parameters (the common approximation)
    accounting::CacheElements cache;
    double cacheBytes = 0;           // the cache of `batch` sequences of `ctx` tokens
};
SpecAccount accountSpec(const accounting::ModelSpec& spec, const accounting::FlopConvention& convention, const accounting::ByteWidths& bytes,
                        double ctx, double batch);

// `scalex account --config FILE | --spec FILE --json`: the spec in a few numbers, the fields of
// the file used, ignored and assumed, parameters by group, FLOPs per token and the cache.
QJsonObject accountModelJson(const data::HfModel& model, const QString& file, const accounting::FlopConvention& convention,
                             const accounting::ByteWidths& bytes, double ctx, double batch);

}  // namespace scalex::analysis
