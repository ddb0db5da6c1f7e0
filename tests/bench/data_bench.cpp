// Run-table loading throughput: rows per second to parse a large generated CSV in the study's
// 60-column layout (with architecture, so N and C are checked and budgets assigned), the same
// gzip-compressed, and the architecture-only case where N, D and C are all derived.
#include <benchmark/benchmark.h>
#include <zlib.h>

#include <QByteArray>
#include <string>

#include "core/analysis/StudyReading.h"
#include "core/data/RunTableIo.h"
#include "core/data/Series.h"

using namespace scalex::data;

namespace {

// A table shaped like runs_isoflop_*.csv: the mapped columns plus the study's other columns.
QByteArray studyLikeCsv(int rows) {
    std::string out =
        "dataset,model_family,model_type,experiment_set,run_tag,run_id,run_name,status,selected_in_paper,"
        "context_length,d_model,n_layers,n_heads,d_qk,d_hv,d_ff,vocab_size,num_params,global_batch_size,"
        "num_train_steps,num_tokens_training,learning_rate,lr_schedule,weight_decay,beta1,beta2,"
        "attention_flop_calc_mode,num_flops_training,isoflop_bucket,val_loss,val_perplexity,train_loss,"
        "step_time_s,runtime_s,created_at\n";
    for (int i = 0; i < rows; ++i) {
        const int d = 512 + 128 * (i % 16), layers = 10 + i % 20, heads = d / 128;
        const double steps = 1000 + 10 * (i % 500);
        out += "bench,llama,llama,isoflop,tag,id" + std::to_string(i) + ",\"dclm_llama_ed" + std::to_string(d) +
               "_nb" + std::to_string(layers) + "\",finished,True,8192," + std::to_string(d) + "," +
               std::to_string(layers) + "," + std::to_string(heads) + ",128,128,2048,50304,4.1e8,128," +
               std::to_string(steps) + "," + std::to_string(steps * 128 * 8192) +
               ",0.001,cosine_decay,0.1,0.9,0.95,distill_scaling,1.02e19,1e+19,3.123456789,22.7,3.1,1.23,4567.8,"
               "2025-04-12T02:00:05Z\n";
    }
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

QByteArray architectureOnlyCsv(int rows) {
    std::string out = "family,d_model,n_layers,n_heads,ctx,global_batch_size,num_train_steps,loss\n";
    for (int i = 0; i < rows; ++i)
        out += (i % 2 ? "mlstm," : "llama,") + std::to_string(512 + 128 * (i % 16)) + "," + std::to_string(10 + i % 20) +
               ",4,8192,128," + std::to_string(1000 + i % 700) + ",3.1\n";
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

QByteArray gzipBytes(const QByteArray& data) {
    z_stream zs{};
    deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
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

void run(benchmark::State& state, const QByteArray& bytes, const char* name, int rows) {
    for (auto _ : state) {
        auto t = parseRunTable(bytes, name);
        if (!t || static_cast<int>(t->runs.size()) != rows) state.SkipWithError("load failed");
        benchmark::DoNotOptimize(t);
    }
    state.SetItemsProcessed(state.iterations() * rows);
    state.SetBytesProcessed(state.iterations() * bytes.size());
    state.SetLabel(std::to_string(bytes.size() >> 20) + " MiB");
}

}  // namespace

static void BM_LoadStudyCsv(benchmark::State& state) {
    const int rows = static_cast<int>(state.range(0));
    run(state, studyLikeCsv(rows), "bench.csv", rows);
}
BENCHMARK(BM_LoadStudyCsv)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

static void BM_LoadStudyCsvGz(benchmark::State& state) {
    const int rows = static_cast<int>(state.range(0));
    run(state, gzipBytes(studyLikeCsv(rows)), "bench.csv.gz", rows);
}
BENCHMARK(BM_LoadStudyCsvGz)->Arg(100000)->Unit(benchmark::kMillisecond);

static void BM_LoadDerivingEverything(benchmark::State& state) {
    const int rows = static_cast<int>(state.range(0));
    run(state, architectureOnlyCsv(rows), "bench.csv", rows);
}
BENCHMARK(BM_LoadDerivingEverything)->Arg(100000)->Unit(benchmark::kMillisecond);

// Regrouping a study's runs into series (the window's "Group runs by"): by one column of the file
// and by two, and back to the file's default column.
static void BM_GroupRunsBy(benchmark::State& state) {
    const int rows = static_cast<int>(state.range(0));
    auto table = parseRunTable(studyLikeCsv(rows), "bench.csv");
    if (!table) {
        state.SkipWithError("load failed");
        return;
    }
    const std::vector<std::vector<std::string>> groupings = {{"context_length"}, {"model_type", "d_model"}, {}};
    std::size_t k = 0;
    for (auto _ : state) {
        if (groupRunsBy(*table, groupings[k++ % groupings.size()])) state.SkipWithError("grouping failed");
        benchmark::DoNotOptimize(table->runs.front().series);
    }
    state.SetItemsProcessed(state.iterations() * rows);
}
BENCHMARK(BM_GroupRunsBy)->Arg(20000)->Unit(benchmark::kMillisecond);

// Reading a study (analysis/StudyReading.h: the roles of its columns, series, sweeps, checkpoints,
// budgets), as the window and every verb do once the tables or the scope change: on the study-like
// table above, and on a table of a learning-rate sweep with seeds at every (N, D) of an IsoFLOP
// grid with no budget column (the budgets are clusters of C), up to a million runs.
namespace {

QByteArray sweepGridCsv(int rows) {
    std::string out = "setting,peak_lr,seed,params,tokens,flops,loss\n";
    for (int i = 0; i < rows; ++i) {
        const int point = i / 6, lr = i % 3, seed = (i / 3) % 2;
        const double h = 1e18 * (1 << (point % 8)), n = 1e7 * (1 + (point / 8) % 40), d = h / (6 * n);
        out += std::string(point % 2 ? "long," : "short,") + std::to_string(0.001 * (1 << lr)) + "," + std::to_string(seed) + "," +
               std::to_string(n) + "," + std::to_string(d) + "," + std::to_string(h) + "," + std::to_string(3.0 + 0.01 * lr + 0.001 * seed) +
               "\n";
    }
    return QByteArray(out.data(), static_cast<qsizetype>(out.size()));
}

void read(benchmark::State& state, const QByteArray& bytes) {
    auto table = parseRunTable(bytes, "bench.csv");
    if (!table) {
        state.SkipWithError("load failed");
        return;
    }
    const scalex::analysis::RunFilter scope;
    for (auto _ : state) {
        const auto reading = scalex::analysis::readStudy(*table, scope);
        benchmark::DoNotOptimize(reading.columns.size());
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(table->runs.size()));
}

}  // namespace

static void BM_ReadStudy(benchmark::State& state) { read(state, studyLikeCsv(static_cast<int>(state.range(0)))); }
BENCHMARK(BM_ReadStudy)->Arg(20000)->Unit(benchmark::kMillisecond);

static void BM_ReadSweepGrid(benchmark::State& state) { read(state, sweepGridCsv(static_cast<int>(state.range(0)))); }
BENCHMARK(BM_ReadSweepGrid)->Arg(20000)->Arg(1000000)->Unit(benchmark::kMillisecond);
