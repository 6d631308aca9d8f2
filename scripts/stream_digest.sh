#!/usr/bin/env bash
# stream_digest.sh ZCOLL_CLI [DATA_DIR...] — one line per (file, dtype, bound,
# chunk size, threads): the SHA-256 of the stream `zcoll compress` writes. Two
# builds produce identical output exactly when their codecs write identical
# bytes (a refactor must not change a stream byte: diff the two outputs).
# DECODE=DEC_CLI: the SHA-256 of the values DEC_CLI decompresses from each stream
# instead (with the same threads): two decoders are bit-identical on these streams
# exactly when the outputs are identical.
set -euo pipefail
cli="$1"; shift
dirs=("$@"); [[ ${#dirs[@]} -gt 0 ]] || dirs=(data)
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for d in "${dirs[@]}"; do
  for f in "$d"/*.f32; do
    [[ -f "$f" ]] || continue
    # f64 copy of the same values (little-endian), via python's struct-free array module
    python3 - "$f" "$tmp/in.f64" <<'PY'
import array, sys
a = array.array('f'); a.frombytes(open(sys.argv[1], 'rb').read())
array.array('d', a).tofile(open(sys.argv[2], 'wb'))
PY
    for t in f32 f64; do
      in="$f"; [[ $t == f64 ]] && in="$tmp/in.f64"
      for b in "--rel 1e-2" "--rel 1e-4" "--abs 1e-3" "--rel 1e-7"; do
        for cs in 16384 1024; do
          for th in 1 2; do
            "$cli" compress -i "$in" -o "$tmp/s.zc" --type $t $b --chunk-size $cs --threads $th
            out="$tmp/s.zc"
            if [[ -n ${DECODE:-} ]]; then
              "$DECODE" decompress -i "$tmp/s.zc" -o "$tmp/s.out" --threads $th
              out="$tmp/s.out"
            fi
            printf '%s %s %s cs=%s th=%s %s\n' "$(basename "$f")" $t "$b" $cs $th \
              "$(sha256sum < "$out" | cut -c1-64)"
          done
        done
      done
    done
  done
done
