#!/usr/bin/env bash
# gpu_check.sh — build, test, sanitize and benchmark libzcoll_cuda on a machine
# with an NVIDIA GPU (Hopper: sm_90), writing everything to one results folder.
#
#   bash scripts/gpu_check.sh [OUTDIR]          # OUTDIR: default $OUT, else results/gpu-check
#   bash scripts/gpu_check.sh --prepare         # on a machine WITH GoogleTest sources
#                                               # (/usr/src/googletest, Debian libgtest-dev):
#                                               # copy them to .gpu-deps/ for a GPU machine
#                                               # that cannot install packages
# GPU_CHECK_PHASES="build test sanitize bench" chooses the phases (default: all),
# GPU_CHECK_ARCH the architectures (default 90), GPU_CHECK_JOBS the build jobs.
#
# Files written (at most 8, flat, so that a remote runner can return them all):
#   summary.txt   one line per phase: ok / FAILED / skipped (and why)
#   build.log     configure + build
#   ctest.log     ctest -L gpu (GoogleTest output of every test)
#   sanitizer.log compute-sanitizer memcheck and racecheck on the GPU tests
#   bench.txt     zcoll-gpu-bench tables (f32 and f64)
#   bench.json, bench-data.json, bench-f64.json   the same as JSON (synthetic f32,
#                 the data/ files tiled to 256 MB, synthetic f64)
# Needs: CMake >= 3.25, nvcc, a C++17 compiler with OpenMP. GoogleTest: the
# installed package, else .gpu-deps/googletest (see --prepare); without either the
# tests are not built and summary.txt says so. No MPI, CLI11 or network needed.
# Exit status: 0 when every phase that ran passed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ "${1:-}" == "--prepare" ]]; then
  src=/usr/src/googletest
  [[ -f $src/CMakeLists.txt ]] || { echo "gpu_check: $src not found (apt-get install libgtest-dev)"; exit 1; }
  rm -rf .gpu-deps/googletest && mkdir -p .gpu-deps && cp -r "$src" .gpu-deps/googletest
  # .gitignore lists /.gpu-deps/: a remote runner carries it only as an ignored path
  echo "gpu_check: GoogleTest sources in .gpu-deps/googletest ($(du -sh .gpu-deps | cut -f1));"
  echo "  carry .gpu-deps to the GPU machine and run: bash scripts/gpu_check.sh"
  exit 0
fi

out="${1:-${OUT:-results/gpu-check}}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
phases="${GPU_CHECK_PHASES:-build test sanitize bench}"
arch="${GPU_CHECK_ARCH:-90}"
jobs="${GPU_CHECK_JOBS:-$(nproc)}"
build=build-gpu
summary="$out/summary.txt"
: > "$summary"
status=0
note() { echo "$*" | tee -a "$summary"; }
has() { [[ " $phases " == *" $1 "* ]]; }

{
  echo "gpu_check $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
} | tee -a "$summary"
export PATH="$PATH:/usr/local/cuda/bin"

if has build; then
  gtest_arg=()
  [[ -f .gpu-deps/googletest/CMakeLists.txt ]] && gtest_arg=(-DZCOLL_GTEST_SOURCE_DIR="$PWD/.gpu-deps/googletest")
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  [[ -f $build/CMakeCache.txt ]] && gen=()  # keep the generator of an existing build
  if cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
       -DZCOLL_ENABLE_CUDA=ON -DZCOLL_BUILD_TESTS=OFF -DZCOLL_BUILD_GPU_TESTS=ON \
       -DZCOLL_BUILD_TOOLS=OFF -DZCOLL_ENABLE_MPI=OFF "${gtest_arg[@]}" > "$out/build.log" 2>&1 &&
     cmake --build "$build" -j"$jobs" >> "$out/build.log" 2>&1; then
    note "build: ok (sm_$arch)"
  else
    note "build: FAILED (see build.log)"
    status=1
  fi
  [[ -x $build/tests/gpu/zcoll_gpu_tests ]] ||
    note "build: the GPU tests were NOT built (no GoogleTest: run --prepare where /usr/src/googletest exists and carry .gpu-deps)"
fi

tests=$build/tests/gpu/zcoll_gpu_tests
if has test; then
  if [[ -x $tests ]]; then
    if ctest --test-dir "$build" -L gpu --output-on-failure -V > "$out/ctest.log" 2>&1; then
      note "test: ok ($(grep -c 'Test *#.* Passed' "$out/ctest.log") passed, $(grep -c 'Test *#.*Skipped' "$out/ctest.log") skipped)"
    else
      note "test: FAILED (see ctest.log)"
      status=1
    fi
    grep -q "GPU test skipped" "$out/ctest.log" && note "test: GPU tests SKIPPED: no CUDA device seen — see ctest.log"
  else
    note "test: skipped (no test binary)"
  fi
fi

if has sanitize; then
  if [[ -x $tests ]] && command -v compute-sanitizer >/dev/null; then
    : > "$out/sanitizer.log"
    # the data-file sweep is long under the sanitizer: one file's worth is run
    # through RoundTrips/Hom, which touch the same kernels
    filter='GpuCodec.*:-GpuCodec.BytesIdenticalOnEveryDataFile'
    for tool in memcheck racecheck; do
      echo "==== compute-sanitizer --tool $tool" >> "$out/sanitizer.log"
      if compute-sanitizer --tool "$tool" --error-exitcode 99 "$tests" --gtest_filter="$filter" \
           >> "$out/sanitizer.log" 2>&1; then
        note "sanitize $tool: clean"
      else
        note "sanitize $tool: FAILED (see sanitizer.log)"
        status=1
      fi
    done
  else
    note "sanitize: skipped (no test binary or no compute-sanitizer)"
  fi
fi

if has bench; then
  bench=$build/bench/gpu/zcoll-gpu-bench
  if [[ -x $bench ]]; then
    inputs=()
    for f in data/*.f32; do inputs+=(--input "$f"); done
    if "$bench" --rel 1e-2,1e-3,1e-4 --json "$out/bench.json" > "$out/bench.txt" 2>&1 &&
       "$bench" "${inputs[@]}" --rel 1e-2,1e-3,1e-4 --json "$out/bench-data.json" >> "$out/bench.txt" 2>&1 &&
       "$bench" --type f64 --rel 1e-2,1e-3,1e-4 --json "$out/bench-f64.json" >> "$out/bench.txt" 2>&1; then
      note "bench: ok (bench.txt)"
      cat "$out/bench.txt"
    else
      note "bench: FAILED (see bench.txt; exit 4 = no CUDA device)"
      status=1
    fi
  else
    note "bench: skipped (not built)"
  fi
fi
note "gpu_check: exit $status; results in $out"
exit $status
