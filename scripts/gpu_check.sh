#!/usr/bin/env bash
# gpu_check.sh — everything a GPU machine has to check of libzcoll_cuda and the
# collectives on device buffers (libzcoll_cuda_mpi), in one command of at most
# 8 minutes (docs/gpu.md, "How to verify"): build, tests, compute-sanitizer,
# the benchmarks and the calibration of the scale study, each phase under its
# own time limit, each writing its results as soon as it ends (a run stopped at
# its limit keeps what was done).
#
#   bash scripts/gpu_check.sh --prepare   # HERE (network, Debian packages): gather
#                                         # what the GPU machine lacks into .gpu-deps/
#   bash scripts/gpu_check.sh --plan      # the phases and their limits
#   bash scripts/gpu_check.sh --travel    # whether the tree and .gpu-deps fit a device
#                                         # call (64 MiB; CTest gpu_check.travels)
#   bash scripts/gpu_check.sh [OUTDIR]    # ON the GPU machine (OUTDIR: $OUT, else
#                                         # results/gpu-check)
#   bash scripts/gpu_check.sh --emu [OUTDIR]  # the rehearsal here: the same phases
#                                         # on zcoll's CUDA emulation (small sizes)
#
# The GPU machine (docs: .library/device) has CUDA, CMake, ninja, compute-sanitizer
# and Python, but no MPI, no GoogleTest, no nlohmann-json and no package
# registry: --prepare puts them in .gpu-deps/ (the mpich wheel of PyPI, cut to
# what a build and mpiexec need, as a .tar.xz; GoogleTest's and nlohmann-json's
# sources), about 8 MB, ignored by git: carry it. The device call:
#   run(command="bash scripts/gpu_check.sh", carry=[".gpu-deps"], timeout_s=480)
# A second call on the same machine keeps build-gpu/ and rebuilds nothing.
#
# Results in OUTDIR (at most 6 files, for a runner that returns few):
#   summary.txt     one line per phase: ok / FAILED / TIMEOUT / skipped, seconds, detail
#   results.tar.gz  every phase's log and JSON (rewritten after each phase)
#   bench.json calibrate.json coll-np2.json coll-np4.json   the main results
# Environment: GPU_CHECK_PHASES="build test ..." runs a subset (env always runs;
# a phase needs build's outputs), GPU_CHECK_BUDGET (default 480 s) the whole
# command's limit, GPU_CHECK_SCALE=k multiplies it and every phase's limit (a
# slower machine: the rehearsal here), GPU_CHECK_ARCH (default 90),
# GPU_CHECK_JOBS (default: the cores).
# Exit status: 0 when every phase that ran passed (or had no device to run on).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

# name:limit (seconds):what — in the order they run
PHASES=(
  "env:10:versions; the carried MPI unpacked"
  "build:110:cmake + ninja: libzcoll_cuda, libzcoll_cuda_mpi, the GPU tests and benchmarks"
  "test:75:ctest -L gpu: the codec tests; the collectives at 2, 3 and 4 ranks"
  "memcheck:90:compute-sanitizer memcheck: every codec test (16384-value samples); the collectives at 2 ranks (quick)"
  "racecheck:35:compute-sanitizer racecheck: round trips, homomorphic overflow, corrupt streams (16384-value samples)"
  "bench:50:zcoll-gpu-bench: synthetic f32 (256 MB) and f64; the data files (64 MB each)"
  "coll:45:zcoll-gpu-coll-bench coll at 2 and 4 ranks (1 and 16 MB per rank)"
  "calibrate:35:zcoll-gpu-coll-bench calibrate: the device rates of the scale study"
)
SCALE=${GPU_CHECK_SCALE:-1}
BUDGET=$((${GPU_CHECK_BUDGET:-480} * SCALE))
RESERVE=10  # seconds kept for the last packing
MPICH_VERSION=5.0.2

plan() {
  local total=0 p name limit what
  printf '%-10s %6s  %s\n' phase limit what
  for p in "${PHASES[@]}"; do
    IFS=: read -r name limit what <<<"$p"
    limit=$((limit * SCALE))
    printf '%-10s %5ss  %s\n' "$name" "$limit" "$what"
    total=$((total + limit))
  done
  printf '%-10s %5ss  (+%ss for packing the results; the command limit is %ss)\n' total "$total" \
    "$RESERVE" "$BUDGET"
  if ((total + RESERVE > BUDGET)); then
    echo "gpu_check: the phases need more than the budget" >&2
    return 1
  fi
}

# ---- --travel: whether a device call can carry the tree (its limit: 64 MiB) -------
# The working tree (tracked files and untracked ones git does not ignore) and
# .gpu-deps; where --prepare has not run (CI), what it gathers is counted as
# 8 MiB (7 MiB on 2026-11-26). A CTest runs this, so that results and data
# added to the repository can't silently take the GPU check off the device.
travel() {
  local tree deps_bytes deps_what total limit=$((64 * 1048576))
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
    echo "gpu_check: not a git checkout: what travels is unknown"
    return 77
  }
  tree=$( { git ls-files -z; git ls-files -z --others --exclude-standard; } |
    xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
  if [[ -d .gpu-deps ]]; then
    deps_bytes=$(du -sb .gpu-deps | cut -f1)
    deps_what="$(cd .gpu-deps && echo *)"
  else
    deps_bytes=$((8 * 1048576))
    deps_what="not gathered here: counted as 8 MiB"
  fi
  total=$((tree + deps_bytes))
  awk -v d="$deps_bytes" -v w="$deps_what" -v t="$tree" -v s="$total" 'BEGIN {
    m = 1048576
    printf "gpu_check: .gpu-deps %.1f MiB (%s), working tree %.1f MiB: %.1f MiB of 64 MiB travel\n",
      d / m, w, t / m, s / m }'
  if ((total > limit)); then
    echo "gpu_check: more than 64 MiB would travel: the device call would be refused" >&2
    return 1
  fi
}

# ---- --prepare: what the GPU machine lacks, into .gpu-deps/ (run here) -----------
prepare() {
  local deps=.gpu-deps tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$deps"
  # GoogleTest: the sources (no googlemock, tests, docs or samples)
  local gt=/usr/src/googletest
  [[ -f $gt/CMakeLists.txt ]] || { echo "gpu_check: $gt not found (apt-get install libgtest-dev)"; return 1; }
  rm -rf "$deps/googletest"
  mkdir -p "$deps/googletest"
  cp "$gt/CMakeLists.txt" "$deps/googletest/"
  (cd "$gt" && tar cf - --exclude=test --exclude=docs --exclude=samples googletest) |
    (cd "$deps/googletest" && tar xf -)
  # header-only packages in their install layout (DIR/include/X, DIR/share/cmake/Y):
  # nlohmann-json (libzcoll_mpi's tuning files) and CLI11 (zcoll-codec-bench of
  # scripts/cpu_scale_check.sh)
  headers() {  # DIR INCLUDE CMAKE DEBIAN-PACKAGE
    if [[ -d /usr/include/$2 && -d /usr/share/cmake/$3 ]]; then
      rm -rf "${deps:?}/$1"
      mkdir -p "$deps/$1/include" "$deps/$1/share/cmake"
      cp -r "/usr/include/$2" "$deps/$1/include/"
      cp -r "/usr/share/cmake/$3" "$deps/$1/share/cmake/"
    else
      echo "gpu_check: /usr/include/$2 not found (apt-get install $4)"
      return 1
    fi
  }
  headers nlohmann nlohmann nlohmann_json nlohmann-json3-dev || return 1
  headers cli11 CLI CLI11 libcli11-dev || return 1
  # MPI: the mpich wheel of PyPI (mpicc, mpicxx, mpiexec, libmpi; relocatable),
  # without its second library (libmpi_abi) and the launcher variants
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_28_x86_64 -d "$tmp" "mpich==$MPICH_VERSION" || {
    echo "gpu_check: pip download mpich==$MPICH_VERSION failed"
    return 1
  }
  python3 - "$tmp"/mpich-*.whl "$tmp/mpich" <<'EOF' || return 1
import os, stat, sys, zipfile
whl, dest = sys.argv[1], sys.argv[2]
keep_bin = {"mpicc", "mpicxx", "mpic++", "mpiexec", "mpiexec.hydra", "mpirun", "hydra_pmi_proxy",
            "mpichversion"}
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        parts = info.filename.split("/")
        if len(parts) < 4 or parts[1] != "data" or info.is_dir():
            continue
        rel = "/".join(parts[2:])
        if rel.startswith("bin/") and parts[3] not in keep_bin:
            continue
        if "libmpi_abi" in rel:
            continue
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with z.open(info) as src, open(out, "wb") as f:
            f.write(src.read())
        if rel.startswith("bin/") or ".so" in rel:
            os.chmod(out, 0o755)
# the unversioned library name is a link in the install; the wheel has a copy
lib = os.path.join(dest, "lib")
if os.path.exists(os.path.join(lib, "libmpi.so")):
    os.remove(os.path.join(lib, "libmpi.so"))
os.symlink("libmpi.so.12", os.path.join(lib, "libmpi.so"))
EOF
  rm -f "$deps"/mpich-*.tar.xz
  tar -C "$tmp" -cJf "$deps/mpich-$MPICH_VERSION.tar.xz" mpich
  rm -rf "$deps/mpich"
  travel || return 1
  echo "  device call: run(command=\"bash scripts/gpu_check.sh\", carry=[\".gpu-deps\"], timeout_s=480)"
  echo "  then, if time is left: run(command=\"bash scripts/cpu_scale_check.sh\", carry=[\".gpu-deps\"], timeout_s=240)"
}

case "${1:-}" in
  --plan) plan; exit $? ;;
  --prepare) prepare; exit $? ;;
  --travel) travel; exit $? ;;
esac
emu=0
if [[ "${1:-}" == "--emu" ]]; then
  emu=1
  shift
fi
plan > /dev/null || exit 2

out="${1:-${OUT:-results/gpu-check}}"
mkdir -p "$out"
out=$(cd "$out" && pwd)
logs=$(mktemp -d "${TMPDIR:-/tmp}/zcoll-gpu-check.XXXXXX")
summary="$out/summary.txt"
start=$(date +%s)
deadline=$((start + BUDGET))
arch=${GPU_CHECK_ARCH:-90}
jobs=${GPU_CHECK_JOBS:-$(nproc)}
build=build-gpu
((emu)) && build=build-gpu-emu
mpi_bin=$root/.gpu-mpi/mpich/bin  # the carried MPI, once phase env has unpacked it
want="${GPU_CHECK_PHASES:-build test memcheck racecheck bench coll calibrate}"
status=0
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
pack() {  # the results so far: the tarball, and the main JSON files beside it
  local f
  tar -C "$logs" -czf "$out/results.tar.gz.part" . && mv "$out/results.tar.gz.part" "$out/results.tar.gz"
  for f in bench.json calibrate.json coll-np2.json coll-np4.json; do
    [[ -f $logs/$f ]] && cp "$logs/$f" "$out/$f"
  done
  cp "$summary" "$logs/summary.txt"
}

# run_phase NAME: the function phase_NAME under its limit (capped by what is left
# of the budget), output in $logs/NAME.log; one summary line.
declare -A LIMIT
for p in "${PHASES[@]}"; do
  IFS=: read -r name limit _ <<<"$p"
  LIMIT[$name]=$((limit * SCALE))
done
built=0
run_phase() {
  local name=$1 limit=${LIMIT[$1]} left rc t0 secs detail
  left=$((deadline - RESERVE - $(date +%s)))
  if ((left < 5)); then
    note "$(printf '%-10s skipped   out of time (%ss of %ss used)' "$name" $(($(date +%s) - start)) "$BUDGET")"
    return
  fi
  ((limit > left)) && limit=$left
  t0=$(date +%s)
  : >"$logs/detail"
  timeout -k 5 "$limit" bash -c "phase_$name" >"$logs/$name.log" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  detail=$(cat "$logs/detail")
  if ((rc == 124 || rc == 137)); then
    note "$(printf '%-10s TIMEOUT   %4ss (limit %ss) %s' "$name" "$secs" "$limit" "$detail")"
    status=1
  elif ((rc == 77)); then
    note "$(printf '%-10s no-device %4ss %s' "$name" "$secs" "$detail")"
  elif ((rc != 0)); then
    note "$(printf '%-10s FAILED    %4ss (exit %s; see %s.log) %s' "$name" "$secs" "$rc" "$name" "$detail")"
    status=1
  else
    note "$(printf '%-10s ok        %4ss %s' "$name" "$secs" "$detail")"
    [[ $name == build ]] && built=1
  fi
  pack
}
detail() { echo "$*" >>"$logs/detail"; }

# ---- the phases (each runs in its own bash: exported functions and variables) ------
phase_env() {
  echo "gpu_check $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
  echo "emulation: $emu; build dir $build; jobs $jobs; sm_$arch"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || true
  command -v nvcc >/dev/null && nvcc --version | tail -n 2
  cmake --version | head -1
  command -v ninja >/dev/null && echo "ninja $(ninja --version)"
  command -v compute-sanitizer >/dev/null && compute-sanitizer --version | head -2
  # the carried MPI, unpacked once into .gpu-mpi/mpich: beside .gpu-deps, not in it,
  # so that a rehearsal here leaves .gpu-deps small enough to travel (64 MiB in all)
  local tarball
  tarball=$(ls .gpu-deps/mpich-*.tar.xz 2>/dev/null | head -1)
  rm -rf .gpu-deps/mpich  # where an older gpu_check unpacked it
  if [[ -n $tarball && ! -x $mpi_bin/mpiexec ]]; then
    mkdir -p .gpu-mpi
    tar -C .gpu-mpi -xJf "$tarball" ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".gpu-mpi")' "$tarball" ||
      return 1
  fi
  if [[ -x $mpi_bin/mpiexec ]]; then
    echo "MPI: carried $("$mpi_bin/mpichversion" 2>/dev/null | head -1)"
    detail "MPI: carried mpich"
  elif command -v mpiexec >/dev/null; then
    echo "MPI: the machine's $(command -v mpiexec)"
    detail "MPI: the machine's"
  else
    detail "no MPI (carry .gpu-deps: --prepare): the collectives are not built"
  fi
  nvidia-smi -L >/dev/null 2>&1 && detail "device: $(nvidia-smi -L | head -1)"
  return 0
}

phase_build() {
  local args=(-DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=OFF -DZCOLL_BUILD_TOOLS=OFF
    -DZCOLL_BUILD_PMPI=OFF -DZCOLL_BUILD_GPU_TESTS=ON)
  local targets
  if ((emu)); then
    args+=(-DZCOLL_ENABLE_CUDA=OFF -DZCOLL_CUDA_EMU=ON)
    targets="zcoll_gpu_tests_emu zcoll_gpu_coll_test_emu zcoll_emu_tests zcoll_gpu_kernels_emu_tests
      zcoll_gpu_bench_emu zcoll_gpu_coll_bench_emu"
  else
    args+=(-DZCOLL_ENABLE_CUDA=ON -DZCOLL_CUDA_EMU=OFF -DCMAKE_CUDA_ARCHITECTURES="$arch")
    targets="zcoll_gpu_tests zcoll_gpu_coll_test zcoll_gpu_bench zcoll_gpu_coll_bench"
  fi
  [[ -f .gpu-deps/googletest/CMakeLists.txt ]] && args+=(-DZCOLL_GTEST_SOURCE_DIR="$root/.gpu-deps/googletest")
  [[ -d .gpu-deps/nlohmann ]] &&
    args+=(-Dnlohmann_json_DIR="$root/.gpu-deps/nlohmann/share/cmake/nlohmann_json")
  if [[ -x $mpi_bin/mpicxx ]]; then
    local m=$mpi_bin
    args+=(-DMPI_C_COMPILER="$m/mpicc" -DMPI_CXX_COMPILER="$m/mpicxx" -DMPIEXEC_EXECUTABLE="$m/mpiexec")
  elif ! command -v mpicxx >/dev/null; then
    args+=(-DZCOLL_ENABLE_MPI=OFF)
  fi
  local gen=()
  [[ ! -f $build/CMakeCache.txt ]] && command -v ninja >/dev/null && gen=(-G Ninja)
  cmake -S . -B "$build" "${gen[@]}" "${args[@]}" || return 1
  local have=()
  for t in $targets; do
    cmake --build "$build" --target help 2>/dev/null | grep -qw "$t" && have+=("$t")
  done
  detail "targets: ${have[*]}"
  cmake --build "$build" -j"$jobs" --target "${have[@]}" || return 1
}

# tests_of: the binaries of this run (emulated or not)
bin() {
  local b=$build/tests/gpu
  if ((emu)); then echo "$b/${1}_emu"; else echo "$b/$1"; fi
}
device() { ((emu)) || nvidia-smi -L >/dev/null 2>&1; }

phase_test() {
  local label='^gpu$'
  ((emu)) && label='^gpu_emu$'
  # in the emulation, small samples and without the 3- and 4-rank runs (minutes
  # on 2 cores; CI runs them)
  local extra=()
  ((emu)) && export ZCOLL_GPU_TEST_SAMPLE=8192 && extra=(-E 'coll_np4|coll_np3')
  local o=$logs/ctest.out rc=0
  ctest --test-dir "$build" -L "$label" -j4 --output-on-failure --no-tests=error "${extra[@]}" >"$o" 2>&1 ||
    rc=$?
  cat "$o"
  local passed skipped failed
  passed=$(grep -c 'Test *#.* Passed' "$o")
  skipped=$(grep -c 'Test *#.*\*\*\*Skipped' "$o")
  failed=$(grep -c 'Test *#.*\*\*\*\(Failed\|Timeout\|Exception\)' "$o")
  rm -f "$o"
  detail "$passed passed, $failed failed, $skipped skipped"
  if ((rc == 0)) && ! device; then
    detail "(no device: the GPU tests skipped; what ran needs none)"
    return 77
  fi
  return $rc
}

sanitize() {  # tool filter sample [sanitizer options]
  local tool=$1 filter=$2 sample=$3
  shift 3
  ZCOLL_GPU_TEST_SAMPLE=$sample compute-sanitizer --tool "$tool" --error-exitcode 99 "$@" \
    "$(bin zcoll_gpu_tests)" --gtest_filter="$filter"
}
phase_memcheck() {
  if ((emu)); then detail "emulation: compute-sanitizer needs a GPU (the emulation runs under ASan in CI)"; return 77; fi
  device || { detail "no device"; return 77; }
  # HugeCapacitiesAndSizes asks for more device memory than exists on purpose
  # (it expects ZCOLL_ERR_NO_MEMORY): its failed allocations are not reported
  # (memcheck reported them as 4 errors on the first H200); its accesses are checked
  local rc=0 rc1=0
  timeout 45 bash -c "sanitize memcheck 'GpuCodec.*:-GpuCodec.HugeCapacitiesAndSizes' 16384" || rc=$?
  timeout 10 bash -c "sanitize memcheck GpuCodec.HugeCapacitiesAndSizes 16384 --report-api-errors no" ||
    rc1=$?
  detail "codec: exit $rc; huge sizes (API errors expected): exit $rc1"
  ((rc == 0)) && rc=$rc1
  local rc2=0
  [[ -x $(bin zcoll_gpu_coll_test) ]] &&
    { timeout 30 mpiexec -n 2 compute-sanitizer --tool memcheck --error-exitcode 99 \
        "$(bin zcoll_gpu_coll_test)" quick || rc2=$?; detail "collectives (2 ranks, quick): exit $rc2"; }
  ((rc == 0 && rc2 == 0))
}
phase_racecheck() {
  if ((emu)); then detail "emulation: compute-sanitizer needs a GPU"; return 77; fi
  device || { detail "no device"; return 77; }
  local rc=0
  sanitize racecheck 'GpuCodec.RoundTripsBothWays:GpuCodec.HomOverflowGoesThroughFloats:GpuCodec.CorruptStreamsAreErrors' 16384 || rc=$?
  detail "exit $rc"
  return $rc
}

# benchmarks: the emulated ones with sizes it runs in seconds
phase_bench() {
  local b=$build/bench/gpu/zcoll-gpu-bench
  ((emu)) && b=$b-emu
  [[ -x $b ]] || { detail "not built"; return 1; }
  local big=(--min-mb 256) data=(--min-mb 64) rep=(--repeat 10) rels=(--rel 1e-2,1e-3,1e-4)
  ((emu)) && big=(--min-mb 0.5) data=(--min-mb 0.3) rep=(--repeat 1) rels=(--rel 1e-3)
  local inputs=() f rc=0
  for f in data/*.f32; do inputs+=(--input "$f"); done
  "$b" "${big[@]}" "${rep[@]}" "${rels[@]}" --json "$logs/bench.json" || rc=$?
  ((rc == 4)) && { detail "no device"; return 77; }
  "$b" "${big[@]}" "${rep[@]}" "${rels[@]}" --type f64 --json "$logs/bench-f64.json" || rc=$((rc ? rc : $?))
  "$b" "${inputs[@]}" "${data[@]}" "${rep[@]}" "${rels[@]}" --json "$logs/bench-data.json" || rc=$((rc ? rc : $?))
  detail "bench.json bench-f64.json bench-data.json; exit $rc"
  return $rc
}
collbench() {
  local b=$build/bench/gpu/zcoll-gpu-coll-bench
  ((emu)) && b=$b-emu
  [[ -x $b ]] || { detail "not built (no MPI?)"; return 1; }
  echo "$b"
}
phase_coll() {
  local b
  b=$(collbench) || return 1
  local data=data/ferret_fnoc-uwnd_132x73x144.f32  # the file of the CPU scale study
  local size=(--mb 1,16 --repeat 3)
  ((emu)) && size=(--mb 0.2 --repeat 1 --modes raw,hom --colls allreduce,bcast)
  local np rc=0 r
  for np in 2 4; do
    r=0
    mpiexec -n $np "$b" coll --data "$data" "${size[@]}" --json "$logs/coll-np$np.json" || r=$?
    ((r == 4)) && { detail "no device"; return 77; }
    detail "np$np: exit $r"
    ((rc == 0)) && rc=$r
  done
  return $rc
}
phase_calibrate() {
  local b
  b=$(collbench) || return 1
  local size=(--values 4194304 --repeat 5)
  ((emu)) && size=(--values 131072 --terms 1,2,3 --repeat 1)
  local rc=0
  mpiexec -n 1 "$b" calibrate --data data/ferret_fnoc-uwnd_132x73x144.f32 --rel 1e-4 "${size[@]}" \
    --json "$logs/calibrate.json" || rc=$?
  ((rc == 4)) && { detail "no device"; return 77; }
  detail "calibrate.json; exit $rc"
  return $rc
}

export -f phase_env phase_build phase_test phase_memcheck phase_racecheck phase_bench phase_coll \
  phase_calibrate detail bin device sanitize collbench
export root logs build emu arch jobs mpi_bin
# the carried MPI first in PATH (mpiexec, mpicxx); Open MPI, if it is the machine's,
# refuses root and more ranks than cores unless told (MPICH ignores these)
export PATH="$mpi_bin:$PATH:/usr/local/cuda/bin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
export PYTHONUNBUFFERED=1

echo "gpu_check: results in $out (phases: env $want; budget ${BUDGET}s)" | tee -a "$summary"
run_phase env
for p in "${PHASES[@]}"; do
  IFS=: read -r name _ _ <<<"$p"
  [[ $name == env ]] && continue
  [[ " $want " == *" $name "* ]] || continue
  if [[ $name != build && $built == 0 && " $want " == *" build "* ]]; then
    note "$(printf '%-10s skipped   (the build failed)' "$name")"
    continue
  fi
  run_phase "$name"
done
note "gpu_check: exit $status after $(($(date +%s) - start))s; results in $out"
pack
rm -rf "$logs"
exit $status
