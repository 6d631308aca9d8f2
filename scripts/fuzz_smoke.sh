#!/usr/bin/env bash
# fuzz_smoke.sh — build the libFuzzer targets with clang (ASan + UBSan) in
# build-fuzz, generate seed corpora of valid streams, and run every target for a
# short time. Exits non-zero on a build failure or on any crash, sanitizer report,
# failed check or timeout found by a fuzzer (the reproducer is kept under
# build-fuzz/artifacts/; copy it to fuzz/regressions/<target>/ with the fix, and
# every later run replays it first).
#
# Environment: FUZZ_SECONDS (seconds of a core per target, default 35), JOBS (build jobs, default 2),
# BUILD_DIR (default <repo>/build-fuzz), FUZZ_TARGETS (default: all three).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${BUILD_DIR:-$ROOT/build-fuzz}"
SECS="${FUZZ_SECONDS:-35}"
JOBS="${JOBS:-2}"
TARGETS="${FUZZ_TARGETS:-fuzz_decompress fuzz_header fuzz_roundtrip}"

command -v clang >/dev/null && command -v clang++ >/dev/null || {
  echo "fuzz_smoke: clang/clang++ not found" >&2
  exit 2
}

echo "== configure ($BUILD)"
# Ninja for a new build tree, as scripts/test.sh
command -v ninja >/dev/null && export CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"
mkdir -p "$BUILD"
CC=clang CXX=clang++ cmake -S "$ROOT" -B "$BUILD" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DZCOLL_BUILD_FUZZERS=ON -DZCOLL_BUILD_TESTS=OFF -DZCOLL_BUILD_TOOLS=OFF \
  -DZCOLL_ENABLE_MPI=OFF >"$BUILD/configure.log" 2>&1 || {
  cat "$BUILD/configure.log" >&2
  exit 1
}

echo "== build"
# shellcheck disable=SC2086
cmake --build "$BUILD" -j"$JOBS" --target $TARGETS fuzz_seedgen

echo "== seed corpora"
CORPUS="$BUILD/corpus"
ART="$BUILD/artifacts"
rm -rf "$CORPUS" "$ART"
mkdir -p "$ART"
for t in $TARGETS fuzz_decompress fuzz_header fuzz_roundtrip; do mkdir -p "$CORPUS/$t"; done
"$BUILD/fuzz/fuzz_seedgen" "$CORPUS"

# Sanitizers: abort on the first report; LeakSanitizer stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
# OpenMP team size for threads = 0 (the targets mostly pass explicit counts).
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"

failed=0
# Inputs that once crashed a target (fuzz/regressions/<target>/) replay first:
# each must run clean before the target fuzzes.
for t in $TARGETS; do
  reg="$ROOT/fuzz/regressions/$t"
  [ -d "$reg" ] || continue
  mapfile -t inputs < <(find "$reg" -type f | sort)
  [ ${#inputs[@]} -gt 0 ] || continue
  echo "== $t: ${#inputs[@]} regression input(s)"
  if ! "$BUILD/fuzz/$t" "${inputs[@]}" >"$BUILD/$t.regressions.log" 2>&1; then
    echo "fuzz_smoke: $t FAILED on a regression input; log: $BUILD/$t.regressions.log" >&2
    tail -40 "$BUILD/$t.regressions.log" >&2
    failed=1
  fi
done

# The targets run side by side, one per core: each runs SECS x (targets / cores)
# seconds of wall time, so that each gets about SECS seconds of a core, as when they
# ran one after another, in a third of the time on 2 cores.
read -r -a targets <<<"$TARGETS"
cores=$(nproc)
((cores > ${#targets[@]})) && cores=${#targets[@]}
wall=$(((SECS * ${#targets[@]} + cores - 1) / cores))
echo "== ${#targets[@]} targets side by side on $cores cores: ${wall}s each"
declare -A pid
for t in "${targets[@]}"; do
  "$BUILD/fuzz/$t" "$CORPUS/$t" \
    -max_total_time="$wall" -timeout=20 -rss_limit_mb=2560 -max_len=12288 \
    -print_final_stats=1 -artifact_prefix="$ART/$t-" >"$BUILD/$t.log" 2>&1 &
  pid[$t]=$!
done
for t in "${targets[@]}"; do
  log="$BUILD/$t.log"
  rc=0
  wait "${pid[$t]}" || rc=$?
  echo "== $t"
  grep -E "^#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::peak_rss_mb" "$log" | tail -3 || true
  if [ $rc -ne 0 ] || ls "$ART/$t-"* >/dev/null 2>&1; then
    echo "fuzz_smoke: $t FAILED (exit $rc); log: $log" >&2
    tail -40 "$log" >&2
    ls -l "$ART/$t-"* 2>/dev/null >&2 || true
    failed=1
  else
    echo "   $t: ok"
  fi
done

if [ $failed -ne 0 ]; then
  echo "fuzz_smoke: FAILED" >&2
  exit 1
fi
echo "fuzz_smoke: all targets ran ${wall}s side by side (about ${SECS}s of a core each) without a crash"
