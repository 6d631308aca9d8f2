#!/usr/bin/env bash
# measure4.sh OUT BEFORE AFTER — issue 35's fourth pass (docs/reports/2026-11-29-fast-feedback.md):
#  1. the cold work of the tests' Release build and of the lint, at commit BEFORE and
#     AFTER (a clone of each in /tmp/m4-<commit>): `cmake --build -j2` with ccache off
#     (CCACHE_DISABLE=1) in a fresh build directory, and scripts/lint.sh with the
#     clang-tidy cache off (ZCOLL_TIDY_CACHE=off); wall time, objects compiled,
#     clang-tidy runs (compile commands of the linted files);
#  2. three second runs of scripts/test.sh at AFTER in /work/ci-check/main (a clone
#     that has run test.sh once): `touch src/codec/stream.cc`, then test.sh; each
#     run's phase table (test_phases.json).
# Needs the tests' dependencies installed (scripts/setup.sh, setup_python.sh) and a
# quiet machine. Writes OUT/cold-<commit>.json, OUT/*.log, OUT/second-N.json.
set -euo pipefail
out=$(realpath "$1"); before=$2; after=$3
repo=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
py=/opt/zcoll-venv/bin/python
for c in "$before" "$after"; do
  d=/tmp/m4-$c
  rm -rf "$d" && git clone -q "$repo" "$d" && git -C "$d" checkout -q "$c"
  cmake -S "$d" -B "$d/build" -DCMAKE_BUILD_TYPE=Release -DZCOLL_BUILD_TESTS=ON -DZCOLL_PYTHON="$py" \
        -DZCOLL_WERROR=ON >/dev/null
  t0=$(date +%s.%N)
  CCACHE_DISABLE=1 cmake --build "$d/build" -j2 >"$out/build-$c.log" 2>&1
  t1=$(date +%s.%N)
  (cd "$d" && ZCOLL_TIDY_CACHE=off ZCOLL_PY="$py" bash scripts/lint.sh build >"$out/lint-$c.log" 2>&1)
  t2=$(date +%s.%N)
  objects=$(grep -c "Building \(CXX\|C\|CUDA\) object" "$out/build-$c.log" || true)
  tidy_runs=$(cd "$d" && python3 - <<'PY'
import json, subprocess
files = subprocess.run(["python3", "scripts/tidy_cached.py", "build", "--list"], capture_output=True,
                       text=True, check=True).stdout.split()
import os
cc = json.load(open("build/compile_commands.json"))
want = {os.path.realpath(f) for f in files}
print(sum(1 for e in cc if os.path.realpath(os.path.join(e["directory"], e["file"])) in want), len(files))
PY
)
  printf '{"commit": "%s", "build_s": %.1f, "objects_compiled": %s, "lint_s": %.1f, "tidy_runs": %s, "tidy_files": %s}\n' \
    "$(git -C "$d" rev-parse --short HEAD)" "$(echo "$t1 - $t0" | bc)" "$objects" "$(echo "$t2 - $t1" | bc)" \
    "${tidy_runs% *}" "${tidy_runs#* }" | tee "$out/cold-$c.json"
  rm -rf "$d"
done
cd /work/ci-check/main
git fetch -q "$repo" && git checkout -q "$after"
for i in 1 2 3; do
  touch src/codec/stream.cc
  /usr/bin/time -f "wall %e s" bash scripts/test.sh >"$out/second-$i.log" 2>&1
  cp build/test_phases.json "$out/second-$i.json"
  cat "$out/second-$i.json"
done
