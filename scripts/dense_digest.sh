#!/usr/bin/env bash
# dense_digest.sh ZCOLL_CLI [DATA_DIR...] — the dense codec's counterpart of
# stream_digest.sh: one line per (file, dtype, bound, dims, chunk size, threads,
# SIMD path) with the SHA-256 of the stream `zcoll compress --codec dense`
# writes and of the values `zcoll decompress` reads back from it. Two builds
# produce identical output exactly when their dense encoders and decoders give
# identical bytes (diff the two outputs). The dims come from the file name
# (name_AxBxC.f32); each file also runs without them (1-D prediction).
set -euo pipefail
cli="$1"; shift
dirs=("$@"); [[ ${#dirs[@]} -gt 0 ]] || dirs=(data)
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
for d in "${dirs[@]}"; do
  for f in "$d"/*.f32; do
    [[ -f "$f" ]] || continue
    python3 - "$f" "$tmp/in.f64" <<'PY'
import array, sys
a = array.array('f'); a.frombytes(open(sys.argv[1], 'rb').read())
array.array('d', a).tofile(open(sys.argv[2], 'wb'))
PY
    base="$(basename "$f" .f32)"; shape="${base##*_}"
    dimsets=("")
    [[ $shape == *x* ]] && dimsets+=("--dims $shape")
    for t in f32 f64; do
      in="$f"; [[ $t == f64 ]] && in="$tmp/in.f64"
      for b in "--rel 1e-2" "--rel 1e-3" "--rel 1e-4"; do
        for dm in "${dimsets[@]}"; do
          # default chunks (threads 1 and 2, SIMD auto and scalar), and odd-sized ones
          for cfg in "auto 1 -" "scalar 2 -" "auto 1 1056"; do
            read -r simd th cs <<<"$cfg"
            csopt=(); [[ $cs != - ]] && csopt=(--chunk-size "$cs")
            # shellcheck disable=SC2086  # $b and $dm are option lists
            ZCOLL_SIMD=$simd "$cli" compress -i "$in" -o "$tmp/s.zc" --type $t $b $dm \
              "${csopt[@]}" --threads "$th" --codec dense
            ZCOLL_SIMD=$simd "$cli" decompress -i "$tmp/s.zc" -o "$tmp/s.out" --threads "$th"
            printf '%s %s %s [%s] simd=%s th=%s cs=%s %s %s\n' "$base" $t "$b" "$dm" "$simd" "$th" \
              "$cs" "$(sha256sum < "$tmp/s.zc" | cut -c1-16)" "$(sha256sum < "$tmp/s.out" | cut -c1-16)"
          done
        done
      done
    done
  done
done
