#include "core/data/ColumnMapping.h"

#include "core/data/JsonObject.h"

#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>
#include <algorithm>
#include <cctype>

namespace scalex::data {

namespace {

// A name pattern for files that use none of a field's spellings: the words (split at '_') must
// include one that starts with a word of `any`, and none that starts with a word of `none`.
struct NamePattern {
    std::vector<std::string_view> any;
    std::vector<std::string_view> none;
    std::string_view says;  // the pattern as a person reads it, for reports
};

struct FieldInfo {
    RunField field;
    std::string_view key;  // also the first spelling and the CSV writer's column name
    std::vector<std::string_view> spellings;
    std::optional<NamePattern> pattern;
};

const std::array<FieldInfo, kRunFieldCount>& fieldTable() {
    // Spellings: this project's own, the xLSTM study's, and those of public studies (Epoch's
    // Chinchilla points: "Model Size", "Training FLOP"; Gemstones: params_active_precise,
    // final_loss; IsoFLOP sweeps: compute_budget, training_tokens, validation_loss; N, D, C).
    static const std::array<FieldInfo, kRunFieldCount> table{{
        {RunField::RunId, "run_id", {"run_id", "id", "wandb_id"}, {}},
        {RunField::Name, "name", {"name", "run_name", "run"}, {}},
        {RunField::Dataset, "dataset", {"dataset"}, {}},
        {RunField::Series, "series", {"series"}, {}},
        {RunField::Family, "model_family", {"model_family", "family", "model_type"}, {}},
        {RunField::ExperimentSet, "experiment_set", {"experiment_set", "experiment"}, {}},
        {RunField::Status, "status", {"status", "state"}, {}},
        {RunField::Context, "context_length", {"context_length", "ctx", "seq_len", "context", "sequence_length", "ctx_len", "seq_length"}, {}},
        {RunField::DModel, "d_model", {"d_model", "embedding_dim", "hidden_size"}, {}},
        {RunField::NLayers, "n_layers", {"n_layers", "num_blocks", "num_layers", "n_blocks"}, {}},
        {RunField::NHeads, "n_heads", {"n_heads", "num_heads"}, {}},
        {RunField::NKvHeads, "n_kv_heads", {"n_kv_heads", "num_kv_heads"}, {}},
        {RunField::DQk, "d_qk", {"d_qk", "head_dim_qk"}, {}},
        {RunField::DHv, "d_hv", {"d_hv", "head_dim_v"}, {}},
        {RunField::DFf, "d_ff", {"d_ff", "ffn_dim", "intermediate_size"}, {}},
        {RunField::Vocab, "vocab_size", {"vocab_size", "vocab", "n_vocab"}, {}},
        {RunField::Chunk, "chunk_size", {"chunk_size", "chunk"}, {}},
        {RunField::Params, "num_params",
         {"num_params", "params", "n", "n_params", "parameters", "num_parameters", "model_size", "params_active_precise",
          "params_active", "active_params", "total_params", "model_params", "nparams"},
         NamePattern{{"param"}, {"ratio", "per", "token", "source", "bin", "preset", "calc"}, "a word starting 'param'"}},
        {RunField::Tokens, "num_tokens_training",
         {"num_tokens_training", "tokens", "d", "num_tokens", "n_tokens", "training_tokens", "train_tokens",
          "num_train_tokens", "tokens_trained", "dataset_size", "data_size"},
         NamePattern{{"token", "toks"}, {"ratio", "per", "param", "source", "preset", "vocab", "batch"}, "a word starting 'token'"}},
        {RunField::Flops, "num_flops_training",
         {"num_flops_training", "flops", "c", "compute", "training_flop", "training_flops", "train_flops", "total_flops",
          "training_compute"},
         // With a unit before it (gflops, pflops, petaflop_days): computeUnit() reads it as FLOPs.
         NamePattern{{"flop", "gflop", "tflop", "pflop", "eflop", "zflop", "petaflop"},
                     {"per", "seq", "token", "source", "mode", "calc", "fw", "linear", "mix", "6nd", "budget", "bucket", "attn"},
                     "a word starting 'flop' (or 'gflop', 'tflop', 'pflop', 'petaflop')"}},
        {RunField::Budget, "isoflop_bucket",
         {"isoflop_bucket", "isoflop", "budget", "h", "compute_budget", "flop_budget", "flops_budget", "nominal_budget",
          "isoflop_budget"},
         NamePattern{{"budget", "bucket"}, {"source"}, "a word starting 'budget' or 'bucket'"}},
        {RunField::BatchSize, "global_batch_size", {"global_batch_size", "batch_size"}, {}},
        {RunField::Steps, "num_train_steps", {"num_train_steps", "steps", "train_steps"}, {}},
        {RunField::LearningRate, "learning_rate", {"learning_rate", "lr"}, {}},
        {RunField::Step, "step", {"step", "global_step", "checkpoint_step", "iteration", "iter", "_step"}, {}},
        {RunField::ValLoss, "val_loss",
         {"val_loss", "val_dclm_loss", "validation_loss", "valid_loss", "eval_loss", "test_loss", "final_loss", "loss"},
         NamePattern{{"loss"}, {"train", "step", "last", "source", "ppl", "perplexity", "std"}, "a word starting 'loss' without 'train'"}},
        {RunField::TrainLoss, "train_loss", {"train_loss", "train_loss_mean", "training_loss"},
         NamePattern{{"train"}, {"step", "last", "source", "token", "flop", "param"}, "a word starting 'train' beside 'loss'"}},
        {RunField::SelectedInPaper, "selected_in_paper", {"selected_in_paper", "selected"}, {}},
        {RunField::FlopMode, "attention_flop_calc_mode", {"attention_flop_calc_mode", "flop_convention"}, {}},
        {RunField::ParamsSource, "params_source", {"params_source"}, {}},
        {RunField::TokensSource, "tokens_source", {"tokens_source"}, {}},
        {RunField::FlopsSource, "flops_source", {"flops_source"}, {}},
        {RunField::Included, "included", {"included"}, {}},
    }};
    return table;
}

const FieldInfo& info(RunField field) { return fieldTable()[static_cast<std::size_t>(field)]; }

std::vector<std::string_view> words(std::string_view normalized) {
    std::vector<std::string_view> out;
    std::size_t b = 0;
    while (b <= normalized.size()) {
        std::size_t e = normalized.find('_', b);
        if (e == std::string_view::npos) e = normalized.size();
        if (e > b) out.push_back(normalized.substr(b, e - b));
        b = e + 1;
    }
    return out;
}

bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// How many words of `name` the pattern does not explain, or -1 when it does not match.
int patternFit(const NamePattern& pattern, RunField field, std::string_view normalized) {
    const auto w = words(normalized);
    bool hit = false;
    for (auto word : w) {
        for (auto n : pattern.none)
            if (startsWith(word, n)) return -1;
        for (auto a : pattern.any)
            if (startsWith(word, a)) hit = true;
    }
    // A training loss names both "train" and "loss".
    if (field == RunField::TrainLoss) {
        bool loss = false;
        for (auto word : w) loss = loss || startsWith(word, "loss");
        if (!loss) return -1;
    }
    return hit ? static_cast<int>(w.size()) - 1 : -1;
}

// Fields a W&B-style export may give under the name of the config section they sit in
// (model.context_length, config.train.seq_len): the numbers of a run's configuration. Not names,
// ids, flags, the logging step or losses, whose prefix says what they are (train/loss is not a
// validation loss, eval/step not a checkpoint).
bool takesPrefixedSpellings(RunField field) {
    switch (field) {
        case RunField::Context: case RunField::DModel: case RunField::NLayers: case RunField::NHeads:
        case RunField::NKvHeads: case RunField::DQk: case RunField::DHv: case RunField::DFf: case RunField::Vocab:
        case RunField::Chunk: case RunField::Params: case RunField::Tokens: case RunField::Flops: case RunField::Budget:
        case RunField::BatchSize: case RunField::Steps: case RunField::LearningRate:
            return true;
        default:
            return false;
    }
}

// The prefix of `column` up to a '.' or '/' (W&B's separators of nested names) after which the
// rest reads as `spelling`, e.g. "config.model." for config.model.context_length; empty when none.
std::string prefixBefore(const std::string& column, std::string_view spelling) {
    for (std::size_t k = column.find_first_of("./"); k != std::string::npos; k = column.find_first_of("./", k + 1))
        if (k > 0 && normalizeColumnName(std::string_view(column).substr(k + 1)) == spelling) return column.substr(0, k + 1);
    return {};
}

}  // namespace

const std::vector<std::string_view>& seriesColumnSpellings() {
    static const std::vector<std::string_view> names{"model", "model_name", "arch", "architecture", "method", "group", "setting"};
    return names;
}

std::string_view fieldKey(RunField field) { return info(field).key; }

std::optional<RunField> fieldByKey(std::string_view key) {
    const std::string k = normalizeColumnName(key);
    for (const auto& f : fieldTable())
        if (f.key == k) return f.field;
    return std::nullopt;
}

const std::vector<std::string_view>& fieldSpellings(RunField field) { return info(field).spellings; }

std::optional<RunField> fieldBySpelling(std::string_view name) {
    const std::string n = normalizeColumnName(name);
    for (const auto& f : fieldTable()) {
        if (f.key == n) return f.field;
        for (auto s : f.spellings)
            if (s == n) return f.field;
    }
    return std::nullopt;
}

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

ComputeUnit computeUnit(std::string_view column) {
    // The words of the name: "throughput/total_gflops" -> throughput, total, gflops.
    std::vector<std::string> words{std::string()};
    for (char c : normalizeColumnName(column)) {
        if (c == '_' || c == '(' || c == ')' || c == '[' || c == ']') {
            if (!words.back().empty()) words.emplace_back();
        } else {
            words.back() += c;
        }
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& w = words[i];
        const bool days = i + 1 < words.size() && (words[i + 1] == "days" || words[i + 1] == "day");
        if ((w == "pf" || w == "petaflop" || w == "petaflops" || w == "pflop" || w == "pflops") && days)
            return {8.64e19, "PF-days"};  // 1e15 FLOP/s for 86,400 s
        if (w == "pfdays" || w == "petaflopdays") return {8.64e19, "PF-days"};
        static const struct {
            const char* word;
            double factor;
            const char* name;
        } units[] = {{"gflop", 1e9, "GFLOPs"},  {"gflops", 1e9, "GFLOPs"},  {"tflop", 1e12, "TFLOPs"}, {"tflops", 1e12, "TFLOPs"},
                     {"pflop", 1e15, "PFLOPs"}, {"pflops", 1e15, "PFLOPs"}, {"eflop", 1e18, "EFLOPs"}, {"eflops", 1e18, "EFLOPs"},
                     {"zflop", 1e21, "ZFLOPs"}, {"zflops", 1e21, "ZFLOPs"}};
        for (const auto& u : units)
            if (w == u.word) return {u.factor, u.name};
    }
    return {};
}

std::optional<std::string> ColumnMapping::column(RunField field) const {
    auto it = columns_.find(field);
    if (it == columns_.end()) return std::nullopt;
    return it->second;
}

ColumnMapping ColumnMapping::detect(const std::vector<std::string>& header, std::vector<ColumnChoice>* report) {
    std::vector<std::string> normalized;
    normalized.reserve(header.size());
    for (const auto& h : header) normalized.push_back(normalizeColumnName(h));
    ColumnMapping m;
    std::vector<bool> taken(header.size(), false);
    auto choose = [&](const FieldInfo& f, std::size_t column, std::string rule, std::vector<std::string> alternatives) {
        m.set(f.field, header[column]);
        taken[column] = true;
        if (report) report->push_back({std::string(f.key), header[column], std::move(rule), std::move(alternatives)});
    };
    // Spellings first for every field, so that a pattern never takes a column a spelling names.
    for (const auto& f : fieldTable()) {
        std::optional<std::size_t> hit;
        std::vector<std::string> others;
        for (auto spelling : f.spellings)
            for (std::size_t i = 0; i < header.size(); ++i)
                if (normalized[i] == spelling && !taken[i]) {
                    if (!hit) hit = i;
                    else if (i != *hit) others.push_back(header[i]);
                }
        if (hit) choose(f, *hit, "spelling", std::move(others));
    }
    for (const auto& f : fieldTable()) {
        if (!f.pattern || m.column(f.field)) continue;
        std::vector<std::pair<int, std::size_t>> hits;  // (extra words, column)
        for (std::size_t i = 0; i < header.size(); ++i)
            if (!taken[i])
                if (int extra = patternFit(*f.pattern, f.field, normalized[i]); extra >= 0) hits.emplace_back(extra, i);
        if (hits.empty()) continue;
        std::stable_sort(hits.begin(), hits.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::vector<std::string> others;
        for (std::size_t k = 1; k < hits.size(); ++k) others.push_back(header[hits[k].second]);
        choose(f, hits.front().second,
               "pattern: " + std::string(f.pattern->says) +
                   (others.empty() ? std::string() : "; of several, the fewest other words, then the leftmost"),
               std::move(others));
    }
    // Last, for the fields still without a column, a spelling after a prefix. Last so that no
    // column found before changes: a file that read without prefixes reads as it did.
    for (const auto& f : fieldTable()) {
        if (!takesPrefixedSpellings(f.field) || m.column(f.field)) continue;
        std::optional<std::size_t> hit;
        std::string prefix;
        std::vector<std::string> others;
        for (auto spelling : f.spellings) {
            if (spelling.size() < 2) continue;  // n, d, c, h: a one-letter name after a prefix could be anything
            for (std::size_t i = 0; i < header.size(); ++i) {
                if (taken[i]) continue;
                std::string p = prefixBefore(header[i], spelling);
                if (p.empty()) continue;
                if (!hit) {
                    hit = i;
                    prefix = std::move(p);
                } else if (i != *hit && std::find(others.begin(), others.end(), header[i]) == others.end()) {
                    others.push_back(header[i]);
                }
            }
        }
        if (hit) choose(f, *hit, "spelling after the prefix '" + prefix + "'", std::move(others));
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
    auto object = parseJsonObject(bytes, file, "{\"field\": \"column\", ...}");
    if (!object) return object.error();
    return fromJson(*object, file);
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
