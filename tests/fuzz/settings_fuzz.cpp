// libFuzzer target for the settings reader (a project's settings.json: core/data/ProjectSettings
// and its typed form core/analysis/AnalysisSettings). Any bytes must give settings or one error
// naming the file; whatever loads must write and read back to equal settings.
//
// Run it (clang; from the repository root, see README.md):
//   ninja -C build-fuzz scalex_fuzz_settings && mkdir -p build-fuzz/corpus-settings && \
//   build-fuzz/tests/fuzz/scalex_fuzz_settings build-fuzz/corpus-settings tests/data/fuzz/settings \
//       -max_total_time=300 -max_len=8192
#include <QByteArray>
#include <QJsonDocument>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/analysis/AnalysisSettings.h"
#include "core/data/ProjectSettings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace scalex;
    const QByteArray bytes = QByteArray::fromRawData(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isObject()) return 0;  // the project reader rejects these before fromJson
    auto settings = data::ProjectSettings::fromJson(doc.object(), "settings.json");
    if (!settings) {
        if (settings.error().message.empty() || settings.error().file != "settings.json") std::abort();
        return 0;
    }
    const QByteArray written = QJsonDocument(settings->toJson()).toJson();
    auto back = data::ProjectSettings::fromJson(QJsonDocument::fromJson(written).object(), "back.json");
    if (!back || !(*back == *settings)) {
        std::fprintf(stderr, "round trip failed: %s\n", back ? "the settings differ" : back.error().toString().c_str());
        std::abort();
    }
    // The typed settings every analysis reads: valid ones store and read back the same.
    auto typed = analysis::AnalysisSettings::fromProject(*settings);
    if (!typed) {
        if (typed.error().message.empty()) std::abort();
        return 0;
    }
    data::ProjectSettings stored;
    typed->storeIn(stored);
    auto again = analysis::AnalysisSettings::fromProject(stored);
    if (!again || !(*again == *typed)) {
        std::fprintf(stderr, "typed round trip failed: %s\n", again ? "the settings differ" : again.error().toString().c_str());
        std::abort();
    }
    return 0;
}
