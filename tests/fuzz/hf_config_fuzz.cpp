// libFuzzer target for the model file reader (core/data/SpecJson: a Hugging Face config.json or
// Scalex's spec JSON, `scalex account --config`). Any bytes must give a model spec or one error that
// names the file and the key (or the line of broken JSON); whatever loads must be countable:
// parameters, FLOPs per token and the cache, finite and consistent (active at most total, the groups adding up), and must come back the same
// through the spec JSON.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_hf_config && mkdir -p build-fuzz/corpus-hf_config && \
//   build-fuzz/tests/fuzz/scalex_fuzz_hf_config build-fuzz/corpus-hf_config tests/data/fuzz/hf_config \
//       tests/data/configs -max_total_time=300 -max_len=8192
#include <QByteArray>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/accounting/SpecAccounting.h"
#include "core/data/SpecJson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex;
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const auto model = data::parseModelFile(bytes, "config.json");
    if (!model) {
        const data::LoadError& e = model.error();
        if (e.message.empty() || e.file != "config.json") std::abort();
        // Every refusal names where: the line of broken JSON, or the key (a JSON key, called one), or
        // says that the sizes together are beyond any model.
        if (e.line == 0 && (e.column.empty() || !e.key) && e.message.find("beyond any model") == std::string::npos) {
            std::fprintf(stderr, "an error naming no key: %s\n", e.toString().c_str());
            std::abort();
        }
        return 0;
    }
    const accounting::ModelSpec& spec = model->spec;
    if (accounting::validate(spec)) {
        std::fprintf(stderr, "a spec the reader accepted does not validate\n");
        std::abort();
    }
    const auto back = data::parseSpecJson(data::specJsonBytes(spec), "spec.json");
    if (!back || !(*back == spec)) {
        std::fprintf(stderr, "the spec does not come back through its JSON: %s\n", back ? "a different spec" : back.error().toString().c_str());
        std::abort();
    }
    const auto params = accounting::paramCounts(spec);
    if (params.activeTotal() > params.total() || params.activeTotal() <= 0 ||
        params.all.total() != params.all.embedding + params.all.attention + params.all.feedForward + params.all.experts +
                                  params.all.recurrent + params.all.norms + params.all.head + params.all.shared) {
        std::fprintf(stderr, "inconsistent parameter counts: total %lld, active %lld\n",
                     static_cast<long long>(params.total()), static_cast<long long>(params.activeTotal()));
        std::abort();
    }
    for (double T : {1.0, 4096.0, 1e6}) {
        const double flops = accounting::forwardFlopsPerToken(spec, T).total();
        const double cache = accounting::kvCacheBytes(spec, T, 1, 2);
        if (!std::isfinite(flops) || flops <= 0 || !std::isfinite(cache) || cache < 0) {
            std::fprintf(stderr, "FLOPs %g or cache %g at T %g\n", flops, cache, T);
            std::abort();
        }
    }
    return 0;
}
