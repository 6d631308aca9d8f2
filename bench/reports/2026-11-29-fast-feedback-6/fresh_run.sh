#!/bin/bash
# fresh_run.sh TAG COMMIT: one fresh-machine run on the replica (make_root.sh's root, read-only
# lower layer; a new overlay per run): clone COMMIT to /work/main with shared/ beside it, then
# `bash scripts/demo.sh`, then `bash scripts/test.sh` (CI=true), each line time-stamped
# (seconds since the run began); logs and test_phases.json to /work/fresh-2026-11-29/TAG/
set -uo pipefail
here=/work/fresh-2026-11-29
tag=$1; commit=$2
lower=/var/tmp/fresh-root
run=/var/tmp/fr-$tag
out=$here/$tag
mkdir -p "$run/upper" "$run/work" "$run/root" "$out"
mountpoint -q "$run/root" || mount -t overlay overlay -o "lowerdir=$lower,upperdir=$run/upper,workdir=$run/work" "$run/root"
R=$run/root
mkdir -p "$R/work"
git clone -q /work/main "$R/work/main" && git -C "$R/work/main" checkout -q "$commit"
stamp() { local t0=$1; while IFS= read -r l; do printf '%5d %s\n' $((SECONDS - t0)) "$l"; done; }
t0=$SECONDS
bash "$(dirname "$0")/../2026-11-28-fast-feedback/chroot_run.sh" "$R" "cd /work/main && bash scripts/demo.sh < /dev/null" 2>&1 | stamp $t0 > "$out/demo.log"
echo "demo: rc=${PIPESTATUS[0]} in $((SECONDS - t0)) s" | tee -a "$out/demo.log"
t0=$SECONDS
bash "$(dirname "$0")/../2026-11-28-fast-feedback/chroot_run.sh" "$R" "cd /work/main && CI=true bash scripts/test.sh < /dev/null" 2>&1 | stamp $t0 > "$out/test.log"
echo "test: rc=${PIPESTATUS[0]} in $((SECONDS - t0)) s" | tee -a "$out/test.log"
cp "$R/work/main/build/test_phases.json" "$out/" 2>/dev/null
uptime >> "$out/test.log"
