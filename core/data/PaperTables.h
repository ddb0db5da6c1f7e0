#pragma once
// The paper's tables that Scalex ships in datasets/paper/ (see datasets/README.md): model
// configurations, L(N,D) fit parameters, over-training exponents, IsoFLOP batch sizes and power
// laws, and the compute-optimal tables. Loaded from a directory (the source tree) or from the
// embedded copy (kBuiltinPaperDir).
#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/Family.h"
#include "core/accounting/ModelConfig.h"
#include "core/data/LoadError.h"
#include "core/data/RunTable.h"

namespace scalex::data {

// The copy of datasets/paper embedded by resources/scalex.qrc.
inline const char* const kBuiltinPaperDir = ":/scalex/datasets/paper";

// One row of Tab. xlstm/transformer_tokenparam_hyperparams or _isoflop_hyperparams.
struct PaperModelConfig {
    std::string sourceTable;
    accounting::Family family = accounting::Family::Transformer;
    ExperimentSet experimentSet = ExperimentSet::Other;
    std::int64_t paramsM = 0;  // the table's #Params (M), truncated
    std::int64_t dModel = 0, dFf = 0, dQk = 0, dHv = 0, nHeads = 0, nLayers = 0;
    std::vector<std::int64_t> batchSizes;  // sequences; empty for the IsoFLOP tables
    std::vector<double> learningRates;     // empty for the IsoFLOP tables
    int line = 0;

    // The architecture with the study's rules for everything the table does not list.
    accounting::ModelConfig config() const;
};

// One row of Tab. lnd_fit_params: L(N,D) = exp(logE) + (exp(logA) N^-alpha + exp(logB) D^-beta)^gamma
// (Eq. l_nd, natural logs).
struct LossSurfaceParams {
    accounting::Family family = accounting::Family::Transformer;
    double huberDelta = 0;
    bool deltaAtLeast = false;  // the paper prints ">= 10^-1"
    double logA = 0, logB = 0, logE = 0, alpha = 0, beta = 0, gamma = 1;

    double loss(double params, double tokens) const;
};

// One row of Tab. isoflop_batch_sizes (context 8192; other contexts keep B x T constant).
struct IsoFlopBatchSize {
    double budget = 0;
    std::int64_t batchSeqs = 0;
    std::int64_t batchTokens = 0;
    std::int64_t context = 0;
};

// One row of Tab. tokenparam_slopes: eta of L(C) = lambda C^-eta per tokens/param ratio M.
struct OverTrainingSlope {
    double tokensPerParam = 0;
    std::optional<double> etaTransformer, etaXlstm;  // empty where the paper prints "-"
};

// N* = coefN H^exponentN, D* = coefD H^exponentD (Eq. nd_opt), as printed in a table header.
struct IsoFlopPowerLawRow {
    std::string sourceTable;
    accounting::Family family = accounting::Family::Transformer;
    std::int64_t context = 0;
    double coefN = 0, exponentN = 0, coefD = 0, exponentD = 0;
};

// One row of Tab. estimated_optimal_flops_tokens_powerlaw(_context_*).
struct OptimalConfigRow {
    std::string sourceTable;
    accounting::Family family = accounting::Family::Transformer;
    std::int64_t context = 0;
    std::string paramsLabel;  // as printed: "100M", "1B"
    double params = 0;
    double flops = 0;
    std::string tokensLabel;  // as printed: "22.8B", "1.03T"
    double tokens = 0;
    double tokensPerParam = 0;
};

struct PaperTables {
    std::vector<PaperModelConfig> modelConfigs;
    std::vector<LossSurfaceParams> lossSurfaces;
    std::vector<IsoFlopBatchSize> isoflopBatchSizes;
    std::vector<OverTrainingSlope> overTrainingSlopes;
    std::vector<IsoFlopPowerLawRow> isoflopPowerLaws;
    std::vector<OptimalConfigRow> optimalConfigs;  // ctx-8192 table first, then the per-context tables

    const LossSurfaceParams* lossSurface(accounting::Family family, double huberDelta) const;
    std::vector<PaperModelConfig> configs(accounting::Family family, ExperimentSet set) const;
};

// Loads every table from `dir` (a directory path or kBuiltinPaperDir). Errors name the file,
// line and column.
Expected<PaperTables> loadPaperTables(const QString& dir = QString::fromLatin1(kBuiltinPaperDir));

// The first '#' line of a shipped CSV (its table label and caption), without the '#'.
std::string tableComment(const QString& path);

}  // namespace scalex::data
