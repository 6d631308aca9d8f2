#!/usr/bin/env bash
# measure.sh BEFORE_BUILD AFTER_BUILD [OUT_PREFIX] — the codec's rates before and
# after, against memcpy, on every file of data/ at REL 1e-2, 1e-3, 1e-4 with 1 and 2
# threads: measure.py (interleaved, 31 repeats after 3 warm-up) then table.py.
# Builds nothing: both build directories need libzcoll.so
#   (cmake --build BUILD --target zcoll_shared).
# Writes OUT_PREFIX.json (every sample), OUT_PREFIX.md (the tables) and
# OUT_PREFIX.log; OUT_PREFIX defaults to bench/results/2026-11-25-codec/rates-<UTC time>.
# About 2 minutes on the 2-core VM. Run from the repository root.
# MEASURE_CLOCK=cpu: the calling thread's CPU time instead of the wall clock, 1 thread
# only (for a loaded machine: the time a thread was descheduled is left out).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
before="$1" after="$2"
out="${3:-$here/../../results/2026-11-25-codec/rates-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$(dirname "$out")"
py="${PYTHON:-/opt/zcoll-venv/bin/python}"
[[ -x "$py" ]] || py=python3
"$py" -c 'import numpy' 2>/dev/null || { echo "measure.sh: $py has no numpy (PYTHON=...)" >&2; exit 2; }
{
  echo "# measure.sh $before $after, $(date -u +%Y-%m-%dT%H:%M:%SZ), uptime: $(uptime)"
  clock="${MEASURE_CLOCK:-wall}" threads=1,2
  [[ $clock == cpu ]] && threads=1
  "$py" "$here/measure.py" --before "$before" --after "$after" --data-dir data \
    --rel 1e-2,1e-3,1e-4 --threads $threads --repeat 31 --warmup 3 --clock "$clock" \
    --json "$out.json"
  echo "# end: $(uptime)"
} 2>&1 | tee "$out.log"
{
  "$py" "$here/table.py" "$out.json" --summary
  echo
  "$py" "$here/table.py" "$out.json" --threads 1
  if [[ "${MEASURE_CLOCK:-wall}" != cpu ]]; then
    echo
    "$py" "$here/table.py" "$out.json" --threads 2
  fi
} > "$out.md"
echo "measure.sh: wrote $out.json, $out.md, $out.log"
