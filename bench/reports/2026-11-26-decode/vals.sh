#!/usr/bin/env bash
# vals.sh BUILD OUTFILE: sha256 of every decoded output, with the kernels in use
b="$1"; out="$2"; : > "$out"
for f in /work/shared/data/*.f32; do
  for rel in 1e-2 1e-3 1e-4 1e-6; do
    for dt in 1 2 3; do
      for cs in 0 1024; do
        h=$(LD_LIBRARY_PATH=$b /tmp/h29/vals-$(basename $b) "$f" $rel $dt $cs | sha256sum | cut -c1-16)
        echo "$(basename $f) $rel $dt $cs $h" >> "$out"
      done
    done
  done
done
