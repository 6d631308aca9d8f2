#!/usr/bin/env bash
# demo.sh — install dependencies (scripts/setup.sh), build zcoll (Release), then
#  1. the compressor: `zcoll eval` on the repository's data at three relative
#     error bounds, one thread, one table (two larger fields of ../shared/data
#     are included when that directory exists);
#  2. the collectives: `zcoll-bench` Allreduce and Bcast of the bundled wind
#     field (each rank a different slice of the 132 monthly snapshots) in modes
#     mpi, hom and auto (the cost model's choice), with the model's prediction
#     next to each measurement:
#     - as root, where network namespaces work: on the emulated cluster of
#       tools/netcluster (4 hosts, 1 Gbit/s links, every byte through TCP), and
#       plots (PNG) of the speedup over MPI in results/demo/plots;
#     - otherwise with 4 ranks on shared memory, where compression is not
#       expected to win (the link is faster than the codec) and auto picks MPI;
#  3. the application (last step): examples/image_stacking stacks 24 noisy
#     exposures of the Hubble image in data/ (4 ranks x 6) with MPI_Allreduce
#     and with zcoll's Allreduce (hom, doc, auto; ABS 1e-4 and 1e-2), on the
#     emulated cluster as root (16 MiB per rank) or on shared memory otherwise,
#     and draws what the bound means: results/demo/stacking/*.png
#     (docs/image_stacking.md).
# Each step prints how long it took; the whole demo takes about 5 minutes on a
# fresh 2-core machine (README).
# Safe to run again (the build is incremental, and ccache keeps what it compiled).
# ZCOLL_DEMO_BUILD_DIR chooses the build directory (default: build-demo; its own, since
# it leaves out the tests, fuzzers and CUDA that scripts/test.sh builds in build/).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

build="${ZCOLL_DEMO_BUILD_DIR:-build-demo}"

demo_t0=$SECONDS
step_t0=$SECONDS
# step NAME: print how long the step before took, then NAME
step() {
  local now=$SECONDS
  if [[ -n "${step_name:-}" ]]; then
    printf '\n[demo] %s: %d s\n' "$step_name" $((now - step_t0))
  fi
  step_name=$1
  step_t0=$now
  [[ -n "$step_name" ]] && printf '\n[demo] ---- %s\n' "$step_name"
  return 0
}
results=$(mktemp)
trap 'rm -f "$results"; step ""; printf "[demo] total: %d s\n" $((SECONDS - demo_t0))' EXIT

step "setup: the build's packages (scripts/setup.sh --build)"
bash scripts/setup.sh --build
step "build: the library, the zcoll CLI, zcoll-bench and examples/image_stacking"
# the rest of the demo's packages (matplotlib, iproute2) install while it builds
mkdir -p "$build"
bash scripts/setup.sh --demo >"$build/setup-demo.log" 2>&1 &
setup_pid=$!
# Ninja for a new build tree, as scripts/test.sh (whose objects these are)
command -v ninja >/dev/null && export CMAKE_GENERATOR="${CMAKE_GENERATOR:-Ninja}"
# only what the demo runs: no tests, fuzzers, CUDA, PMPI shim or Python package; with
# the compile flags of scripts/test.sh's build (-Werror included), so that its objects are
# ccache hits when the tests are built after the demo
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=OFF -DZCOLL_ENABLE_CUDA=OFF \
      -DZCOLL_CUDA_EMU=OFF -DZCOLL_BUILD_PMPI=OFF -DZCOLL_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target zcoll_cli zcoll-bench image_stacking
wait "$setup_pid" || { cat "$build/setup-demo.log" >&2; echo "demo: scripts/setup.sh --demo failed" >&2; exit 1; }
tail -1 "$build/setup-demo.log"
# Debian's python3 (with the matplotlib and numpy setup.sh installed), whatever else is on PATH
py=/usr/bin/python3
zcoll="$build/tools/cli/zcoll"

step "the compressor: zcoll eval on every data file at three bounds"
files=(data/*.f32)
for f in ferret_etopo5-rose_2161x4320.f32 hst-acs_j8bt06nyq-sci_1024x1024.f32; do
  # data/ holds the Hubble image too: take ../shared/data/ only for what data/ lacks
  [[ -f "../shared/data/$f" && ! -f "data/$f" ]] && files+=("../shared/data/$f")
done

status=0
echo
echo "zcoll eval: f32, 1 thread, best of 3 runs; GB/s of uncompressed bytes"
for f in "${files[@]}"; do
  for rel in 1e-2 1e-3 1e-4; do
    # eval exits non-zero if the bound is broken; its JSON line still comes out
    "$zcoll" eval -i "$f" --type f32 --rel "$rel" --threads 1 --repeat 3 --json >>"$results" ||
      status=1
  done
done

"$py" - "$results" <<'PY'
import json, os, sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
head = ("dataset", "rel", "ratio", "comp GB/s", "decomp GB/s", "max err", "err/eb", "PSNR dB", "bound")
table = []
for r in rows:
    psnr = r["psnr"]  # null (JSON) when the reconstruction is exact
    table.append((
        os.path.basename(r["file"]).removesuffix(".f32"),
        f'{r["eb"]:g}',
        f'{r["ratio"]:.2f}',
        f'{r["compress_gbps"]:.2f}',
        f'{r["decompress_gbps"]:.2f}',
        f'{r["max_abs_error"]:.3g}',
        f'{r["err_over_eb"]:.3f}',
        "inf" if psnr is None else f"{psnr:.1f}",
        "ok" if r["bound_ok"] else "FAILED",
    ))
width = [max(len(str(c)) for c in col) for col in zip(head, *table)]
def line(cells):
    # first column left-aligned, numbers right-aligned
    return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, width)))
print(line(head))
print("  ".join("-" * w for w in width))
for t in table:
    print(line(t))
PY

step "the collectives: zcoll-bench Allreduce and Bcast (mpi, hom, auto)"
bench="$build/tools/zcoll_bench/zcoll-bench"
wind=data/ferret_fnoc-uwnd_132x73x144.f32
nc=tools/netcluster/netcluster.sh
if [[ ! -x "$bench" ]] || ! command -v mpirun >/dev/null; then
  echo "zcoll-bench was not built (MPI not found): skipping the collectives demo"
  exit "$status"
fi
cluster=0
if [[ $(id -u) -eq 0 ]] && command -v ip >/dev/null && command -v tc >/dev/null &&
   ip netns add zc-demo-probe 2>/dev/null; then
  ip netns delete zc-demo-probe
  cluster=1
fi
if [[ $cluster -eq 1 ]] && "$nc" setup 4 1gbit; then
  out=results/demo
  mkdir -p "$out"
  echo
  echo "Emulated cluster: 4 hosts (network namespaces), 1 Gbit/s shaped links, MPICH over TCP."
  echo "The 2 cores of this machine run all 4 ranks and the TCP stack (docs/netcluster.md)."
  NETCLUSTER_CHECK_SECONDS=4 "$nc" check 4 || echo "(the link check was off; the numbers below are still what ran)"
  for coll in allreduce bcast; do
    echo
    echo "zcoll-bench $coll: 4 hosts at 1 Gbit/s, REL 1e-4, 1 thread per rank; t_model = the cost model's prediction"
    NETCLUSTER_TIMEOUT=600 NETCLUSTER_FINALIZE_GRACE=5 "$nc" run 4 -- "$bench" "$coll" -b 1M -e 64M -f 4 \
      --data "$wind" --rel 1e-4 --modes mpi,hom,auto --threads 1 -w 1 -n 3 \
      --json "$out/h4_1gbit_$coll.json" 2>&1 | grep -v '^netcluster: zc-h' || status=1
  done
  "$nc" teardown >/dev/null
  if "$py" -c 'import matplotlib' 2>/dev/null; then
    "$py" bench/plot_bench.py "$out/h4_1gbit_allreduce.json" "$out/h4_1gbit_bcast.json" --out "$out/plots" >/dev/null &&
      echo && echo "plots: $out/plots/ (speedup over MPI vs message size, one line per mode)"
  else
    echo "(matplotlib not available: no plots)"
  fi
else
  cluster=0
  for coll in allreduce bcast; do
    echo
    echo "zcoll-bench $coll: 4 ranks on one machine (shared memory), REL 1e-4, 1 thread per rank"
    echo "(not root or no network namespaces: no emulated cluster; auto should pick MPI here)"
    OMP_WAIT_POLICY=passive mpirun -np 4 "$bench" "$coll" -b 1M -e 16M -f 4 --data "$wind" \
      --rel 1e-4 --modes mpi,hom,auto --threads 1 -w 1 -n 3 || status=1
  done
fi

# ---- last step: the application, image stacking (docs/image_stacking.md) -------
step "the application: image stacking"
stack="$build/examples/image_stacking"
if [[ -x "$stack" ]]; then
  out=results/demo/stacking
  mkdir -p "$out"
  args=(--image data/hst-acs_j8bt06nyq-sci_1024x1024.f32 --exposures 6 --sigma 5e-3
        --bounds 1e-4,1e-2 --modes hom,doc,auto --repeats 3 --json "$out/stacking.json" --dump "$out")
  echo
  if [[ $cluster -eq 1 ]] && "$nc" setup 4 1gbit >/dev/null; then
    echo "image_stacking: 24 noisy exposures of the Hubble image, 4 hosts at 1 Gbit/s (16 MiB per rank)"
    NETCLUSTER_TIMEOUT=600 NETCLUSTER_FINALIZE_GRACE=5 "$nc" run 4 -- "$stack" "${args[@]}" --tiles 4 2>&1 |
      grep -v '^netcluster: zc-h' || status=1
    "$nc" teardown >/dev/null
  else
    echo "image_stacking: 24 noisy exposures of the Hubble image, 4 ranks on shared memory (4 MiB per rank)"
    OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive mpirun -np 4 "$stack" "${args[@]}" || status=1
  fi
  # the pictures, with Debian's matplotlib (scripts/setup.sh --demo)
  if [[ -f "$out/stacking.json" ]] && "$py" -c 'import matplotlib' 2>/dev/null; then
    for eb in 1e-4 1e-2; do
      "$py" examples/image_stacking/plot_stack.py "$out/stacking.json" --dump "$out" --mode hom \
        --eb "$eb" --out "$out/stack_hom_$eb.png" >/dev/null || status=1
    done
    echo "pictures: $out/stack_hom_1e-4.png (the bound the papers use: no visible difference),"
    echo "          $out/stack_hom_1e-2.png (a loose bound: faint stars and halos posterised)"
  else
    echo "(no Python with matplotlib: no pictures)"
  fi
fi
exit "$status"
