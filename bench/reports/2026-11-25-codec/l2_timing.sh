#!/usr/bin/env bash
# l2_timing.sh BEFORE_BUILD AFTER_BUILD > l2_timing.txt — whether the kernels are bound by
# their instructions or by memory: profile_driver's smallest thread CPU time per call
# (1 thread, 3000 calls) on the first 64 Ki values of the FNOC field (256 KiB: input and
# output in L2) and on the whole field (5.5 MB), before and after. Compiles the driver
# against each build's libzcoll.so (public API). Run from the repository root.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
f=data/ferret_fnoc-uwnd_132x73x144.f32
head -c 262144 "$f" > "$tmp/fnoc-first64Ki_65536.f32"
echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uptime)"
for side in before after; do
  b="$(cd "$([[ $side == before ]] && echo "$1" || echo "$2")" && pwd)"
  src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$b/CMakeCache.txt")"
  cc -O2 -I"$src/include" -I"$b/include" "$here/profile_driver.c" -o "$tmp/drv-$side" \
    -L"$b" -lzcoll -Wl,-rpath,"$b"
done
for input in "$tmp/fnoc-first64Ki_65536.f32:3000" "$f:300"; do
  for rel in 1e-2 1e-4; do
    for side in before after; do
      echo "## $side $(basename "${input%%:*}") REL $rel"
      OMP_NUM_THREADS=1 "$tmp/drv-$side" "${input%%:*}" "$rel" 1 "${input##*:}"
    done
  done
done
echo "# end $(uptime)"
