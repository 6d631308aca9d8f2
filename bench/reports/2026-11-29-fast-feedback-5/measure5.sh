#!/usr/bin/env bash
# measure5.sh OUT BEFORE AFTER — issue 35's fifth pass (docs/reports/2026-11-29-fast-feedback-5.md):
#  1. at commit BEFORE and AFTER (a clone of each in /tmp/m5-<commit>):
#     - the emulated GPU collective test (zcoll_gpu_coll_test_emu, Release, group "emu")
#       at 2, 3 and 4 ranks, three times each, as CTest runs it (the yield preload,
#       OMP_NUM_THREADS=1): wall, user and system seconds;
#     - the sanitizer soak as scripts/test.sh runs it (ASan+UBSan build, 3 ranks, 600
#       cases, --max-mib 2 --max-count 20000 --nonblocking) at the seed ranges of
#       three earlier commits (99a7355, ededc9c, 48d061d): wall, user, system seconds;
#  2. .ci/run from a clean clone of AFTER in /work/ci-check/main (with ../shared beside
#     it), then three second runs there: `touch src/codec/stream.cc`, scripts/test.sh;
#     each run's phase table (test_phases.json).
# Needs the tests' dependencies installed (scripts/setup.sh, setup_python.sh) and a
# quiet machine. Writes OUT/emu-<commit>.txt, OUT/soak-<commit>.txt, OUT/ci.log,
# OUT/ci.json, OUT/second-N.log, OUT/second-N.json.
set -euo pipefail
out=$(realpath "$1"); before=$2; after=$3
repo=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
timed() { /usr/bin/time -f "%e s wall %U s user %S s sys" "$@"; }
for c in "$before" "$after"; do
  d=/tmp/m5-$c
  rm -rf "$d" && git clone -q "$repo" "$d" && git -C "$d" checkout -q "$c"
  cmake -S "$d" -B "$d/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON >/dev/null
  cmake --build "$d/build" -j2 --target zcoll_gpu_coll_test_emu zcoll_test_yield >/dev/null
  cmake -S "$d" -B "$d/build-asan" -G Ninja -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON \
        -DZCOLL_SANITIZE=ON -DZCOLL_BUILD_FUZZERS=OFF -DZCOLL_ENABLE_CUDA=OFF >/dev/null
  cmake --build "$d/build-asan" -j2 --target zcoll-soak >/dev/null
  {
    for np in 2 3 4; do
      for i in 1 2 3; do
        echo "np $np run $i"
        OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive LD_PRELOAD="$d/build/libzcoll_test_yield.so" \
          timed mpiexec -n "$np" "$d/build/tests/gpu/zcoll_gpu_coll_test_emu" emu 2>&1 | tail -2
      done
    done
  } | tee "$out/emu-$c.txt"
  (
    cd "$d"
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-mpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
    asan_rt=$(ldd build-asan/tools/zcoll_soak/zcoll-soak | awk '/libasan/ {print $3}')
    for seed_commit in 99a7355 ededc9c 48d061d; do
      echo "seed range of $seed_commit: --seed $((16#$seed_commit))"
      OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive timed mpiexec -n 3 -genv LD_PRELOAD "$asan_rt:$d/build/libzcoll_test_yield.so" \
        build-asan/tools/zcoll_soak/zcoll-soak --seed $((16#$seed_commit)) --iterations 600 \
        --max-mib 2 --max-count 20000 --timeout 300 --nonblocking 2>&1 | grep -E "cases|passed|FAIL|wall"
    done
  ) | tee "$out/soak-$c.txt"
  rm -rf "$d"
done
rm -rf /work/ci-check && mkdir -p /work/ci-check
git clone -q "$repo" /work/ci-check/main && git -C /work/ci-check/main checkout -q "$after"
ln -sfn /work/shared /work/ci-check/shared
cd /work/ci-check/main
timed bash .ci/run >"$out/ci.log" 2>&1
cp build/test_phases.json "$out/ci.json"
cat "$out/ci.json"
for i in 1 2 3; do
  touch src/codec/stream.cc
  timed bash scripts/test.sh >"$out/second-$i.log" 2>&1
  cp build/test_phases.json "$out/second-$i.json"
  cat "$out/second-$i.json"
done
