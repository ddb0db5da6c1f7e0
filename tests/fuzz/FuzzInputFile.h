#pragma once
// For readers that take a path: the fuzz input is written to one file per process (in the
// system's temporary folder) and read back from there.
#include <QDir>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace scalex::fuzz {

// Writes `data` to <temp>/scalex-fuzz-<pid>-<name> and returns its path; aborts when it cannot.
inline QString writeInputFile(const std::uint8_t* data, std::size_t size, const char* name) {
    const QString path = QDir::temp().filePath(QStringLiteral("scalex-fuzz-%1-%2").arg(getpid()).arg(QLatin1String(name)));
    std::FILE* f = std::fopen(path.toLocal8Bit().constData(), "wb");
    if (!f || (size && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
        std::fprintf(stderr, "cannot write %s\n", qPrintable(path));
        std::abort();
    }
    return path;
}

}  // namespace scalex::fuzz
