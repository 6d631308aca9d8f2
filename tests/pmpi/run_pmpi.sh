#!/usr/bin/env bash
# run_pmpi.sh — drivers of the PMPI shim's tests (tests/pmpi/CMakeLists.txt).
#   run_pmpi.sh disabled SHIM NP LAUNCHER... -- PROGRAM ARGS...
#       the program's output without the shim, with it preloaded and unset, and
#       with ZCOLL_PMPI=0: identical (bit-identical results: the programs print
#       a digest of every result), and each run passes
#   run_pmpi.sh enabled SHIM NP REGEX LAUNCHER... -- PROGRAM ARGS...
#       the program with the shim on (the ZCOLL_* settings come from the test's
#       environment, passed to every rank); passes and, for each line of
#       REGEX, a line of its stderr (the report) matches it
#   run_pmpi.sh refuses SHIM NP REGEX LAUNCHER... -- PROGRAM ARGS...
#       the program must fail, with a message matching REGEX (each line)
#   run_pmpi.sh lammps SHIM NP LAUNCHER... -- LMP INPUT
#       LAMMPS's thermo lines without and with the shim (on, every collective
#       allowed): identical; prints the shim's report
# The launcher is mpiexec (MPICH: -genv NAME VALUE) or mpirun.openmpi (-x NAME=VALUE).
set -uo pipefail
mode=$1 shim=$2 np=$3
shift 3
regex=
if [[ $mode == enabled || $mode == refuses ]]; then
  regex=$1
  shift
fi
launcher=()
while [[ $# -gt 0 && $1 != -- ]]; do launcher+=("$1"); shift; done
shift  # --
prog=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# env NAME=VALUE... → launcher flags for every rank
envflags() {
  local flags=() kv
  for kv in "$@"; do
    # the shim first, then what the test inherited (CTest's yield-when-idle preload)
    [[ $kv == LD_PRELOAD=* && -n ${LD_PRELOAD:-} ]] && kv="$kv:$LD_PRELOAD"
    if [[ ${launcher[0]} == *openmpi* || ${launcher[0]} == *orterun* ]]; then
      flags+=(-x "$kv")
    else
      flags+=(-genv "${kv%%=*}" "${kv#*=}")
    fi
  done
  printf '%s\n' "${flags[@]}"
}
zcoll_env() { env | grep -E '^ZCOLL_' || true; }

run() {  # run OUT ERR [NAME=VALUE...]
  local out=$1 err=$2
  shift 2
  local flags=()
  [[ $# -gt 0 ]] && mapfile -t flags < <(envflags "$@")
  "${launcher[@]}" -n "$np" "${flags[@]}" "${prog[@]}" >"$out" 2>"$err"
}

case $mode in
  disabled)
    # the shim must not see the test's ZCOLL_* settings here
    for v in $(zcoll_env | cut -d= -f1); do unset "$v"; done
    run "$tmp/a" "$tmp/a.err" || { cat "$tmp/a" "$tmp/a.err"; echo "FAIL: run without the shim"; exit 1; }
    run "$tmp/b" "$tmp/b.err" LD_PRELOAD="$shim" || { cat "$tmp/b" "$tmp/b.err"; echo "FAIL: shim loaded, unset"; exit 1; }
    run "$tmp/c" "$tmp/c.err" LD_PRELOAD="$shim" ZCOLL_PMPI=0 ZCOLL_PMPI_REPORT=1 || { cat "$tmp/c" "$tmp/c.err"; echo "FAIL: ZCOLL_PMPI=0"; exit 1; }
    cat "$tmp/a"
    if ! cmp -s "$tmp/a" "$tmp/b" || ! cmp -s "$tmp/a" "$tmp/c"; then
      diff "$tmp/a" "$tmp/b"; diff "$tmp/a" "$tmp/c"
      echo "FAIL: output differs with the shim loaded but off"; exit 1
    fi
    if grep -q 'zcoll-pmpi' "$tmp/b.err" "$tmp/c.err"; then
      echo "FAIL: a disabled shim printed something"; exit 1
    fi
    echo "PASS: identical without the shim, with it unset and with ZCOLL_PMPI=0"
    ;;
  enabled | refuses)
    mapfile -t kv < <(zcoll_env)
    run "$tmp/a" "$tmp/a.err" LD_PRELOAD="$shim" "${kv[@]}"
    rc=$?
    cat "$tmp/a" "$tmp/a.err"
    if [[ $mode == enabled ]]; then
      [[ $rc -eq 0 ]] || { echo "FAIL: exit status $rc"; exit 1; }
    else
      [[ $rc -ne 0 ]] || { echo "FAIL: the run should have been refused"; exit 1; }
    fi
    # every line of REGEX must match a line of stderr
    while IFS= read -r pat; do
      [[ -z $pat ]] && continue
      grep -Eq -- "$pat" "$tmp/a.err" || { echo "FAIL: no line of stderr matches: $pat"; exit 1; }
    done <<<"$regex"
    echo "PASS"
    ;;
  lammps)
    for v in $(zcoll_env | cut -d= -f1); do unset "$v"; done
    lmp_bin=${prog[0]} input=${prog[1]}
    cd "$(dirname "$input")"  # inputs may read files next to them
    prog=("$lmp_bin" -in "$input" -log "$tmp/plain.log" -echo none -nocite)
    run "$tmp/a" "$tmp/a.err" || { cat "$tmp/a" "$tmp/a.err"; echo "FAIL: LAMMPS without the shim"; exit 1; }
    prog=("$lmp_bin" -in "$input" -log "$tmp/shim.log" -echo none -nocite)
    run "$tmp/b" "$tmp/b.err" LD_PRELOAD="$shim" ZCOLL_PMPI=1 ZCOLL_EB_MODE=abs \
        ZCOLL_ERROR_BOUND=1e-3 ZCOLL_MODE=hom ZCOLL_PMPI_COLLS=all ZCOLL_PMPI_TYPES=float,double \
        ZCOLL_PMPI_OPS=sum,max,min ZCOLL_PMPI_REPORT=1 ||
      { cat "$tmp/b" "$tmp/b.err"; echo "FAIL: LAMMPS with the shim"; exit 1; }
    # thermo lines: from the header "Step ..." to "Loop time"
    thermo() { awk '/^ *Step /{on=1} /^Loop time/{on=0} on' "$1"; }
    thermo "$tmp/plain.log" >"$tmp/t.plain"
    thermo "$tmp/shim.log" >"$tmp/t.shim"
    cat "$tmp/t.shim"
    grep 'zcoll-pmpi report' "$tmp/b.err"
    [[ -s $tmp/t.plain ]] || { echo "FAIL: no thermo output"; exit 1; }
    grep -q 'zcoll-pmpi report: .* ranks' "$tmp/b.err" ||
      { echo "FAIL: no report (was the shim loaded?)"; exit 1; }
    diff "$tmp/t.plain" "$tmp/t.shim" || { echo "FAIL: thermo output differs with the shim"; exit 1; }
    echo "PASS: thermo lines identical ($(wc -l <"$tmp/t.plain") lines)"
    ;;
  *) echo "run_pmpi.sh: unknown mode $mode" >&2; exit 2 ;;
esac
