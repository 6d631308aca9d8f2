#!/usr/bin/env bash
# result_digest.sh SOURCE_DIR BUILD_DIR [RANKS...] — builds tests/mpi/result_digest.cc
# (this tree's copy, public C API only) against the libzcoll_mpi of SOURCE_DIR/BUILD_DIR
# and prints its lines at each rank count (default 1 2 3 5): every collective x mode x
# algorithm x datatype x op on the same inputs, with a digest of every rank's status,
# report and result bytes. Two builds give identical output exactly when their results
# are bit-identical: diff the outputs of an old and a new build.
#   bash scripts/result_digest.sh /work/old build-old > old.txt
#   bash scripts/result_digest.sh . build > new.txt && diff old.txt new.txt
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$(cd "$1" && pwd)"; build="$(cd "$2" && pwd)"; shift 2
ranks=("$@"); [[ ${#ranks[@]} -gt 0 ]] || ranks=(1 2 3 5)
# the build's own libraries (the shallowest: not an install test's or the SMPI build's copy)
shallowest() { find "$build" -name "$1" | awk '{ print length, $0 }' | sort -n | head -1 | cut -d' ' -f2-; }
libdir=$(dirname "$(shallowest libzcoll_mpi.so)")
zlib=$(dirname "$(shallowest libzcoll.so)")
exe="$build/result_digest"
mpicxx -O2 -std=c++17 "$here/tests/mpi/result_digest.cc" -I"$src/include" -I"$build/include" \
  -L"$libdir" -L"$zlib" -Wl,-rpath,"$libdir" -Wl,-rpath,"$zlib" -lzcoll_mpi -lzcoll -o "$exe"
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive ZCOLL_MIN_BYTES=0
for n in "${ranks[@]}"; do
  mpiexec -n "$n" "$exe" "$here/data/ferret_fnoc-uwnd_132x73x144.f32"
done
