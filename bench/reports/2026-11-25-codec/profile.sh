#!/usr/bin/env bash
# profile.sh BEFORE_BUILD AFTER_BUILD OUT_DIR [DATA_DIR] — instructions per stage of
# every codec operation (callgrind, one thread), before and after, on every *.f32
# of DATA_DIR (default data/) at REL 1e-2, 1e-3, 1e-4.
#
# The build directories need libzcoll.so built with debug information (the stage
# of an instruction comes from its chain of inlined functions), e.g.
#   cmake -S SRC -B SRC/build-prof -DCMAKE_BUILD_TYPE=Release \
#         -DCMAKE_CXX_FLAGS_RELEASE="-O3 -DNDEBUG -g" -DZCOLL_BUILD_TESTS=OFF
#   cmake --build SRC/build-prof --target zcoll_shared
# (the same code as Release: -g changes no instruction). profile_driver.c is
# compiled against each build (public API only). Writes OUT_DIR/<build>/<file>-<rel>-<op>.json
# (stages.py --json) and OUT_DIR/profile.md (profile_table.py). Instruction counts do
# not depend on the machine's load. About 5 minutes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
before="$(cd "$1" && pwd)" after="$(cd "$2" && pwd)" out="$3" data="${4:-data}"
command -v valgrind >/dev/null || { echo "profile.sh: valgrind not found" >&2; exit 2; }
mkdir -p "$out"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for side in before after; do
  b="${!side}"
  src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$b/CMakeCache.txt")"
  cc -O2 -g -I"$src/include" -I"$b/include" "$here/profile_driver.c" -o "$tmp/drv-$side" \
    -L"$b" -lzcoll -Wl,-rpath,"$b"
  git -C "$src" rev-parse HEAD > "$out/$side.commit"
  mkdir -p "$out/$side"
  for f in "$data"/*.f32; do
    n=$(( $(stat -c %s "$f") / 4 ))
    for rel in 1e-2 1e-3 1e-4; do
      for op in value_range compress_abs decompress decompress_accumulate hom_add; do
        cg="$tmp/cg"
        OMP_NUM_THREADS=1 valgrind --tool=callgrind --dump-instr=yes --toggle-collect='op_*' \
          --callgrind-out-file="$cg" "$tmp/drv-$side" "$f" "$rel" 1 1 "$op" > "$tmp/drv.out" 2>/dev/null
        vals=$n
        [[ $op == hom_add ]] && vals=$(sed -n 's/.*hom_in=\([0-9]*\).*/\1/p' "$tmp/drv.out")
        python3 "$here/stages.py" "$cg" "$b/libzcoll.so" --n "$vals" --json \
          > "$out/$side/$(basename "$f" .f32)-$rel-$op.json"
      done
    done
    echo "profile.sh: $side $(basename "$f") done" >&2
  done
done
python3 "$here/profile_table.py" "$out" > "$out/profile.md"
echo "profile.sh: wrote $out/profile.md" >&2
