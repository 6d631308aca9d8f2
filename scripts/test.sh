#!/usr/bin/env bash
# test.sh — install dependencies (scripts/setup.sh), build zcoll with its tests
# (Release) and run them all; then the fuzz smoke run (scripts/fuzz_smoke.sh).
# Exits non-zero on any failure. This is what CI runs (.ci/run).
# ZCOLL_BUILD_DIR chooses the build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export ZCOLL_BUILD_DIR="${ZCOLL_BUILD_DIR:-build}"
build="$ZCOLL_BUILD_DIR"

bash scripts/setup.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON
cmake --build "$build" -j2
# --no-tests=error: a configuration that registers no test must not pass
ctest --test-dir "$build" --output-on-failure -j2 --no-tests=error

bash scripts/fuzz_smoke.sh

# ---- reliability (issue 11, docs/reliability.md): the soak and the fault tests
# under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer. Only the
# targets it needs, in their own build directory; a 60 s soak at 3 ranks.
asan="${ZCOLL_ASAN_BUILD_DIR:-build-asan}"
cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON -DZCOLL_SANITIZE=ON \
      -DZCOLL_BUILD_FUZZERS=OFF > /dev/null
cmake --build "$asan" -j2 --target zcoll-soak zcoll_lifecycle_test zcoll_fault_tests
# fast_unwind_on_malloc=0: full stacks, so that the MPI library's own allocations
# (from modules it dlopens and unloads) match the suppressions
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-mpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
OMP_NUM_THREADS=1 "$asan/tests/mpi/zcoll_fault_tests"
OMP_NUM_THREADS=1 mpiexec -n 2 "$asan/tests/mpi/zcoll_lifecycle_test" 100
OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpiexec -n 3 "$asan/tools/zcoll_soak/zcoll-soak" \
  --seed "${ZCOLL_SOAK_SEED:-$(date +%s)}" --seconds 60 --max-mib 2 --max-count 20000 --timeout 300
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
echo "test.sh: all tests passed"
