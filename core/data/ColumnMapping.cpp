#include "core/data/ColumnMapping.h"

#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>
#include <cctype>

namespace scalex::data {

namespace {

struct FieldInfo {
    RunField field;
    std::string_view key;  // also the first spelling and the CSV writer's column name
    std::vector<std::string_view> spellings;
};

const std::array<FieldInfo, kRunFieldCount>& fieldTable() {
    static const std::array<FieldInfo, kRunFieldCount> table{{
        {RunField::RunId, "run_id", {"run_id", "id", "wandb_id"}},
        {RunField::Name, "name", {"name", "run_name"}},
        {RunField::Dataset, "dataset", {"dataset"}},
        {RunField::Family, "model_family", {"model_family", "family", "model_type"}},
        {RunField::ExperimentSet, "experiment_set", {"experiment_set", "experiment"}},
        {RunField::Status, "status", {"status", "state"}},
        {RunField::Context, "context_length", {"context_length", "ctx", "seq_len", "context", "sequence_length", "ctx_len"}},
        {RunField::DModel, "d_model", {"d_model", "embedding_dim", "hidden_size"}},
        {RunField::NLayers, "n_layers", {"n_layers", "num_blocks", "num_layers", "n_blocks"}},
        {RunField::NHeads, "n_heads", {"n_heads", "num_heads"}},
        {RunField::NKvHeads, "n_kv_heads", {"n_kv_heads", "num_kv_heads"}},
        {RunField::DQk, "d_qk", {"d_qk", "head_dim_qk"}},
        {RunField::DHv, "d_hv", {"d_hv", "head_dim_v"}},
        {RunField::DFf, "d_ff", {"d_ff", "ffn_dim", "intermediate_size"}},
        {RunField::Vocab, "vocab_size", {"vocab_size", "vocab", "n_vocab"}},
        {RunField::Chunk, "chunk_size", {"chunk_size", "chunk"}},
        {RunField::Params, "num_params", {"num_params", "params", "n", "n_params", "parameters"}},
        {RunField::Tokens, "num_tokens_training", {"num_tokens_training", "tokens", "d", "num_tokens", "n_tokens"}},
        {RunField::Flops, "num_flops_training", {"num_flops_training", "flops", "c", "compute"}},
        {RunField::Budget, "isoflop_bucket", {"isoflop_bucket", "isoflop", "budget", "h"}},
        {RunField::BatchSize, "global_batch_size", {"global_batch_size", "batch_size"}},
        {RunField::Steps, "num_train_steps", {"num_train_steps", "steps", "train_steps"}},
        {RunField::LearningRate, "learning_rate", {"learning_rate", "lr"}},
        {RunField::ValLoss, "val_loss", {"val_loss", "val_dclm_loss", "validation_loss", "loss"}},
        {RunField::TrainLoss, "train_loss", {"train_loss", "train_loss_mean"}},
        {RunField::SelectedInPaper, "selected_in_paper", {"selected_in_paper", "selected"}},
        {RunField::FlopMode, "attention_flop_calc_mode", {"attention_flop_calc_mode", "flop_convention"}},
        {RunField::ParamsSource, "params_source", {"params_source"}},
        {RunField::TokensSource, "tokens_source", {"tokens_source"}},
        {RunField::FlopsSource, "flops_source", {"flops_source"}},
        {RunField::Included, "included", {"included"}},
    }};
    return table;
}

const FieldInfo& info(RunField field) { return fieldTable()[static_cast<std::size_t>(field)]; }

}  // namespace

std::string_view fieldKey(RunField field) { return info(field).key; }

std::optional<RunField> fieldByKey(std::string_view key) {
    const std::string k = normalizeColumnName(key);
    for (const auto& f : fieldTable())
        if (f.key == k) return f.field;
    return std::nullopt;
}

const std::vector<std::string_view>& fieldSpellings(RunField field) { return info(field).spellings; }

std::string normalizeColumnName(std::string_view name) {
    std::size_t b = 0, e = name.size();
    while (b < e && std::isspace(static_cast<unsigned char>(name[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(name[e - 1]))) --e;
    std::string out;
    out.reserve(e - b);
    for (std::size_t i = b; i < e; ++i) {
        const char c = name[i];
        if (c == ' ' || c == '-' || c == '.' || c == '/') out += '_';
        else out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
}

std::optional<std::string> ColumnMapping::column(RunField field) const {
    auto it = columns_.find(field);
    if (it == columns_.end()) return std::nullopt;
    return it->second;
}

ColumnMapping ColumnMapping::detect(const std::vector<std::string>& header) {
    std::vector<std::string> normalized;
    normalized.reserve(header.size());
    for (const auto& h : header) normalized.push_back(normalizeColumnName(h));
    ColumnMapping m;
    for (const auto& f : fieldTable()) {
        bool found = false;
        for (auto spelling : f.spellings) {
            for (std::size_t i = 0; i < header.size() && !found; ++i)
                if (normalized[i] == spelling) {
                    m.set(f.field, header[i]);
                    found = true;
                }
            if (found) break;
        }
    }
    return m;
}

QJsonObject ColumnMapping::toJson() const {
    QJsonObject o;
    for (const auto& [field, column] : columns_)
        o.insert(QString::fromUtf8(fieldKey(field).data(), static_cast<qsizetype>(fieldKey(field).size())),
                 QString::fromStdString(column));
    return o;
}

Expected<ColumnMapping> ColumnMapping::fromJson(const QJsonObject& object, const std::string& file) {
    ColumnMapping m;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const std::string key = it.key().toStdString();
        const auto field = fieldByKey(key);
        if (!field) {
            std::string known;
            for (const auto& f : fieldTable()) known += (known.empty() ? "" : ", ") + std::string(f.key);
            return LoadError{file, 0, key, "unknown field (expected one of: " + known + ")"};
        }
        if (!it.value().isString() || it.value().toString().isEmpty())
            return LoadError{file, 0, key, "expected a column name (a non-empty string)"};
        m.set(*field, it.value().toString().toStdString());
    }
    return m;
}

QByteArray ColumnMapping::toJsonBytes() const { return QJsonDocument(toJson()).toJson(QJsonDocument::Indented); }

Expected<ColumnMapping> ColumnMapping::fromJsonBytes(const QByteArray& bytes, const std::string& file) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError) {
        int line = 1;
        for (int i = 0; i < err.offset && i < bytes.size(); ++i)
            if (bytes[i] == '\n') ++line;
        return LoadError{file, line, "", "invalid JSON (" + err.errorString().toStdString() + ")"};
    }
    if (!doc.isObject()) return LoadError{file, 1, "", "expected a JSON object {\"field\": \"column\", ...}"};
    return fromJson(doc.object(), file);
}

std::optional<LoadError> ColumnMapping::save(const std::string& path) const {
    QSaveFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::WriteOnly)) return LoadError{path, 0, "", "cannot write: " + f.errorString().toStdString()};
    f.write(toJsonBytes());
    if (!f.commit()) return LoadError{path, 0, "", "cannot write: " + f.errorString().toStdString()};
    return std::nullopt;
}

Expected<ColumnMapping> ColumnMapping::load(const std::string& path) {
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly)) return LoadError{path, 0, "", "cannot open: " + f.errorString().toStdString()};
    if (f.size() > (1 << 20)) return LoadError{path, 0, "", "a column mapping is a small JSON object; this file is over 1 MiB"};
    return fromJsonBytes(f.readAll(), path);
}

}  // namespace scalex::data
