// Saves a large project over and over at one path, for the KillDuringSave test, which kills this
// program at random moments. Usage: scalex_save_loop PATH PAPER_DIR RUNS
// Saves variant 1 and variant 0 of test::makeLargeProject in turn (the test has put variant 0 at
// PATH first) and says on stdout "ready" once both are built, then "saving N" before and
// "saved N" after each save; it stops only when killed.
#include <QCoreApplication>
#include <QString>
#include <cstdio>
#include <cstdlib>

#include "core/data/Project.h"
#include "tests/support/LargeProject.h"

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: scalex_save_loop PATH PAPER_DIR RUNS\n");
        return 2;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    const QString paperDir = QString::fromLocal8Bit(argv[2]);
    const auto runs = static_cast<std::size_t>(std::strtoull(argv[3], nullptr, 10));
    const scalex::data::Project projects[2] = {scalex::test::makeLargeProject(paperDir, runs, 0),
                                               scalex::test::makeLargeProject(paperDir, runs, 1)};
    std::printf("ready\n");
    std::fflush(stdout);
    for (long n = 1;; ++n) {
        std::printf("saving %ld\n", n);
        std::fflush(stdout);
        if (auto error = scalex::data::saveProject(projects[n % 2], path)) {
            std::fprintf(stderr, "%s\n", error->toString().c_str());
            return 1;
        }
        std::printf("saved %ld\n", n);
        std::fflush(stdout);
    }
}
