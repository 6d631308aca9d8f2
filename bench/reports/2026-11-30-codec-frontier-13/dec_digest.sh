#!/usr/bin/env bash
# dec_digest.sh DEC_CLI BASE_CLI [DATA_DIR...] — one line per (file, dtype, bound,
# chunk size, threads): the SHA-256 of the values DEC_CLI decompresses from the
# stream BASE_CLI compresses (default codec, --threads 1). Two decoders are
# bit-identical on these streams exactly when the outputs are identical:
#   diff <(dec_digest.sh base/zcoll base/zcoll) <(dec_digest.sh new/zcoll base/zcoll)
set -euo pipefail
dec="$1"; base="$2"; shift 2
dirs=("$@"); [[ ${#dirs[@]} -gt 0 ]] || dirs=(/work/shared/data)
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for d in "${dirs[@]}"; do
  for f in "$d"/*.f32; do
    [[ -f "$f" ]] || continue
    # f64 copy of the same values (little-endian), via python's array module
    python3 - "$f" "$tmp/in.f64" <<'PY'
import array, sys
a = array.array('f'); a.frombytes(open(sys.argv[1], 'rb').read())
array.array('d', a).tofile(open(sys.argv[2], 'wb'))
PY
    for t in f32 f64; do
      in="$f"; [[ $t == f64 ]] && in="$tmp/in.f64"
      for b in "--rel 1e-2" "--rel 1e-4" "--rel 1e-7" "--abs 1e-3"; do
        for cs in 16384 1024; do
          "$base" compress -i "$in" -o "$tmp/s.zc" --type $t $b --chunk-size $cs --threads 1
          for th in 1 2; do
            "$dec" decompress -i "$tmp/s.zc" -o "$tmp/out" --threads $th
            printf '%s %s %s cs=%s th=%s %s\n' "$(basename "$f")" $t "$b" $cs $th \
              "$(sha256sum < "$tmp/out" | cut -c1-64)"
          done
        done
      done
    done
  done
done
