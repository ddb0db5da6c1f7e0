#pragma once
// Inference measurements of the study (TTFT and generation step time over batch sizes and
// prefill lengths) and the architectures of the measured models, for the runtime-model fits
// (App. "Modeling Inference Characteristics").
//
// Two file formats are read, told apart by their header:
//  - results:  model,family,batchsize,prefill,num_params,ttft_ms,...,steptime_ms,...,failed
//  - df_dict:  model__model_type,model__model_tag,input_params__batchsize,input_params__prefill,
//              measured_data__ttft,measured_data__steptime,...,model_params__embedding_dim,...
//              (these also carry the architecture of each measured model).
// A raw value of -1 marks a failed measurement of that column; such points are kept, marked,
// and left out of fits. Errors name file, line, column and what was expected.
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting/ModelConfig.h"
#include "core/data/LoadError.h"

namespace scalex::data {

struct InferenceMeasurement {
    std::string model;      // the study's tag, e.g. "llama2_7b", "xlstm_400m"
    std::string familyTag;  // the study's family tag: llama2 | llama3 | xlstm
    accounting::Family family = accounting::Family::Transformer;
    double batch = 0;
    double prefill = 0;
    double numParams = 0;  // as logged by the benchmark (0 when the file has no column)
    double ttftMs = -1;    // -1 when failed
    double stepMs = -1;    // -1 when failed
    double memoryAllocatedGl1 = -1, memoryReservedGl1 = -1;  // bytes, -1 when failed or absent
    double memoryAllocatedGl101 = -1, memoryReservedGl101 = -1;
    bool failedFlag = false;  // the file's own `failed` column (results format), else any -1
    int line = 0;             // 1-based line in the source file

    bool ttftValid() const { return ttftMs > 0; }
    bool stepValid() const { return stepMs > 0; }
};

struct InferenceModel {
    std::string model;
    std::string familyTag;
    accounting::Family family = accounting::Family::Transformer;
    double numParams = 0;
    std::optional<accounting::ModelConfig> config;
    std::string architectureSource;  // "df_dict <file>" or "appendix <table> <params>M", empty when unknown
    // (count of the architecture - logged num_params) / logged num_params
    double paramMismatch() const;
};

struct InferenceData {
    std::string source;
    std::vector<InferenceMeasurement> points;
    std::vector<InferenceModel> models;  // in order of first appearance
    const InferenceModel* find(const std::string& model) const;
    InferenceModel* find(const std::string& model);
};

// Loads a measurement file (results or df_dict format). On error returns nullopt and sets
// *error to "FILE:LINE:COLUMN: what was expected". A df_dict file also sets the architectures.
std::optional<InferenceData> loadInferenceMeasurements(const QString& path, QString* error);

// The same from the bytes of a measurement file; `file` names them in errors and is the source.
Expected<InferenceData> parseInferenceMeasurements(const QByteArray& bytes, const std::string& file);
// attachDfDictArchitectures (below) from the bytes of a df_dict file; the error, or nullopt.
std::optional<LoadError> attachDfDictArchitectures(InferenceData& data, const QByteArray& dfDict, const std::string& file);

// True when the header names the timing column of either format (ttft_ms or measured_data__ttft).
bool looksLikeInferenceMeasurements(const std::vector<std::string>& header);

// Joins the architectures of a df_dict file onto `data` by model tag (models it does not list are
// left alone). Returns false and sets *error on a bad file or a contradicting architecture.
bool attachDfDictArchitectures(InferenceData& data, const QString& dfDictPath, QString* error);

// The df_dict files beside a results file: <dir>/<stem>_df_dict_*.csv, sorted.
QStringList siblingDfDictFiles(const QString& resultsPath);

// One row of the appendix model tables (datasets/paper/model_configs.csv).
struct AppendixConfig {
    std::string sourceTable;
    std::string experimentSet;  // tokenparam | isoflop
    double paramsM = 0;         // the table's #Params (M)
    accounting::ModelConfig config;
    int line = 0;
};
std::optional<std::vector<AppendixConfig>> loadAppendixConfigs(const QString& path, QString* error);

// Gives every model still without an architecture the Token/Param row of its family whose
// parameter count is nearest in log space (the measured models are the Token/Param
// architectures, Sec. "Empirical Inference Runtimes"). The chunk size of the measured xLSTMs
// (128) is taken from `chunk` when given.
void attachAppendixArchitectures(InferenceData& data, const std::vector<AppendixConfig>& table,
                                 std::optional<std::int64_t> chunk = std::nullopt);

}  // namespace scalex::data
