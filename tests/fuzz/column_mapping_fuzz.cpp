// libFuzzer target for the column-mapping reader (core/data/ColumnMapping: the JSON a user saves
// for a run table whose header has unusual names). Any bytes must give a mapping or one error
// that names the file; whatever loads must write and read back to the same mapping.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_column_mapping && mkdir -p build-fuzz/corpus-column_mapping && \
//   build-fuzz/tests/fuzz/scalex_fuzz_column_mapping build-fuzz/corpus-column_mapping \
//       tests/data/fuzz/column_mapping -max_total_time=300 -max_len=4096
#include <QByteArray>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/data/ColumnMapping.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex::data;
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    auto mapping = ColumnMapping::fromJsonBytes(bytes, "mapping.json");
    if (!mapping) {
        if (mapping.error().message.empty() || mapping.error().file != "mapping.json") std::abort();
        return 0;
    }
    auto back = ColumnMapping::fromJsonBytes(mapping->toJsonBytes(), "back.json");
    if (!back || !(*back == *mapping)) {
        std::fprintf(stderr, "round trip failed: %s\n", back ? "the mapping differs" : back.error().toString().c_str());
        std::abort();
    }
    return 0;
}
