#!/usr/bin/env bash
# test.sh — install dependencies (scripts/setup.sh, scripts/setup_python.sh), build
# zcoll with its tests (Release, -Werror) and run them all (CTest: unit, MPI, PMPI shim
# incl. LAMMPS, example, GPU tests that skip without a device); the fuzz smoke run
# (scripts/fuzz_smoke.sh), the sanitizer soak and the Python package's tests; before
# the build, the style checks (scripts/lint.sh). Exits non-zero on any failure. This
# is what CI runs (.ci/run).
# Every build goes through ccache (CMakeLists.txt) and clang-tidy through its result
# cache (scripts/tidy_cached.py), so a second run, or CI after a rehearsal, redoes
# only what changed. At the end a table gives the time of each phase (also written
# to $ZCOLL_BUILD_DIR/test_phases.json).
# ZCOLL_BUILD_DIR chooses the build directory (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export ZCOLL_BUILD_DIR="${ZCOLL_BUILD_DIR:-build}"
build="$ZCOLL_BUILD_DIR"
asan="${ZCOLL_ASAN_BUILD_DIR:-build-asan}"

# ---- phase NAME: close the phase before (its time goes to the table), open NAME
phase_names=()
phase_secs=()
phase_t0=$SECONDS
test_t0=$SECONDS
phase() {
  local now=$SECONDS
  if [[ -n "${phase_name:-}" ]]; then
    phase_names+=("$phase_name")
    phase_secs+=($((now - phase_t0)))
    printf '[test] %s: %d s\n' "$phase_name" $((now - phase_t0))
  fi
  phase_name=$1
  phase_t0=$now
  [[ -n "$phase_name" ]] && printf '\n[test] ---- %s\n' "$phase_name"
  return 0
}
phase_table() {
  local i json="{" total=$((SECONDS - test_t0))
  echo
  echo "test.sh: time of each phase (s)"
  for i in "${!phase_names[@]}"; do
    printf '  %-28s %5d\n' "${phase_names[$i]}" "${phase_secs[$i]}"
    json+="\"${phase_names[$i]}\": ${phase_secs[$i]}, "
  done
  printf '  %-28s %5d\n' total "$total"
  [[ -d "$build" ]] && echo "${json}\"total\": $total}" >"$build/test_phases.json"
  return 0
}

phase setup
bash scripts/setup.sh
# The Python venv (numpy, zarr, torch, ruff for the lint; mpi4py built against MPICH): the
# PMPI shim's mpi4py test is registered at configure time with it, and the Python package
# below uses it. mpi4py compiles for minutes on one core on a fresh machine: that runs in
# the background while configure and lint use the other core, and the build waits for it.
py=$(bash scripts/setup_python.sh --no-mpi4py | tail -1)
mpi4py_was_ready=0
"$py" -c "import mpi4py, numpy" 2>/dev/null && mpi4py_was_ready=1
mpi4py_log=$(mktemp)
bash scripts/setup_python.sh >"$mpi4py_log" 2>&1 &
mpi4py_pid=$!

phase configure
# Ninja for new build trees, here and in CTest's own builds (an existing tree keeps its
# generator; scripts/setup.sh installs it): its checks of an up-to-date tree take
# a fraction of Make's (docs/reports/2026-11-29-fast-feedback.md)
command -v ninja >/dev/null && export CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"
# -Werror: a warning fails CI (ZCOLL_WERROR, CMakeLists.txt)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON -DZCOLL_PYTHON="$py" \
      -DZCOLL_WERROR=ON >/dev/null
# the sanitizer build: only the programs it runs (below), in their own directory, at
# -O1 (AddressSanitizer's usual level): its first build took 86 s instead of 147 s at
# -O3, its runs the same within the noise (docs/reports/2026-11-29-fast-feedback-5.md)
cmake -S . -B "$asan" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON -DZCOLL_SANITIZE=ON \
      -DZCOLL_BUILD_FUZZERS=OFF -DZCOLL_ENABLE_CUDA=OFF \
      -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" >/dev/null

# style first: clang-format on every C/C++/CUDA file, clang-tidy with the configure's
# compile_commands.json (CONTRIBUTING.md)
phase lint
ZCOLL_PY="$py" bash scripts/lint.sh "$build"

phase "python setup (mpi4py)"
wait "$mpi4py_pid" || { cat "$mpi4py_log" >&2; echo "test.sh: scripts/setup_python.sh failed" >&2; exit 1; }
rm -f "$mpi4py_log"
# configured before mpi4py was there: again, so that the mpi4py tests are registered
[[ $mpi4py_was_ready -eq 1 ]] || cmake -S . -B "$build" >/dev/null

phase build
cmake --build "$build" -j2

# --no-tests=error: a configuration that registers no test must not pass
phase ctest
ctest --test-dir "$build" --output-on-failure -j2 --no-tests=error

phase "fuzz smoke"
bash scripts/fuzz_smoke.sh

# ---- reliability (issue 11, docs/reliability.md): the soak and the fault tests
# under AddressSanitizer + UndefinedBehaviorSanitizer + LeakSanitizer, and the GPU
# codec on the CUDA emulation (issue 25); a 60 s soak at 3 ranks.
phase "sanitizer build"
cmake --build "$asan" -j2 --target zcoll-soak zcoll_lifecycle_test zcoll_fault_tests \
  zcoll_nonblocking_tests zcoll_gpu_tests_emu zcoll_emu_tests zcoll_gpu_kernels_emu_tests \
  zcoll_robustness_tests
phase "sanitizer runs"
# fast_unwind_on_malloc=0: full stacks, so that the MPI library's own allocations
# (from modules it dlopens and unloads) match the suppressions
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan-mpi.supp:print_suppressions=0:fast_unwind_on_malloc=0"
# The ranks (not mpiexec) get the MPI that leaves the core when idle, as under
# CTest (cmake/ZcollTestYield.cmake), behind the sanitizer's runtime, which must
# come first: 3 ranks share 2 cores.
asan_rt=$(ldd "$asan/tools/zcoll_soak/zcoll-soak" | awk '/libasan/ {print $3}')
yield_ranks=(-genv LD_PRELOAD "$asan_rt:$PWD/$build/libzcoll_test_yield.so")
# the CUDA code on the CPU (issue 25, docs/gpu.md): the GPU codec tests, the
# emulation's own and single kernels, on zcoll's CUDA emulation (4096-value
# samples of the data files). The emulation runs on one core: its two longest tests
# and the emulation's own tests run in a second process beside the rest of this block.
gpu_emu_long='GpuCodec.BytesIdenticalOnEveryDataFile:GpuCodec.HomResultsIdenticalToCpu'
(
  ZCOLL_GPU_TEST_SAMPLE=4096 "$asan/tests/gpu/zcoll_gpu_tests_emu" --gtest_filter="$gpu_emu_long"
  "$asan/tests/gpu/zcoll_emu_tests"
  "$asan/tests/gpu/zcoll_gpu_kernels_emu_tests"
) &
gpu_emu_long_pid=$!
OMP_NUM_THREADS=1 "$asan/tests/mpi/zcoll_fault_tests"
# corrupt and bad input to the codec (every header byte flipped, forged indexes,
# random streams, bad parameters): statuses, and no undefined behaviour on the way
"$asan/tests/unit/zcoll_robustness_tests" --gtest_filter='BadInput.*:BadParams.*' --gtest_brief=1
ZCOLL_GPU_TEST_SAMPLE=4096 "$asan/tests/gpu/zcoll_gpu_tests_emu" --gtest_filter="-$gpu_emu_long"
wait "$gpu_emu_long_pid" || { echo "test.sh: the sanitizer's GPU emulation tests in the second process failed" >&2; exit 1; }
OMP_NUM_THREADS=1 mpiexec -n 2 "${yield_ranks[@]}" "$asan/tests/mpi/zcoll_lifecycle_test" 100
# the nonblocking calls: requests in flight, errors, lifetimes (progress threads)
OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpiexec -n 3 "${yield_ranks[@]}" "$asan/tests/mpi/zcoll_nonblocking_tests" \
  inflight errors lifetime
# The seeds come from the commit (a new range for every commit, the same on every run
# of one commit, so that a run before submitting checks exactly what CI will run);
# ZCOLL_SOAK_SEED chooses another start.
soak_seed=${ZCOLL_SOAK_SEED:-$((16#$(git rev-parse --short=7 HEAD 2>/dev/null || echo 1)))}
OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpiexec -n 3 "${yield_ranks[@]}" "$asan/tools/zcoll_soak/zcoll-soak" \
  --seed "$soak_seed" --iterations 600 --max-mib 2 --max-count 20000 --timeout 300 --nonblocking
# and the recorded cases that once failed at 3 ranks (tools/zcoll_soak/regression_seeds.txt;
# CTest replays the other rank counts' in the release build)
OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpiexec -n 3 "${yield_ranks[@]}" "$asan/tools/zcoll_soak/zcoll-soak" \
  --seeds-file tools/zcoll_soak/regression_seeds.txt --timeout 300
unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

# ---- Python package (issue 13; docs/python.md) ----------------------------------
# `pip install .` (scikit-build-core over this CMake, build directory build-python/,
# the same compile flags as $build so that ccache serves the library's objects),
# pytest on one process, then the collectives under mpirun with 2 ranks (with the
# DDP hook test) and 3 ranks. A failing rank aborts its mpirun (python/tests/conftest.py);
# pytest's exit status 5 (no test collected) counts as a failure.
phase "python build"
"$py" -m pip install -q --disable-pip-version-check --no-build-isolation \
  --config-settings=build-dir=build-python --config-settings=cmake.define.ZCOLL_WERROR=ON .
phase "python tests"
run_pytest() {
  local rc=0
  "$@" || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "test.sh: python tests failed (exit status $rc$([[ $rc -eq 5 ]] && echo ': no tests collected')): $*" >&2
    exit 1
  fi
}
pytest_args=(-m pytest -q -p no:cacheprovider)
# the sweep's summary (issue 17, docs/performance.md): medians, ranges and the
# "noise: ranges overlap" marks of bench/netcluster/summarize.py and the error bars'
# data of bench/plot_bench.py, on made-up zcoll-bench JSON; the training comparison's
# tables and plots (bench/train/summarize.py) on made-up JSON; the lint cache's keys
# and manifests (scripts/tidy_cached.py); and the package on one process (two
# pytest-xdist workers: one process of pytest kept one core busy)
run_pytest "$py" "${pytest_args[@]}" -n 2 bench/netcluster/test_summarize.py \
  bench/train/test_train_summarize.py scripts/test_tidy_cached.py python/tests
# one thread per rank, no spinning OpenMP workers: the ranks share the cores
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OPENBLAS_NUM_THREADS=1
# the ranks' MPI leaves the core when idle (as under CTest: cmake/ZcollTestYield.cmake)
yield_ranks=(-genv LD_PRELOAD "$PWD/$build/libzcoll_test_yield.so")
run_pytest timeout 600 mpirun -np 2 "${yield_ranks[@]}" "$py" "${pytest_args[@]}" python/tests/test_comm.py \
  python/tests/test_nonblocking.py python/tests/test_torch_ddp.py python/tests/test_torch_backend.py
run_pytest timeout 600 mpirun -np 3 "${yield_ranks[@]}" "$py" "${pytest_args[@]}" python/tests/test_comm.py \
  python/tests/test_nonblocking.py
phase ""
phase_table
echo "test.sh: all tests passed"
