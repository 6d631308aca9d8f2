#!/usr/bin/env bash
# gpu_check.sh — build, test, sanitize and benchmark libzcoll_cuda and the
# collectives on device buffers (libzcoll_cuda_mpi) on a machine with an NVIDIA
# GPU (Hopper: sm_90), writing everything to one results folder.
#
#   bash scripts/gpu_check.sh [OUTDIR]          # OUTDIR: default $OUT, else results/gpu-check
#   bash scripts/gpu_check.sh --prepare         # on a machine WITH GoogleTest sources
#                                               # (/usr/src/googletest, Debian libgtest-dev):
#                                               # copy them (and nlohmann-json's headers,
#                                               # needed by libzcoll_mpi) to .gpu-deps/ for
#                                               # a GPU machine that cannot install packages
# GPU_CHECK_PHASES="build test sanitize bench" chooses the phases (default: all),
# GPU_CHECK_ARCH the architectures (default 90), GPU_CHECK_JOBS the build jobs.
#
# Files written (flat, so that a remote runner can return them all):
#   summary.txt   one line per phase: ok / FAILED / skipped (and why)
#   build.log     configure + build
#   ctest.log     ctest -L gpu (GoogleTest output of every test)
#   sanitizer.log compute-sanitizer memcheck and racecheck on the GPU tests
#   bench.txt     zcoll-gpu-bench tables (f32 and f64)
#   bench.json, bench-data.json, bench-f64.json   the same as JSON (synthetic f32,
#                 the data/ files tiled to 256 MB, synthetic f64)
#   calibrate.json  zcoll-gpu-coll-bench calibrate: device rates of every local step
#                 of the collectives (input of tools/simscale/gpu_study.py)
#   coll-np2.json, coll-np4.json  zcoll-gpu-coll-bench coll: the collectives on device
#                 buffers, 2 and 4 ranks on the one GPU (MPI host staging)
# The collectives (tests gpu.coll_*, coll benchmarks) need MPI on the GPU machine
# (mpiexec and an MPI C++ library: MPICH or Open MPI); without it they are not
# built and summary.txt says so.
# Needs: CMake >= 3.25, nvcc, a C++17 compiler with OpenMP. GoogleTest: the
# installed package, else .gpu-deps/googletest (see --prepare); without either the
# codec tests are not built and summary.txt says so. No CLI11 or network needed.
# Exit status: 0 when every phase that ran passed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ "${1:-}" == "--prepare" ]]; then
  src=/usr/src/googletest
  [[ -f $src/CMakeLists.txt ]] || { echo "gpu_check: $src not found (apt-get install libgtest-dev)"; exit 1; }
  rm -rf .gpu-deps/googletest && mkdir -p .gpu-deps && cp -r "$src" .gpu-deps/googletest
  # nlohmann-json (header-only; libzcoll_mpi's tuning files), in its install layout
  if [[ -d /usr/include/nlohmann && -d /usr/share/cmake/nlohmann_json ]]; then
    rm -rf .gpu-deps/nlohmann && mkdir -p .gpu-deps/nlohmann/include .gpu-deps/nlohmann/share/cmake
    cp -r /usr/include/nlohmann .gpu-deps/nlohmann/include/
    cp -r /usr/share/cmake/nlohmann_json .gpu-deps/nlohmann/share/cmake/
  fi
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
# Open MPI refuses root and more ranks than cores unless told (MPICH ignores these)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi=OFF
if command -v mpiexec >/dev/null && { command -v mpicxx >/dev/null || command -v mpicc >/dev/null; }; then
  mpi=ON
fi

if has build; then
  gtest_arg=()
  [[ -f .gpu-deps/googletest/CMakeLists.txt ]] && gtest_arg=(-DZCOLL_GTEST_SOURCE_DIR="$PWD/.gpu-deps/googletest")
  [[ -d .gpu-deps/nlohmann/share/cmake/nlohmann_json ]] &&
    gtest_arg+=(-Dnlohmann_json_DIR="$PWD/.gpu-deps/nlohmann/share/cmake/nlohmann_json")
  gen=()
  command -v ninja >/dev/null && gen=(-G Ninja)
  [[ -f $build/CMakeCache.txt ]] && gen=()  # keep the generator of an existing build
  if cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
       -DZCOLL_ENABLE_CUDA=ON -DZCOLL_BUILD_TESTS=OFF -DZCOLL_BUILD_GPU_TESTS=ON \
       -DZCOLL_BUILD_TOOLS=OFF -DZCOLL_BUILD_PMPI=OFF -DZCOLL_ENABLE_MPI=$mpi "${gtest_arg[@]}" > "$out/build.log" 2>&1 &&
     cmake --build "$build" -j"$jobs" >> "$out/build.log" 2>&1; then
    note "build: ok (sm_$arch)"
  else
    note "build: FAILED (see build.log)"
    status=1
  fi
  [[ -x $build/tests/gpu/zcoll_gpu_tests ]] ||
    note "build: the GPU tests were NOT built (no GoogleTest: run --prepare where /usr/src/googletest exists and carry .gpu-deps)"
  [[ -x $build/tests/gpu/zcoll_gpu_coll_test ]] ||
    note "build: the GPU collectives were NOT built (MPI=$mpi: no mpiexec/mpicxx on this machine, or see build.log)"
fi

tests=$build/tests/gpu/zcoll_gpu_tests
colltest=$build/tests/gpu/zcoll_gpu_coll_test
if has test; then
  if [[ -x $tests || -x $colltest ]]; then
    # codec tests and the collectives with mpiexec -np 2, 3, 4 (tests gpu.coll_np*)
    if ctest --test-dir "$build" -L gpu --output-on-failure -V > "$out/ctest.log" 2>&1; then
      note "test: ok ($(grep -c 'Test *#.* Passed' "$out/ctest.log") passed, $(grep -c 'Test *#.*Skipped' "$out/ctest.log") skipped)"
    else
      note "test: FAILED (see ctest.log)"
      status=1
    fi
    grep -q "GPU test skipped\|GPU collective test skipped" "$out/ctest.log" && note "test: GPU tests SKIPPED: no CUDA device seen — see ctest.log"
  else
    note "test: skipped (no test binary)"
  fi
fi

if has sanitize; then
  if [[ ( -x $tests || -x $colltest ) ]] && command -v compute-sanitizer >/dev/null; then
    : > "$out/sanitizer.log"
    # the data-file sweep is long under the sanitizer: one file's worth is run
    # through RoundTrips/Hom, which touch the same kernels
    filter='GpuCodec.*:-GpuCodec.BytesIdenticalOnEveryDataFile'
    for tool in memcheck racecheck; do
      echo "==== compute-sanitizer --tool $tool" >> "$out/sanitizer.log"
      [[ -x $tests ]] || continue
      if compute-sanitizer --tool "$tool" --error-exitcode 99 "$tests" --gtest_filter="$filter" \
           >> "$out/sanitizer.log" 2>&1; then
        note "sanitize $tool: clean"
      else
        note "sanitize $tool: FAILED (see sanitizer.log)"
        status=1
      fi
    done
    # the collectives: every rank under the sanitizer, 2 ranks on the GPU, quick counts
    if [[ -x $colltest ]]; then
      for tool in memcheck racecheck; do
        echo "==== mpiexec -n 2 compute-sanitizer --tool $tool zcoll_gpu_coll_test quick" >> "$out/sanitizer.log"
        if timeout 1500 mpiexec -n 2 compute-sanitizer --tool "$tool" --error-exitcode 99 "$colltest" quick \
             >> "$out/sanitizer.log" 2>&1; then
          note "sanitize $tool (collectives, 2 ranks): clean"
        else
          note "sanitize $tool (collectives, 2 ranks): FAILED (see sanitizer.log)"
          status=1
        fi
      done
    fi
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
  cbench=$build/bench/gpu/zcoll-gpu-coll-bench
  if [[ -x $cbench ]]; then
    data=data/ferret_fnoc-uwnd_132x73x144.f32  # the file of the CPU scale study (docs/scale.md)
    if "$cbench" calibrate --data "$data" --rel 1e-4 --json "$out/calibrate.json" >> "$out/bench.txt" 2>&1 &&
       mpiexec -n 2 "$cbench" coll --data "$data" --mb 1,16,64 --json "$out/coll-np2.json" >> "$out/bench.txt" 2>&1 &&
       mpiexec -n 4 "$cbench" coll --data "$data" --mb 1,16,64 --json "$out/coll-np4.json" >> "$out/bench.txt" 2>&1; then
      note "bench collectives: ok (calibrate.json, coll-np2.json, coll-np4.json)"
    else
      note "bench collectives: FAILED (see bench.txt; exit 4 = no CUDA device)"
      status=1
    fi
  else
    note "bench collectives: skipped (zcoll-gpu-coll-bench not built: needs MPI)"
  fi
fi
note "gpu_check: exit $status; results in $out"
exit $status
