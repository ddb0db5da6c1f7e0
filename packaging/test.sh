#!/usr/bin/env bash
# Installs what is missing, builds Scalex with its tests and runs every test with ctest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SCALEX_BUILD_DIR:-$root/build}"
jobs="$(nproc 2>/dev/null || echo 2)"

"$root/packaging/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCALEX_BUILD_TESTS=ON -DSCALEX_BUILD_BENCH=ON \
  -DSCALEX_ENABLE_CUDA=ON -DSCALEX_BUILD_PYTHON=ON
cmake --build "$build" -j "$jobs"
cd "$build"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs"

# The whole suite again in an AddressSanitizer + UBSan build. It is built at -O1 with line tables
# only (-g1: reports name file and line; full debug info would double the build), and the long
# reliability loops run shorter here (the Release stage above ran them in full; this stage looks
# for memory errors along the same paths). Left out of this stage are the tests whose cost is one
# fit repeated for a statistical claim (bootstrap intervals over the study, recovery of injected
# spikes, planner replays over 20 seeds, refits over subsets) and the differential tests that run
# one analysis through every path to compare the numbers (`OneAnswer.*`: fit, render --table, a
# converted project, a recipe; `*/BothPaths.*`: the window and a headless render), the fits of
# every published scalebench law (`Scalebench/PublishedLaw.*`, minutes
# each for the lr x bsz laws), the planner's vocabulary and lr x bsz replays, and the fits of the lr-schedules
# curves (their cooldown predictions, best cooldowns and predicted checkpoints): the sanitizer
# sees the same fits and each path in the tests beside them, and the Release stage above runs them
# all. On two cores a clean clone's `.ci/run` took 28.5 minutes, this stage's tests 6.8 of them.
# SCALEX_ASAN_ALL=0 keeps this stage to the data readers: the run-table and project tests and the
# replay of the bad-input corpora through the fuzz entry points (tests/fuzz).
asan="${SCALEX_ASAN_BUILD_DIR:-$root/build-asan}"
cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DSCALEX_SANITIZE=ON -DSCALEX_BUILD_BENCH=OFF -DSCALEX_ENABLE_CUDA=OFF
export LSAN_OPTIONS="suppressions=$root/tests/reliability/lsan.supp"
export SCALEX_RANDOM_ACTIONS="${SCALEX_RANDOM_ACTIONS:-600}" SCALEX_HOSTILE_ROWS="${SCALEX_HOSTILE_ROWS:-200000}"
export SCALEX_KILL_COUNT="${SCALEX_KILL_COUNT:-20}"
if [ "${SCALEX_ASAN_ALL:-1}" = 1 ]; then
  cmake --build "$asan" -j "$jobs"
  cd "$asan"
  repeated='^(LossSurfaceBootstrap\.DistinctOptima|LossSurface\.RefitFromTheOptima|LossSurfaceScaling\.ManyRuns|PlanReplay\.PlannerBeats|Outliers\.(Injected|Surface)Spikes|cli\.OneAnswer\.|[A-Za-z]+/BothPaths\.|cli\.Scalebench/PublishedLaw\.|cli\.ScalebenchReplays\.(Vocabulary|LearningRate)|CurveFits\.ConstantAndCosineRunsPredict|BestCooldown\.ChosenCooldownPredictsNoHigherThanEveryObservedRun|PredictedCheckpoints\.OneRealModelsCheckpoints)'
  QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs" -E "$repeated"
  exit 0
fi
cmake --build "$asan" -j "$jobs" --target scalex_data_io_test scalex_project_test \
  scalex_fuzz_replay_run_table scalex_fuzz_replay_project scalex_fuzz_replay_column_mapping \
  scalex_fuzz_replay_figure_recipe scalex_fuzz_replay_settings scalex_fuzz_replay_loss_curves \
  scalex_fuzz_replay_inference scalex_fuzz_replay_bench_json scalex_fuzz_replay_init_grid \
  scalex_fuzz_replay_law_formula
cd "$asan"
QT_QPA_PLATFORM=offscreen ctest --output-on-failure -j "$jobs" -R '^(DataIo|Project|fuzz_replay_)'
