#!/usr/bin/env bash
# asan_opt.sh OUT — the sanitizer build of scripts/test.sh at -O3 (Release) and at -O1:
# the first build of the programs it runs with ccache off (CCACHE_DISABLE=1) in a new
# directory (/tmp/asan-O3, /tmp/asan-O1), then the sanitizer runs of test.sh (the
# same commands, soak seed range of 48d061d) on each, twice, interleaved. Needs the
# tests' Release build in build/ (its yield preload) and a quiet machine.
# Writes OUT/asan-opt.txt.
set -euo pipefail
out=$(realpath "$1")
cd "$(dirname "$0")/../../.."
mkdir -p "$out"
targets=(zcoll-soak zcoll_lifecycle_test zcoll_fault_tests zcoll_nonblocking_tests zcoll_gpu_tests_emu
         zcoll_emu_tests zcoll_gpu_kernels_emu_tests zcoll_robustness_tests)
runs() {  # the sanitizer runs of scripts/test.sh on build directory $1
  local asan=$1
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-mpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
  local asan_rt long='GpuCodec.BytesIdenticalOnEveryDataFile:GpuCodec.HomResultsIdenticalToCpu'
  asan_rt=$(ldd "$asan/tools/zcoll_soak/zcoll-soak" | awk '/libasan/ {print $3}')
  local y=(-genv LD_PRELOAD "$asan_rt:$PWD/build/libzcoll_test_yield.so")
  (
    ZCOLL_GPU_TEST_SAMPLE=4096 "$asan/tests/gpu/zcoll_gpu_tests_emu" --gtest_filter="$long"
    "$asan/tests/gpu/zcoll_emu_tests"
    "$asan/tests/gpu/zcoll_gpu_kernels_emu_tests"
  ) >/dev/null &
  local bg=$!
  OMP_NUM_THREADS=1 "$asan/tests/mpi/zcoll_fault_tests" >/dev/null
  "$asan/tests/unit/zcoll_robustness_tests" --gtest_filter='BadInput.*:BadParams.*' --gtest_brief=1 >/dev/null
  ZCOLL_GPU_TEST_SAMPLE=4096 "$asan/tests/gpu/zcoll_gpu_tests_emu" --gtest_filter="-$long" >/dev/null
  wait "$bg"
  export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
  mpiexec -n 2 "${y[@]}" "$asan/tests/mpi/zcoll_lifecycle_test" 100 >/dev/null
  mpiexec -n 3 "${y[@]}" "$asan/tests/mpi/zcoll_nonblocking_tests" inflight errors lifetime >/dev/null
  mpiexec -n 3 "${y[@]}" "$asan/tools/zcoll_soak/zcoll-soak" --seed $((16#48d061d)) --iterations 600 \
    --max-mib 2 --max-count 20000 --timeout 300 --nonblocking | grep "cases"
  mpiexec -n 3 "${y[@]}" "$asan/tools/zcoll_soak/zcoll-soak" \
    --seeds-file tools/zcoll_soak/regression_seeds.txt --timeout 300 >/dev/null
}
{
  for opt in O3 O1; do
    d=/tmp/asan-$opt
    rm -rf "$d"
    flags=()
    [[ $opt == O1 ]] && flags=(-DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG")
    cmake -S . -B "$d" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON -DZCOLL_SANITIZE=ON \
      -DZCOLL_BUILD_FUZZERS=OFF -DZCOLL_ENABLE_CUDA=OFF "${flags[@]}" >/dev/null
    t0=$(date +%s.%N)
    CCACHE_DISABLE=1 cmake --build "$d" -j2 --target "${targets[@]}" >/dev/null
    echo "$opt first build: $(echo "$(date +%s.%N) - $t0" | bc) s"
  done
  for i in 1 2; do
    for opt in O3 O1; do
      t0=$(date +%s.%N)
      runs "/tmp/asan-$opt"
      echo "$opt sanitizer runs $i: $(echo "$(date +%s.%N) - $t0" | bc) s"
    done
  done
} 2>&1 | tee "$out/asan-opt.txt"
