#!/usr/bin/env bash
# hom_digest.sh ZCOLL OUT: sha256 of hom-add outputs (`zcoll add`, one thread) of
# pairs of fields of the same shape, a field with itself and a sum of three, each
# compressed with the same ABS bound at REL 1e-2, 1e-3, 1e-4 and 1e-6 of the first
# field's value range; f32, and f64 copies of the first pair. Run it with two
# builds' CLIs and diff the printed lines: the bytes must be identical.
# DATA: the data directory (default ../shared/data).
set -euo pipefail
zc=$1 out=$2
data=${DATA:-../shared/data}
mkdir -p "$out"
f() { ls "$data"/*"$1"*.f32 | head -1; }
# the value range (max - min of the finite values) of an f32 file
range() {
  python3 - "$1" <<'PY'
import array, math, sys
a = array.array('f'); a.frombytes(open(sys.argv[1], 'rb').read())
v = [x for x in a if math.isfinite(x)]
print(repr(max(v) - min(v)))
PY
}
# an f64 copy of an f32 file
to_f64() {
  python3 - "$1" "$2" <<'PY'
import array, sys
a = array.array('f'); a.frombytes(open(sys.argv[1], 'rb').read())
array.array('d', a).tofile(open(sys.argv[2], 'wb'))
PY
}
pairs="fnoc-uwnd:fnoc-vwnd rect3d-t:rect3d-rhumidity fnoc-vwnd:fnoc-vwnd levitus:levitus hst:hst"
for pair in $pairs; do
  x=$(f "${pair%%:*}") y=$(f "${pair##*:}")
  r=$(range "$x")
  for rel in 1e-2 1e-3 1e-4 1e-6; do
    eb=$(python3 -c "print(repr($r * $rel))")
    t="$out/${pair/:/+}-$rel"
    "$zc" compress -i "$x" -o "$t.x.zc" --type f32 --abs "$eb" --threads 1 >/dev/null
    "$zc" compress -i "$y" -o "$t.y.zc" --type f32 --abs "$eb" --threads 1 >/dev/null
    "$zc" add "$t.x.zc" "$t.y.zc" -o "$t.sum.zc" --threads 1 >/dev/null
    "$zc" add "$t.x.zc" "$t.y.zc" "$t.x.zc" -o "$t.sum3.zc" --threads 1 >/dev/null
    "$zc" add "$t.x.zc" "$t.y.zc" -o "$t.mean.zc" --mean --threads 1 >/dev/null
    echo "f32 ${pair} $rel eb=$eb $(sha256sum < "$t.sum.zc" | cut -c1-64) $(sha256sum < "$t.sum3.zc" | cut -c1-64) $(sha256sum < "$t.mean.zc" | cut -c1-64)"
  done
done
# f64 copies of the first pair
x=$(f fnoc-uwnd) y=$(f fnoc-vwnd)
to_f64 "$x" "$out/x.f64"; to_f64 "$y" "$out/y.f64"
r=$(range "$x")
for rel in 1e-2 1e-4 1e-6; do
  eb=$(python3 -c "print(repr($r * $rel))")
  t="$out/f64-$rel"
  "$zc" compress -i "$out/x.f64" -o "$t.x.zc" --type f64 --abs "$eb" --threads 1 >/dev/null
  "$zc" compress -i "$out/y.f64" -o "$t.y.zc" --type f64 --abs "$eb" --threads 1 >/dev/null
  "$zc" add "$t.x.zc" "$t.y.zc" -o "$t.sum.zc" --threads 1 >/dev/null
  echo "f64 fnoc-uwnd:fnoc-vwnd $rel eb=$eb $(sha256sum < "$t.sum.zc" | cut -c1-64)"
done
