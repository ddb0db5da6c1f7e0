// Replays files through a fuzz entry point (LLVMFuzzerTestOneInput) without libFuzzer, so the
// bad-input corpus runs as an ordinary test with any compiler (and under the sanitizers).
// Usage: scalex_fuzz_replay_<target> FILE_OR_DIR...
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <cstddef>
#include <cstdint>
#include <cstdio>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
    int replayed = 0;
    auto replay = [&](const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) {
            std::fprintf(stderr, "cannot read %s\n", qPrintable(path));
            return false;
        }
        const QByteArray bytes = f.readAll();
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.constData()), static_cast<std::size_t>(bytes.size()));
        // Each file also through every format path the first byte selects.
        for (char first = 0; first < 6; ++first) {
            QByteArray variant = bytes;
            variant.prepend(first);
            LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(variant.constData()),
                                   static_cast<std::size_t>(variant.size()));
        }
        ++replayed;
        return true;
    };
    for (int i = 1; i < argc; ++i) {
        const QString arg = QString::fromLocal8Bit(argv[i]);
        if (QFileInfo(arg).isDir()) {
            QDirIterator it(arg, QDir::Files, QDirIterator::Subdirectories);
            while (it.hasNext())
                if (!replay(it.next())) return 1;
        } else if (!replay(arg))
            return 1;
    }
    if (replayed == 0) {
        std::fprintf(stderr, "no inputs replayed\n");
        return 1;
    }
    std::printf("replayed %d inputs cleanly\n", replayed);
    return 0;
}
