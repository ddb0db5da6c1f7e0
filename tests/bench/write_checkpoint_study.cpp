// Writes the generated checkpoint table (CheckpointStudy.h) to a file, for whole-process
// measurements of `scalex check` and of other readers on the same bytes:
//   write_checkpoint_study OUT.csv RUNS CHECKPOINTS
#include <cstdio>
#include <cstdlib>
#include <string>

#include "CheckpointStudy.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s OUT.csv RUNS CHECKPOINTS\n", argv[0]);
        return 2;
    }
    std::FILE* f = std::fopen(argv[1], "wb");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    struct FileOut {
        std::FILE* f;
        void append(const char* s, std::size_t n) { std::fwrite(s, 1, n, f); }
    } out{f};
    scalex::bench::appendCheckpointStudy(out, std::atoi(argv[2]), std::atoi(argv[3]));
    return std::fclose(f) == 0 ? 0 : 1;
}
