#!/bin/bash
# Quiet measurements for #17 after the merge (main at $(git rev-parse --short HEAD)).
set -u
cd /work/main
R=bench/results/2026-11-24-quiet
NEW=/work/main/build-h/tools/zcoll_bench/zcoll-bench
OLD=/work/before-17/zcoll-bench-new      # same bench, libraries of 0228f23
F1=data/ferret_fnoc-uwnd_132x73x144.f32
F2=../shared/data/ferret_etopo5-rose_2161x4320.f32
mkdir -p $R
ck=""
# M1: wire limit at 1 Gbit/s, before and after, alternating builds per (field, bound)
for data in $F1 $F2; do for rel in 0.0001 0.001; do
  tag=$(basename $data .f32 | cut -d_ -f2)-$rel
  for side in after before; do
    b=$NEW; [ $side = before ] && b=$OLD
    python3 bench/netcluster/sweep.py --wire-limit --rates 1gbit --mpi mpich --bench $b --grace 5 \
      --data $data --rel $rel --bench-args=--breakdown $ck --out $R/wire-1gbit/$side-$tag
    ck=--no-check
  done
done; done
echo M1 done
# M2: wire limit at 0.5 and 2 Gbit/s, after only
python3 bench/netcluster/sweep.py --wire-limit --rates 500mbit,2gbit --mpi mpich --bench $NEW --grace 5 --out $R/wire-rates
echo M2 done
# M3: the repeat sweep, 4 hosts at three rates, then 2 hosts
python3 bench/netcluster/sweep.py --hosts 4 --mpi mpich --bench $NEW --grace 5 --out $R/sweep-h4
echo M3a done
python3 bench/netcluster/sweep.py --hosts 2 --mpi mpich --bench $NEW --grace 5 --out $R/sweep-h2
echo M3b done
