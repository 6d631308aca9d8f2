#!/bin/bash
# ZCOLL_REL_RANGE=sampled against exact (the default): hom against MPI, 64 MiB, both fields
# and bounds, Allreduce, Reduce_scatter and Bcast, 2 hosts (one rank per core) and 4 hosts,
# 1 Gbit/s, 5 repeats; exact and sampled alternate per (hosts, field).
set -u
cd /work/main
R=bench/results/2026-11-24-quiet2/rel-range
B=build-h/tools/zcoll_bench/zcoll-bench
mkdir -p $R
cat > $R/bench-sampled.sh <<'EOS'
#!/bin/bash
export ZCOLL_REL_RANGE=sampled
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "$@"
EOS
chmod +x $R/bench-sampled.sh
for h in 2 4; do
for data in data/ferret_fnoc-uwnd_132x73x144.f32 ../shared/data/ferret_etopo5-rose_2161x4320.f32; do
  tag=$(basename $data .f32 | cut -d_ -f2)
  for v in exact sampled; do
    b=$B; [ $v = sampled ] && b=$R/bench-sampled.sh
    python3 bench/netcluster/sweep.py --wire-limit --hosts $h --rates 1gbit --mpi mpich --bench $b --grace 5 \
      --colls allreduce,reduce_scatter,bcast --data $data --rel 0.0001,0.001 --bench-args=--breakdown \
      --no-check --out $R/h$h-$tag-$v
  done
done; done
echo rel-range done
