#!/bin/bash
# zcoll-tune --repeat 7 on the 4-host cluster at 500 Mbit/s, then the sweep with its file,
# twice (two independent tunings): are auto's picks the same, and right?
set -e
cd /work/main
D=bench/results/2026-11-24-small4h
mkdir -p $D
for k in 1 2; do
  tools/netcluster/netcluster.sh setup 4 500mbit >/dev/null
  NETCLUSTER_DONE_MARKER="^# wrote" NETCLUSTER_FINALIZE_GRACE=5 tools/netcluster/netcluster.sh run --mpi mpich 4 -- \
    /work/main/build-h/tools/zcoll_tune/zcoll-tune --repeat 7 -o /work/main/$D/tune$k.json > $D/tune$k.log 2>&1
  cat > $D/bench-tune$k.sh <<EOB
#!/bin/bash
export ZCOLL_TUNE_FILE=/work/main/$D/tune$k.json
exec /work/main/build-h/tools/zcoll_bench/zcoll-bench "\$@"
EOB
  chmod +x $D/bench-tune$k.sh
  python3 bench/netcluster/sweep.py --hosts 4 --rates 500mbit --colls allgather,bcast,gather,scatter,reduce_scatter \
    --sizes 1M:4M --modes mpi,cpr_p2p,doc,hom,auto --mpi mpich --bench $D/bench-tune$k.sh --grace 5 --no-check --out $D/tuned$k
done
