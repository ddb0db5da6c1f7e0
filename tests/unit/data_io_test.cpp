// RunRow-table reading: the study's real files (row counts, N and C recomputed from the
// architecture, IsoFLOP budgets), the bad-input corpus in tests/data/bad (one clear error per
// unusable file, marked rows otherwise), formats, column mapping, and the CSV round trip.
#include <gtest/gtest.h>
#include <zlib.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <cmath>
#include <map>

#include "core/accounting/FlopCount.h"
#include "core/accounting/ParamCount.h"
#include "core/analysis/AnalysisSettings.h"
#include "core/data/ColumnMapping.h"
#include "core/data/CsvReader.h"
#include "core/data/RunDerivation.h"
#include "core/data/RunTableIo.h"
#include "tests/support/TestData.h"

using namespace scalex::data;
using scalex::accounting::Family;
using RunRow = scalex::data::Run;  // gtest fixtures have a Run() member

namespace {

std::string shared(const QString& rel) { return scalex::test::sharedPath("data/xlstm/" + rel).toStdString(); }
std::string corpus(const char* name) { return scalex::test::sourcePath(QStringLiteral("tests/data/bad/") + name).toStdString(); }

struct RunFile {
    const char* name;
    int rows;
};
// Row counts from the data README.
const RunFile kRunFiles[] = {
    {"runs_isoflop_llama_ctx2048.csv", 88},
    {"runs_isoflop_llama_ctx8192.csv", 113},
    {"runs_isoflop_llama_ctx16384.csv", 74},
    {"runs_isoflop_llama_ctx8192_flops_chinchilla.csv", 54},
    {"runs_isoflop_mlstm_ctx16384.csv", 94},
    {"runs_isoflop_mlstm_ctx8192_large_gbs256.csv", 36},
    {"tokenparam_runs_ctx8192.csv", 66},
    {"isoflop_xlstm_3e19_ctx8192.csv", 35},
};

RunTable loadOk(const std::string& path, const LoadOptions& options = {}) {
    auto t = loadRunTable(path, options);
    EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().toString());
    return t.ok() ? *t : RunTable{};
}

const RunRow* runOnLine(const RunTable& t, int line) {
    for (const auto& r : t.runs)
        if (r.sourceLine == line) return &r;
    return nullptr;
}

bool sameNumber(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

void expectSameRuns(const RunTable& a, const RunTable& b) {
    ASSERT_EQ(a.runs.size(), b.runs.size());
    for (std::size_t i = 0; i < a.runs.size(); ++i) {
        const RunRow& x = a.runs[i];
        const RunRow& y = b.runs[i];
        SCOPED_TRACE("row " + std::to_string(i) + " line " + std::to_string(x.sourceLine));
        EXPECT_EQ(x.runId, y.runId);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.dataset, y.dataset);
        EXPECT_EQ(x.sourceLine, y.sourceLine);
        EXPECT_EQ(x.status, y.status);
        EXPECT_EQ(x.family, y.family);
        EXPECT_EQ(x.experimentSet, y.experimentSet);
        EXPECT_EQ(x.dModel, y.dModel);
        EXPECT_EQ(x.nLayers, y.nLayers);
        EXPECT_EQ(x.nHeads, y.nHeads);
        EXPECT_EQ(x.nKvHeads, y.nKvHeads);
        EXPECT_EQ(x.dQk, y.dQk);
        EXPECT_EQ(x.dHv, y.dHv);
        EXPECT_EQ(x.dFf, y.dFf);
        EXPECT_EQ(x.vocab, y.vocab);
        EXPECT_EQ(x.chunk, y.chunk);
        for (auto [u, v] : {std::pair{x.context, y.context}, {x.params, y.params}, {x.tokens, y.tokens},
                            {x.flops, y.flops}, {x.budget, y.budget}, {x.batchSize, y.batchSize},
                            {x.steps, y.steps}, {x.learningRate, y.learningRate}, {x.valLoss, y.valLoss},
                            {x.trainLoss, y.trainLoss}})
            EXPECT_TRUE(sameNumber(u, v)) << u << " vs " << v;
        EXPECT_EQ(x.selectedInPaper, y.selectedInPaper);
        EXPECT_EQ(x.paramsSource, y.paramsSource);
        EXPECT_EQ(x.tokensSource, y.tokensSource);
        EXPECT_EQ(x.flopsSource, y.flopsSource);
        EXPECT_EQ(x.problems, y.problems);
        EXPECT_EQ(x.userIncluded, y.userIncluded);
    }
}

QByteArray gzipBytes(const QByteArray& data) {
    z_stream zs{};
    deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    QByteArray out(static_cast<qsizetype>(deflateBound(&zs, static_cast<uLong>(data.size()))), '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.constData()));
    zs.avail_in = static_cast<uInt>(data.size());
    zs.next_out = reinterpret_cast<Bytef*>(out.data());
    zs.avail_out = static_cast<uInt>(out.size());
    deflate(&zs, Z_FINISH);
    out.resize(static_cast<qsizetype>(zs.total_out));
    deflateEnd(&zs);
    return out;
}

QByteArray readAll(const std::string& path) {
    QFile f(QString::fromStdString(path));
    EXPECT_TRUE(f.open(QIODevice::ReadOnly)) << path;
    return f.readAll();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The study's real run tables

TEST(DataIoRealFiles, EveryRunFileLoadsWithItsRowCount) {
    SCALEX_REQUIRE_SHARED();
    for (const auto& f : kRunFiles) {
        SCOPED_TRACE(f.name);
        const RunTable t = loadOk(shared(f.name));
        EXPECT_EQ(static_cast<int>(t.runs.size()), f.rows);
        for (const auto& r : t.runs) {
            EXPECT_TRUE(r.sourceLine >= 2);
            // Every finished run is usable; every failed one is kept and marked.
            if (r.status == "failed") {
                EXPECT_FALSE(r.included());
                EXPECT_EQ(r.problems.front(), "status: the run failed");
            } else if (!known(r.valLoss) && !known(r.trainLoss)) {
                // Five finished mLSTM ctx16384 runs logged no loss: kept, marked, excluded.
                EXPECT_EQ(r.problems, std::vector<std::string>{"loss missing: no validation or training loss"});
            } else {
                EXPECT_TRUE(r.problems.empty()) << r.sourceLine << ": " << (r.problems.empty() ? "" : r.problems[0]);
            }
        }
    }
}

TEST(DataIoRealFiles, ColumnsAreMappedWithoutHelp) {
    SCALEX_REQUIRE_SHARED();
    const RunTable iso = loadOk(shared("runs_isoflop_mlstm_ctx16384.csv"));
    const RunRow& r = *std::find_if(iso.runs.begin(), iso.runs.end(), [](const RunRow& x) { return known(x.valLoss); });
    EXPECT_EQ(r.family, Family::Xlstm);
    EXPECT_EQ(r.experimentSet, ExperimentSet::IsoFlop);
    EXPECT_EQ(r.context, 16384);
    EXPECT_EQ(r.dataset, "isoflop_mlstm_ctx16384");
    EXPECT_FALSE(r.runId.empty());
    EXPECT_FALSE(r.name.empty());
    EXPECT_GT(r.dModel, 0);
    EXPECT_GT(r.chunk, 0);
    EXPECT_TRUE(known(r.learningRate) && known(r.batchSize) && known(r.steps) && known(r.trainLoss));

    const RunTable tp = loadOk(shared("tokenparam_runs_ctx8192.csv"));
    int transformers = 0, xlstms = 0;
    for (const auto& run : tp.runs) {
        (run.family == Family::Transformer ? transformers : xlstms)++;
        EXPECT_EQ(run.experimentSet, ExperimentSet::TokenParam);
        EXPECT_TRUE(known(run.valLoss));  // val_dclm_loss
        EXPECT_TRUE(known(run.trainLoss));  // train_loss_mean
        EXPECT_EQ(run.flopsSource, Provenance::FromFile);
    }
    EXPECT_EQ(transformers, 31);  // data README: 31 Transformer + 35 xLSTM runs
    EXPECT_EQ(xlstms, 35);
    // No experiment_set column, but an IsoFLOP budget column.
    const RunTable x = loadOk(shared("isoflop_xlstm_3e19_ctx8192.csv"));
    for (const auto& run : x.runs) {
        EXPECT_EQ(run.experimentSet, ExperimentSet::IsoFlop);
        EXPECT_EQ(run.budget, 3e19);
        EXPECT_EQ(run.family, Family::Xlstm);
    }
}

TEST(DataIoRealFiles, SelectedInPaperIsTheStudysFilter) {
    SCALEX_REQUIRE_SHARED();
    for (const char* name : {"runs_isoflop_llama_ctx8192.csv", "runs_isoflop_llama_ctx8192_flops_chinchilla.csv"}) {
        SCOPED_TRACE(name);
        const auto csv = scalex::test::readSimpleCsv(QString::fromStdString(shared(name)));
        const RunTable t = loadOk(shared(name));
        ASSERT_EQ(t.runs.size(), static_cast<std::size_t>(csv.rows.size()));
        for (int i = 0; i < csv.rows.size(); ++i) {
            const QString s = csv.at(i, "selected_in_paper");
            const auto& sel = t.runs[static_cast<std::size_t>(i)].selectedInPaper;
            if (s.isEmpty()) EXPECT_FALSE(sel.has_value());
            else EXPECT_EQ(sel, std::optional<bool>(s == "True"));
        }
    }
    const RunTable t = loadOk(shared("runs_isoflop_llama_ctx8192.csv"));
    EXPECT_EQ(std::count_if(t.runs.begin(), t.runs.end(), [](const RunRow& r) { return r.selectedInPaper == true; }), 107);
}

// N from the architecture equals the trainer's num_params exactly; C from the architecture under
// the file's attention convention (study, or chinchilla for *_flops_chinchilla) equals
// num_flops_training to 1e-6, for every finished run.
TEST(DataIoRealFiles, ArchitectureReproducesParamsAndFlops) {
    SCALEX_REQUIRE_SHARED();
    for (const auto& f : kRunFiles) {
        SCOPED_TRACE(f.name);
        const bool notebook = std::string(f.name).rfind("runs_", 0) != 0;  // 7 significant digits
        const auto csv = scalex::test::readSimpleCsv(QString::fromStdString(shared(f.name)));
        const bool hasMode = csv.header.contains("attention_flop_calc_mode");
        const RunTable t = loadOk(shared(f.name));
        int checked = 0;
        for (std::size_t i = 0; i < t.runs.size(); ++i) {
            const RunRow& r = t.runs[i];
            const auto config = runArchitecture(r);
            if (r.status == "failed" || !config) continue;
            SCOPED_TRACE(r.sourceLine);
            const double n = static_cast<double>(scalex::accounting::countParameters(*config).total());
            if (notebook) EXPECT_NEAR(n / r.params, 1.0, 5e-7);
            else EXPECT_EQ(n, r.params);
            const std::string mode = hasMode ? csv.at(static_cast<int>(i), "attention_flop_calc_mode").toStdString() : "";
            const auto convention = mode == "chinchilla" ? scalex::accounting::chinchillaConvention()
                                                         : scalex::accounting::studyConvention();
            const auto c = architectureFlops(r, convention);
            ASSERT_TRUE(c.has_value());
            EXPECT_NEAR(*c / r.flops, 1.0, 1e-6);
            ++checked;
        }
        if (!notebook) EXPECT_GE(checked, f.rows - 6);
        else if (std::string(f.name) == "isoflop_xlstm_3e19_ctx8192.csv") EXPECT_EQ(checked, 35);
        else EXPECT_EQ(checked, 35);  // the xLSTM half of the token/param set shows its architecture
    }
}

// The loader's own recomputation picks the convention per row from attention_flop_calc_mode.
TEST(DataIoRealFiles, RecomputedFlopsFollowTheFilesAttentionMode) {
    SCALEX_REQUIRE_SHARED();
    for (const char* name : {"runs_isoflop_llama_ctx8192_flops_chinchilla.csv", "runs_isoflop_llama_ctx2048.csv",
                             "runs_isoflop_mlstm_ctx16384.csv"}) {
        SCOPED_TRACE(name);
        const RunTable fromFile = loadOk(shared(name));
        LoadOptions o;
        o.recomputeFlops = true;
        const RunTable derived = loadOk(shared(name), o);
        int compared = 0;
        for (std::size_t i = 0; i < derived.runs.size(); ++i) {
            if (fromFile.runs[i].status == "failed") continue;
            EXPECT_EQ(derived.runs[i].flopsSource, Provenance::Derived);
            EXPECT_NEAR(derived.runs[i].flops / fromFile.runs[i].flops, 1.0, 1e-6);
            EXPECT_EQ(derived.runs[i].budget, fromFile.runs[i].budget);
            ++compared;
        }
        EXPECT_GT(compared, 25);
    }
    // Forcing the study convention on the chinchilla set changes C: the convention matters.
    LoadOptions study;
    study.recomputeFlops = true;
    study.convention = scalex::accounting::studyConvention();
    const RunTable s = loadOk(shared("runs_isoflop_llama_ctx8192_flops_chinchilla.csv"), study);
    const RunTable c = loadOk(shared("runs_isoflop_llama_ctx8192_flops_chinchilla.csv"));
    EXPECT_LT(s.runs.front().flops, c.runs.front().flops * 0.99);
}

TEST(DataIoRealFiles, BudgetsFollowTheStudysBucketRule) {
    SCALEX_REQUIRE_SHARED();
    for (const auto& f : kRunFiles) {
        if (std::string(f.name).rfind("runs_", 0) != 0) continue;
        SCOPED_TRACE(f.name);
        const auto csv = scalex::test::readSimpleCsv(QString::fromStdString(shared(f.name)));
        const RunTable t = loadOk(shared(f.name));
        ASSERT_EQ(t.runs.size(), static_cast<std::size_t>(csv.rows.size()));
        for (int i = 0; i < csv.rows.size(); ++i) {
            const QString bucket = csv.at(i, "isoflop_bucket");
            const double b = t.runs[static_cast<std::size_t>(i)].budget;
            if (bucket == "extra") EXPECT_TRUE(std::isnan(b)) << "line " << i + 2;
            else EXPECT_EQ(b, bucket.toDouble()) << "line " << i + 2;
        }
    }
    EXPECT_EQ(nominalBudget(1.09e19), 1e19);
    EXPECT_TRUE(std::isnan(nominalBudget(1.1e19)));  // |C - B| < 0.1 B is strict
    EXPECT_EQ(nominalBudget(2.8e21), 3e21);
    EXPECT_TRUE(std::isnan(nominalBudget(2e19)));
}

TEST(DataIoRealFiles, FailedRunsAreKeptWithDerivedParams) {
    SCALEX_REQUIRE_SHARED();
    const auto csv = scalex::test::readSimpleCsv(QString::fromStdString(shared("runs_isoflop_llama_ctx2048.csv")));
    const RunTable t = loadOk(shared("runs_isoflop_llama_ctx2048.csv"));
    int failed = 0;
    for (int i = 0; i < csv.rows.size(); ++i) {
        const RunRow& r = t.runs[static_cast<std::size_t>(i)];
        if (r.status != "failed") continue;
        ++failed;
        EXPECT_EQ(r.paramsSource, Provenance::Derived);
        EXPECT_EQ(r.params, csv.number(i, "num_params_calculated"));
        EXPECT_EQ(r.problems, (std::vector<std::string>{
                                  "status: the run failed",
                                  "D missing: no token count, no steps x batch size x context length and not both C and N",
                                  "loss missing: no validation or training loss"}));
    }
    EXPECT_EQ(failed, 3);
}

TEST(DataIoRealFiles, CsvRoundTripGivesTheSameTable) {
    SCALEX_REQUIRE_SHARED();
    for (const auto& f : kRunFiles) {
        SCOPED_TRACE(f.name);
        const RunTable a = loadOk(shared(f.name));
        const QByteArray csv = writeRunTableCsv(a);
        auto b = parseRunTable(csv, "roundtrip.csv");
        ASSERT_TRUE(b.ok()) << b.error().toString();
        RunTable bt = *b;
        // The dataset column carries the source's name; everything else comes back as it was.
        expectSameRuns(a, bt);
        EXPECT_EQ(writeRunTableCsv(bt), csv);
    }
}

TEST(DataIoRealFiles, GzipAndTsvReadTheSameRuns) {
    SCALEX_REQUIRE_SHARED();
    const std::string path = shared("runs_isoflop_llama_ctx16384.csv");
    const RunTable plain = loadOk(path);
    QTemporaryDir dir;
    const QString gz = dir.filePath("runs_isoflop_llama_ctx16384.csv.gz");
    {
        QFile out(gz);
        ASSERT_TRUE(out.open(QIODevice::WriteOnly));
        out.write(gzipBytes(readAll(path)));
    }
    const RunTable zipped = loadOk(gz.toStdString());
    expectSameRuns(plain, zipped);

    QByteArray tsv = readAll(path);
    tsv.replace(',', '\t');
    auto t = parseRunTable(tsv, "runs_isoflop_llama_ctx16384.tsv");
    ASSERT_TRUE(t.ok()) << t.error().toString();
    expectSameRuns(plain, *t);
}

// ---------------------------------------------------------------------------------------------
// Derivation

TEST(DataIoDerivation, ArchitectureStepsAndBatchGiveNDAndC) {
    const QByteArray csv =
        "family,d_model,n_layers,n_heads,ctx,global_batch_size,num_train_steps,loss\n"
        "llama3,1024,24,8,8192,128,5000,3.1\n"
        "mlstm_v1,1024,24,4,8192,128,5000,3.0\n";
    auto t = parseRunTable(csv, "arch.csv");
    ASSERT_TRUE(t.ok()) << t.error().toString();
    ASSERT_EQ(t->runs.size(), 2u);
    for (const RunRow& r : t->runs) {
        SCOPED_TRACE(r.sourceLine);
        EXPECT_TRUE(r.problems.empty());
        const auto config = scalex::accounting::makeStudyConfig(*r.family, 1024, 24, r.family == Family::Xlstm ? 4 : 8);
        EXPECT_EQ(r.params, static_cast<double>(scalex::accounting::countParameters(config).total()));
        EXPECT_EQ(r.tokens, 5000.0 * 128 * 8192);
        EXPECT_EQ(r.flops, scalex::accounting::trainingFlops(config, 8192, r.tokens, scalex::accounting::studyConvention()));
        EXPECT_EQ(r.paramsSource, Provenance::Derived);
        EXPECT_EQ(r.tokensSource, Provenance::Derived);
        EXPECT_EQ(r.flopsSource, Provenance::Derived);
        EXPECT_EQ(r.tokensPerParam(), r.tokens / r.params);
    }
    EXPECT_EQ(t->runs[0].family, Family::Transformer);
    EXPECT_EQ(t->runs[1].family, Family::Xlstm);
}

TEST(DataIoDerivation, SixNdIsAVisibleFallback) {
    const QByteArray csv = "family,N,D,loss\nllama,1e9,2e10,2.9\n";
    auto t = parseRunTable(csv, "nd.csv");
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->runs[0].flops, 6 * 1e9 * 2e10);
    EXPECT_EQ(t->runs[0].flopsSource, Provenance::SixNdFallback);
    EXPECT_TRUE(std::isnan(t->runs[0].budget));  // 1.2e20 is 20 % off 1e20: in no budget
    LoadOptions o;
    o.convention = scalex::accounting::sixNdConvention();
    auto s = parseRunTable(csv, "nd.csv", o);
    EXPECT_EQ(s->runs[0].flopsSource, Provenance::Derived);
}

// ---------------------------------------------------------------------------------------------
// Column mapping

TEST(DataIoMapping, DetectsCommonSpellings) {
    const std::vector<std::string> header{"Run Name", "model_type", "n_params", "tokens", "validation_loss",
                                          "seq_len", "lr", "num_blocks", "head_dim_qk", "IsoFLOP"};
    const ColumnMapping m = ColumnMapping::detect(header);
    EXPECT_EQ(m.column(RunField::Name), "Run Name");
    EXPECT_EQ(m.column(RunField::Family), "model_type");
    EXPECT_EQ(m.column(RunField::Params), "n_params");
    EXPECT_EQ(m.column(RunField::Tokens), "tokens");
    EXPECT_EQ(m.column(RunField::ValLoss), "validation_loss");
    EXPECT_EQ(m.column(RunField::Context), "seq_len");
    EXPECT_EQ(m.column(RunField::LearningRate), "lr");
    EXPECT_EQ(m.column(RunField::NLayers), "num_blocks");
    EXPECT_EQ(m.column(RunField::DQk), "head_dim_qk");
    EXPECT_EQ(m.column(RunField::Budget), "IsoFLOP");
    EXPECT_FALSE(m.column(RunField::Flops).has_value());
}

// W&B flattens nested configs into dotted names: a configuration field no spelling or pattern
// finds takes its spelling after such a prefix, and says so.
TEST(DataIoMapping, ConfigFieldsAreFoundUnderAWandbPrefix) {
    const std::vector<std::string> header{"Name", "model.context_length", "model.num_params", "train.tokens", "eval/loss",
                                          "train/loss", "optimizer.lr", "model.d_model", "config.model.n_layers"};
    std::vector<ColumnChoice> report;
    const ColumnMapping m = ColumnMapping::detect(header, &report);
    EXPECT_EQ(m.column(RunField::Name), "Name");
    EXPECT_EQ(m.column(RunField::Context), "model.context_length");
    EXPECT_EQ(m.column(RunField::Params), "model.num_params");
    EXPECT_EQ(m.column(RunField::Tokens), "train.tokens");
    EXPECT_EQ(m.column(RunField::ValLoss), "eval/loss");
    EXPECT_EQ(m.column(RunField::TrainLoss), "train/loss");
    EXPECT_EQ(m.column(RunField::LearningRate), "optimizer.lr");
    EXPECT_EQ(m.column(RunField::DModel), "model.d_model");
    EXPECT_EQ(m.column(RunField::NLayers), "config.model.n_layers");
    std::map<std::string, std::string> rules;
    for (const ColumnChoice& c : report) rules[c.field] = c.rule;
    EXPECT_EQ(rules["context_length"], "spelling after the prefix 'model.'");
    EXPECT_EQ(rules["n_layers"], "spelling after the prefix 'config.model.'");
    EXPECT_EQ(rules["num_params"].rfind("pattern: ", 0), 0u) << rules["num_params"];  // as before: a word starting 'param'
    EXPECT_EQ(rules["num_tokens_training"], "spelling");  // train.tokens reads as train_tokens
    // Several prefixed columns: the first spelling, then the leftmost; the others are reported.
    report.clear();
    const ColumnMapping two = ColumnMapping::detect({"data.seq_len", "model.context_length", "x.model.context_length"}, &report);
    EXPECT_EQ(two.column(RunField::Context), "model.context_length");
    ASSERT_EQ(report.size(), 1u);
    EXPECT_EQ(report[0].alternatives, (std::vector<std::string>{"x.model.context_length", "data.seq_len"}));
}

// A prefix is read only for what nothing else found: every column chosen without it stays.
TEST(DataIoMapping, PrefixedSpellingsChangeNoChoiceMadeWithoutThem) {
    // A direct spelling, however far down the field's list, before any prefixed one.
    EXPECT_EQ(ColumnMapping::detect({"model.context_length", "seq_length"}).column(RunField::Context), "seq_length");
    // A name pattern before a prefixed spelling: model.n_params as it was, and a pattern's choice
    // of the fewest other words is not replaced by a prefixed spelling.
    EXPECT_EQ(ColumnMapping::detect({"model.n_params", "tokens", "loss"}).column(RunField::Params), "model.n_params");
    EXPECT_EQ(ColumnMapping::detect({"model.num_params", "params_total"}).column(RunField::Params), "params_total");
    // Names, the logging step and losses are not taken from under a prefix (train/epoch/loss is a
    // training loss, not the validation loss; model.name a model, not the run).
    const ColumnMapping m = ColumnMapping::detect({"model.name", "eval.step", "train/epoch/loss", "model.run_id"});
    EXPECT_FALSE(m.column(RunField::Name).has_value());
    EXPECT_FALSE(m.column(RunField::Step).has_value());
    EXPECT_FALSE(m.column(RunField::RunId).has_value());
    EXPECT_FALSE(m.column(RunField::ValLoss).has_value());
    EXPECT_EQ(m.column(RunField::TrainLoss), "train/epoch/loss");
    // One-letter spellings (N, D, C, H) could be anything after a prefix.
    const ColumnMapping letters = ColumnMapping::detect({"rope.n", "model.d", "opt.c", "sched.h"});
    EXPECT_TRUE(letters.empty());
}

TEST(DataIoMapping, AWandbExportReadsItsContextLengths) {
    const QByteArray csv =
        "Name,State,model.context_length,model.num_params,train.tokens,eval/loss\n"
        "r1,finished,2048,1.6e8,3.2e9,3.31\n"
        "r2,finished,8192,4.0e8,8.0e9,3.02\n";
    auto t = parseRunTable(csv, "wandb_export.csv");
    ASSERT_TRUE(t) << t.error().toString();
    ASSERT_EQ(t->runs.size(), 2u);
    EXPECT_EQ(t->runs[0].context, 2048);
    EXPECT_EQ(t->runs[1].context, 8192);
    EXPECT_EQ(t->runs[0].params, 1.6e8);
    EXPECT_EQ(t->runs[1].tokens, 8.0e9);
    EXPECT_EQ(t->runs[1].valLoss, 3.02);
}

TEST(DataIoMapping, ExplicitMappingSavedAndLoaded) {
    const QByteArray csv = "arch,size_M,tok,eval\nllama,160,3.2e9,3.3\n";
    // No column read as N, D or the loss: nothing usable, and the error names the loss.
    auto bare = parseRunTable(csv, "odd.csv");
    ASSERT_FALSE(bare.ok());
    EXPECT_EQ(bare.error().column, "val_loss");

    ColumnMapping m;
    m.set(RunField::Family, "arch");
    m.set(RunField::Params, "size_M");
    m.set(RunField::Tokens, "tok");
    m.set(RunField::ValLoss, "eval");
    QTemporaryDir dir;
    const std::string path = dir.filePath("mapping.json").toStdString();
    ASSERT_FALSE(m.save(path).has_value());
    auto loaded = ColumnMapping::load(path);
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    EXPECT_EQ(*loaded, m);
    LoadOptions o;
    o.mapping = *loaded;
    auto t = parseRunTable(csv, "odd.csv", o);
    ASSERT_TRUE(t.ok()) << t.error().toString();
    EXPECT_EQ(t->runs[0].params, 160);
    // Parameters in millions are kept, and flagged.
    EXPECT_EQ(t->runs[0].problems,
              std::vector<std::string>{"N = 160 is below 1e5: is it in millions? (expected a parameter count)"});

    auto bad = ColumnMapping::fromJsonBytes(R"({"parameters": "size_M"})", "m.json");
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().column, "parameters");
    EXPECT_EQ(bad.error().message.rfind("unknown field (expected one of: run_id, name,", 0), 0u);
    m.set(RunField::Params, "no_such_column");
    o.mapping = m;
    auto missing = parseRunTable(csv, "odd.csv", o);
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().toString(),
              "odd.csv, line 1, column 'no_such_column': the column mapping names this column for field 'num_params', "
              "but the header has no such column (columns: arch, size_M, tok, eval)");
}

// ---------------------------------------------------------------------------------------------
// The bad-input corpus (tests/data/bad, written by make_corpus.py)

struct ErrorCase {
    const char* file;
    int line;  // -1: not checked
    const char* column;
    const char* message;
};

const ErrorCase kErrorCases[] = {
    {"empty.csv", 0, "", "the file is empty (expected a header line and one row per run)"},
    {"whitespace_only.csv", 0, "", "the file is empty (expected a header line and one row per run)"},
    {"header_only.csv", 1, "", "no data rows: the header is on line 1 but no run follows (expected one row per run)"},
    {"header_only.tsv", 1, "", "no data rows: the header is on line 1 but no run follows (expected one row per run)"},
    {"binary_junk.csv", -1, "", "binary data (a NUL byte): expected UTF-8 text (CSV, TSV, JSON or JSON Lines)"},
    {"binary_controls.csv", 0, "", "binary data (control characters): expected UTF-8 text (CSV, TSV, JSON or JSON Lines)"},
    {"utf16_bom.csv", 1, "", "the file is UTF-16 encoded; expected UTF-8 text (save it as UTF-8)"},
    {"missing_loss.csv", 1, "val_loss",
     "no column for the loss (expected a column such as val_loss, val_dclm_loss, validation_loss, valid_loss, eval_loss, "
     "..., train_loss, train_loss_mean, training_loss)"},
    {"duplicate_header.csv", 1, "val_loss",
     "the header has this column more than once (columns 5 and 6): which one holds val_loss is ambiguous"},
    {"wrong_delimiter_spaces.csv", 1, "val_loss",
     "no column for the loss (expected a column such as val_loss, val_dclm_loss, validation_loss, valid_loss, eval_loss, "
     "..., train_loss, train_loss_mean, training_loss) (the header reads as a single column 'run_id model_family "
     "num_params num_tokens_training val_loss': is the file comma-, tab- or semicolon-separated?)"},
    {"unterminated_quote.csv", 3, "model_family",
     "a quoted field opened here is never closed (truncated file, or a stray '\"'?)"},
    {"truncated_in_quote.csv", 3, "name", "a quoted field opened here is never closed (truncated file, or a stray '\"'?)"},
    {"json_syntax_error.json", 3, "", "invalid JSON at character 48: unterminated object"},
    {"json_not_array.json", 1, "", "expected an array of run objects, or an object with a \"runs\" array"},
    {"json_runs_not_array.json", 1, "", "expected an array of run objects, or an object with a \"runs\" array"},
    {"json_empty_array.json", 1, "", "no runs: the runs array is empty"},
    {"truncated.csv.gz", 0, "", "the gzip data ends early (the file is truncated)"},
    {"corrupt.csv.gz", 0, "", "the gzip data is corrupt (zlib: invalid code lengths set)"},
    {"not_gzip.csv.gz", 0, "", "the name ends in .gz but the data is not gzip (no gzip header)"},
};

// A table with a loss but no column for N (or D) loads: the quantity is unknown for the whole table
// (no problem of any row, every row in), and the table's notes say which analyses have none.
TEST(DataIoCorpus, NoColumnForNOrDLoadsWithN_DUnknown) {
    struct Case {
        const char* file;
        scalex::data::Provenance n, d;
        const char* note;
    };
    const Case cases[] = {
        {"missing_params.csv", scalex::data::Provenance::NoColumn, scalex::data::Provenance::FromFile,
         "no column for N, the parameter count (expected a column such as num_params, params, n, n_params, parameters, ...; "
         "the architecture columns model_family, d_model, n_layers, n_heads; a spec column naming each run's model spec; or "
         "both D and C, to derive N = C/6D); the analyses that need N and D (L(N,D), IsoFLOP, over-training slopes, Pareto, "
         "context, compute-optimal) have none; a law over the file's columns can be fitted (scalex fit law --formula)"},
        {"missing_tokens.csv", scalex::data::Provenance::FromFile, scalex::data::Provenance::NoColumn,
         "no column for D, the training tokens (expected a column such as num_tokens_training, tokens, d, num_tokens, "
         "n_tokens, ...; num_train_steps, global_batch_size and context_length; or compute C, such as num_flops_training, "
         "flops, c, compute, training_flop, ..., to derive D = C/6N); the analyses that need N and D (L(N,D), IsoFLOP, "
         "over-training slopes, Pareto, context, compute-optimal) have none; a law over the file's columns can be fitted "
         "(scalex fit law --formula)"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.file);
        auto t = loadRunTable(corpus(c.file));
        ASSERT_TRUE(t.ok()) << t.error().toString();
        ASSERT_EQ(t->runs.size(), 1u);
        const auto& run = t->runs.front();
        EXPECT_TRUE(run.problems.empty()) << run.problems.front();
        EXPECT_TRUE(run.included());
        EXPECT_EQ(run.paramsSource, c.n);
        EXPECT_EQ(run.tokensSource, c.d);
        EXPECT_DOUBLE_EQ(run.loss(), 3.3);
        ASSERT_EQ(t->notes.size(), 1u);
        EXPECT_EQ(t->notes.front(), c.note);
    }
    // Written as CSV (an empty num_params column, params_source no_column) and read back: the same.
    auto written = loadRunTable(corpus("missing_params.csv"));
    ASSERT_TRUE(written.ok());
    auto again = parseRunTable(writeRunTableCsv(*written), "again.csv");
    ASSERT_TRUE(again.ok()) << again.error().toString();
    ASSERT_EQ(again->runs.size(), 1u);
    EXPECT_TRUE(again->runs.front().problems.empty()) << again->runs.front().problems.front();
    EXPECT_EQ(again->runs.front().paramsSource, scalex::data::Provenance::NoColumn);
    EXPECT_EQ(again->runs.front().tokens, 3.2e9);
    // Planned runs (no loss) still need N and D.
    scalex::data::LoadOptions planned;
    planned.lossRequired = false;
    auto p = loadRunTable(corpus("missing_params.csv"), planned);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().column, "num_params");
}

TEST(DataIoCorpus, UnusableFilesGiveOneClearError) {
    for (const auto& c : kErrorCases) {
        SCOPED_TRACE(c.file);
        const std::string path = corpus(c.file);
        ASSERT_TRUE(QFileInfo::exists(QString::fromStdString(path)));
        auto t = loadRunTable(path);
        ASSERT_FALSE(t.ok()) << "loaded " << t->runs.size() << " rows";
        const LoadError& e = t.error();
        EXPECT_EQ(e.file, path);
        if (c.line >= 0) EXPECT_EQ(e.line, c.line);
        else EXPECT_GT(e.line, 0);
        EXPECT_EQ(e.column, c.column);
        EXPECT_EQ(e.message, c.message);
        EXPECT_EQ(e.toString().rfind(path, 0), 0u);
    }
}

struct ProblemCase {
    const char* file;
    int rows;      // every row is kept
    int line;      // the row with the problem
    const char* problem;
};

const ProblemCase kProblemCases[] = {
    {"non_numeric.csv", 2, 3, "num_params: 'abc' is not a number"},
    {"nan_inf.csv", 3, 3, "val_loss: value is NaN (expected a number)"},
    {"nan_inf.csv", 3, 4, "num_params: value is infinite (expected a finite number)"},
    {"negative.csv", 2, 3, "num_tokens_training: must be positive, got -8e9"},
    {"zero_tokens.csv", 2, 3, "num_tokens_training: must be positive, got 0"},
    {"params_in_millions.csv", 2, 2, "N = 160 is below 1e5: is it in millions? (expected a parameter count)"},
    {"loss_perplexity.csv", 2, 3, "loss 27.1 is above 20: expected a natural-log cross-entropy per token (is it a perplexity?)"},
    {"duplicate_run_id.csv", 3, 4, "duplicate run id 'r1' (first on line 2)"},
    {"duplicate_row.csv", 3, 4, "duplicate: identical to the row on line 2"},
    {"ragged_short.csv", 2, 3, "the row has 4 fields, the header 5 (a missing or extra delimiter?)"},
    {"ragged_long.csv", 2, 3, "the row has 6 fields, the header 5 (a missing or extra delimiter?)"},
    {"truncated_last_line.csv", 3, 4, "the row has 3 fields, the header 5 (a missing or extra delimiter?)"},
    {"mixed_delimiters.csv", 2, 3, "the row has 1 field, the header 5 (a missing or extra delimiter?)"},
    {"invalid_utf8.csv", 2, 3, "name: invalid UTF-8 (the bad bytes read as U+FFFD)"},
    {"failed_status.csv", 2, 3, "status: the run failed"},
    {"text_after_quote.csv", 1, 2, "name: text after the closing quote"},
    {"fractional_dmodel.csv", 2, 3, "d_model: expected a whole number, got 768.5"},
    {"bad_selected.csv", 2, 3, "selected_in_paper: 'maybe' is not true or false"},
    {"jsonl_bad_line.jsonl", 4, 3, "not valid JSON (unterminated object at character 56)"},
    {"json_nested_value.json", 2, 3, "num_params: expected a number, string or boolean, got an array"},
    {"json_non_object_element.json", 2, 3, "run #2: expected a JSON object, got a number"},
    {"missing_values.csv", 2, 3,
     "N missing: no parameter count, no complete architecture (model_family, d_model, n_layers, n_heads) and not both C and D"},
    {"out_of_range.csv", 2, 3, "num_params: '1e999' is out of the range of a double"},
    {"huge_architecture.csv", 2, 3, "n_layers = 8000000000 is beyond any model (at most 4096); the architecture is not used"},
    {"all_rows_bad.csv", 2, 2, "num_params: must be positive, got -1"},
    {"all_rows_bad.csv", 2, 3, "val_loss: value is NaN (expected a number)"},
};

// The family is an architecture property for accounting: files without it, or with families the
// accounting does not know, load, and their runs are grouped into series.
TEST(DataIoCorpus, RunsWithoutAKnownFamilyLoadIntoSeries) {
    auto none = loadRunTable(corpus("missing_family.csv"));
    ASSERT_TRUE(none.ok()) << none.error().toString();
    ASSERT_EQ(none->runs.size(), 1u);
    EXPECT_TRUE(none->runs[0].problems.empty());
    EXPECT_FALSE(none->runs[0].family.has_value());
    EXPECT_EQ(none->runs[0].series, "missing_family");  // the file name
    EXPECT_TRUE(none->seriesBy.empty());

    auto other = loadRunTable(corpus("unknown_family.csv"));
    ASSERT_TRUE(other.ok()) << other.error().toString();
    const RunRow* gpt = runOnLine(*other, 3);
    ASSERT_NE(gpt, nullptr);
    EXPECT_TRUE(gpt->problems.empty());
    EXPECT_TRUE(gpt->included());
    EXPECT_FALSE(gpt->family.has_value());
    EXPECT_EQ(gpt->series, "gpt");
    EXPECT_EQ(runOnLine(*other, 2)->series, "transformer");  // llama, by its canonical name
    EXPECT_EQ(other->seriesBy, std::vector<std::string>{"model_family"});

    auto blank = loadRunTable(corpus("missing_family_value.csv"));
    ASSERT_TRUE(blank.ok()) << blank.error().toString();
    EXPECT_TRUE(runOnLine(*blank, 3)->problems.empty());
    EXPECT_EQ(runOnLine(*blank, 3)->series, "missing_family_value");  // an empty cell: the file's series
}

TEST(DataIoCorpus, RowsWithProblemsAreKeptAndMarked) {
    for (const auto& c : kProblemCases) {
        SCOPED_TRACE(std::string(c.file) + " line " + std::to_string(c.line));
        auto t = loadRunTable(corpus(c.file));
        ASSERT_TRUE(t.ok()) << t.error().toString();
        EXPECT_EQ(static_cast<int>(t->runs.size()), c.rows);
        const RunRow* r = runOnLine(*t, c.line);
        ASSERT_NE(r, nullptr);
        EXPECT_NE(std::find(r->problems.begin(), r->problems.end(), c.problem), r->problems.end())
            << (r->problems.empty() ? std::string("no problems") : r->problems.front());
        EXPECT_FALSE(r->included());
        RunRow toggled = *r;
        toggled.userIncluded = true;  // the user can include it anyway
        EXPECT_TRUE(toggled.included());
        // Rows other than the marked ones stay usable, except where the file marks them all.
        for (const auto& other : t->runs)
            if (other.sourceLine == 2 && c.line != 2 && std::string(c.file) != "all_rows_bad.csv")
                EXPECT_TRUE(other.included()) << (other.problems.empty() ? "" : other.problems.front());
    }
}

struct CleanCase {
    const char* file;
    int lineOfSecondRun;
};

const CleanCase kCleanCases[] = {
    {"utf8_bom.csv", 3},         {"quoted_newlines.csv", 4}, {"quoted_delimiters.csv", 3}, {"crlf.csv", 3},
    {"semicolon.csv", 3},        {"tabs_named_csv.csv", 3},  {"blank_lines.csv", 7},       {"valid.csv.gz", 3},
    {"valid.jsonl", 3},
};

TEST(DataIoCorpus, OddButValidFilesLoadTransparently) {
    for (const auto& c : kCleanCases) {
        SCOPED_TRACE(c.file);
        auto t = loadRunTable(corpus(c.file));
        ASSERT_TRUE(t.ok()) << t.error().toString();
        ASSERT_EQ(t->runs.size(), 2u);
        EXPECT_EQ(t->runs[0].runId, "r1");
        EXPECT_EQ(t->runs[1].runId, "r2");
        EXPECT_EQ(t->runs[1].sourceLine, c.lineOfSecondRun);
        EXPECT_EQ(t->runs[0].family, Family::Transformer);
        EXPECT_EQ(t->runs[1].family, Family::Xlstm);
        EXPECT_EQ(t->runs[0].params, 160000000.0);
        EXPECT_EQ(t->runs[1].valLoss, 3.05);
        for (const auto& r : t->runs) EXPECT_TRUE(r.problems.empty()) << r.problems.front();
    }
    auto q = loadRunTable(corpus("quoted_newlines.csv"));
    EXPECT_EQ(q->runs[0].name, "first line\nsecond line");
    auto d = loadRunTable(corpus("quoted_delimiters.csv"));
    EXPECT_EQ(d->runs[0].name, "a, \"quoted\" name");
    // The writer quotes such fields so that they read back.
    auto back = parseRunTable(writeRunTableCsv(*d), "back.csv");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->runs[0].name, "a, \"quoted\" name");
}

// Found by the run-table fuzzer: extra columns whose names hold tabs (a JSON Lines key) were
// written unquoted, and the header then had more tabs than commas, so the CSV read back as
// tab-separated and lost every column. Any delimiter the reader could detect is now quoted.
TEST(DataIoCorpus, ColumnNamesWithTabsSurviveACsvRoundTrip) {
    auto t = loadRunTable(corpus("fuzz_crash_tabs_in_column_names.jsonl"));
    ASSERT_TRUE(t.ok()) << t.error().toString();
    const QByteArray csv = writeRunTableCsv(*t);
    auto back = parseRunTable(csv, "back.csv");
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_EQ(back->runs.size(), t->runs.size());
    EXPECT_EQ(back->runs[3].params, t->runs[3].params);  // r2: 4e8 parameters
    // The same for a name with the reader's other delimiters, read from a CSV that quotes it.
    const QByteArray named = "run_id,model_family,num_params,num_tokens_training,val_loss,\"a\t\t\t\t\t\t\tb;c;d;e;f;g|h|i|j|k|l\"\n"
                             "r,llama,4e8,8e9,3.0,1\n";
    auto first = parseRunTable(named, "named.csv");
    ASSERT_TRUE(first.ok()) << first.error().toString();
    auto again = parseRunTable(writeRunTableCsv(*first), "again.csv");
    ASSERT_TRUE(again.ok()) << again.error().toString();
    ASSERT_EQ(again->runs.size(), 1u);
    EXPECT_EQ(again->runs[0].params, 4e8);
}

TEST(DataIoCorpus, HasAtLeastFortyInputs) {
    const QDir dir(scalex::test::sourcePath("tests/data/bad"));
    const auto files = dir.entryList(QDir::Files);
    EXPECT_GE(files.size() - 1, 40);  // less make_corpus.py
    const std::size_t asserted = std::size(kErrorCases) + std::size(kProblemCases) + std::size(kCleanCases);
    EXPECT_GE(asserted, 40u);
}

// A 100 MB file is refused at once by the size limit; a gzip bomb while it inflates; the row
// limit holds for files under the size limit.
TEST(DataIoLimits, HugeInputsAreRefusedCleanly) {
    QTemporaryDir dir;
    const QString big = dir.filePath("huge.csv");
    {
        QFile f(big);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        const QByteArray row = "r,llama,160000000,3.2e9,3.3\n";
        QByteArray block;
        while (block.size() < (1 << 20)) block += row;
        f.write("run_id,model_family,num_params,num_tokens_training,val_loss\n");
        for (int i = 0; i < 100; ++i) f.write(block);
    }
    ASSERT_GE(QFileInfo(big).size(), 100ll << 20);
    // The limits as a caller sets them (the defaults let a logged study of millions of rows open).
    LoadOptions limited;
    limited.maxBytes = 64ll << 20;
    auto t = loadRunTable(big.toStdString(), limited);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.error().message, "the file has " + std::to_string(QFileInfo(big).size()) +
                                     " bytes, over the run-table limit of 64 MiB (LoadOptions::maxBytes)");

    QByteArray zeros(80 << 20, 'a');
    auto bomb = parseRunTable(gzipBytes(zeros), "bomb.csv.gz", limited);
    ASSERT_FALSE(bomb.ok());
    EXPECT_EQ(bomb.error().message, "the decompressed data exceeds the run-table limit of 64 MiB (LoadOptions::maxBytes)");

    LoadOptions few;
    few.maxRows = 2;
    auto rows = loadRunTable(corpus("duplicate_run_id.csv"), few);
    ASSERT_FALSE(rows.ok());
    EXPECT_EQ(rows.error().line, 4);
    EXPECT_EQ(rows.error().message, "more than 2 rows (the run-table row limit)");
}

TEST(DataIoCsv, Rfc4180Quoting) {
    auto t = readDelimited("a,b\n\"x,\"\"y\"\"\",\"multi\r\nline\"\n", "q.csv");
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->rows.size(), 1u);
    EXPECT_EQ(t->rows[0].cells, (std::vector<std::string>{"x,\"y\"", "multi\r\nline"}));
    EXPECT_EQ(quoteField("x,\"y\""), "\"x,\"\"y\"\"\"");
    EXPECT_EQ(quoteField("plain"), "plain");
    EXPECT_EQ(detectDelimiter("a;b;c\n1;2;3\n"), ';');
    EXPECT_EQ(detectDelimiter("\"a;b\",c\n"), ',');
}

// Settings with row conditions on text (the value is no number) equal themselves and their JSON
// round trip; found by the settings fuzz target (tests/data/fuzz/settings/fuzz_text_condition_round_trip.json).
TEST(AnalysisSettingsJson, TextConditionsEqualThemselvesAfterARoundTrip) {
    using scalex::analysis::AnalysisSettings;
    const auto settings = AnalysisSettings::fromJson(QJsonObject{{"where", QJsonArray{"model_family=xlstm", "context == 81 92", "loss<3.5"}}});
    ASSERT_TRUE(settings.ok()) << settings.error().toString();
    ASSERT_EQ(settings->scope.where.size(), 3u);
    EXPECT_TRUE(*settings == *settings);
    const auto back = AnalysisSettings::fromJson(settings->toJson());
    ASSERT_TRUE(back.ok()) << back.error().toString();
    EXPECT_TRUE(*back == *settings);
    // A value that starts with '=' reads back as written.
    const auto equals = AnalysisSettings::fromJson(QJsonObject{{"where", QJsonArray{"context == =192"}}});
    ASSERT_TRUE(equals.ok()) << equals.error().toString();
    EXPECT_EQ(equals->scope.where.front().value, "=192");
    const auto equalsBack = AnalysisSettings::fromJson(equals->toJson());
    ASSERT_TRUE(equalsBack.ok());
    EXPECT_EQ(equalsBack->scope.where.front().value, "=192");
    EXPECT_TRUE(*equalsBack == *equals);
    AnalysisSettings other = *settings;
    other.scope.where[0].value = "mlstm";
    EXPECT_FALSE(other == *settings);
}
