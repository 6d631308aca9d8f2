#!/bin/bash
# Quiet measurements for #17, second session of 2026-11-24 (binary: build-h at the manifest's commit).
set -u
cd /work/main
R=bench/results/2026-11-24-quiet2
B=build-h/tools/zcoll_bench/zcoll-bench
F1=data/ferret_fnoc-uwnd_132x73x144.f32
F2=../shared/data/ferret_etopo5-rose_2161x4320.f32
# S1: the repeat sweep, 2 and 4 hosts, 0.5/1/2 Gbit/s, seven collectives, 1-64 MiB, 5 repeats
python3 bench/netcluster/sweep.py --hosts 2,4 --rates 500mbit,1gbit,2gbit --mpi mpich --bench $B --grace 5 --out $R/sweep
echo S1 done
# W2: the wire limit with one rank per core (2 hosts on the 2-core machine), both fields and
# bounds, three rates; Bcast also against zcoll's uncompressed chain (raw)
for data in $F1 $F2; do
  tag=$(basename $data .f32 | cut -d_ -f2)
  python3 bench/netcluster/sweep.py --wire-limit --hosts 2 --mpi mpich --bench $B --grace 5 \
    --colls allreduce,reduce_scatter --data $data --rel 0.0001,0.001 --bench-args=--breakdown --no-check --out $R/wire-h2-$tag
  python3 bench/netcluster/sweep.py --wire-limit --hosts 2 --mpi mpich --bench $B --grace 5 \
    --colls bcast --modes mpi,raw,hom --data $data --rel 0.0001,0.001 --bench-args=--breakdown --no-check --out $R/wire-h2-$tag-bcast
done
echo W2 done
# W4: Bcast at 4 hosts against zcoll's uncompressed chain (raw), 1 Gbit/s
for data in $F1 $F2; do
  tag=$(basename $data .f32 | cut -d_ -f2)
  python3 bench/netcluster/sweep.py --wire-limit --hosts 4 --rates 1gbit --mpi mpich --bench $B --grace 5 \
    --colls bcast --modes mpi,raw,hom --data $data --rel 0.0001,0.001 --bench-args=--breakdown --no-check --out $R/wire-h4-$tag-bcast
done
echo W4 done
# S2: the repeat sweep again on the final code of the session (recursive doubling just in
# time, both small allreduces in the cost model): the auto table of the report
python3 bench/netcluster/sweep.py --hosts 2,4 --rates 500mbit,1gbit,2gbit --mpi mpich --bench $B --grace 5 --out $R/sweep-final
echo S2 done
