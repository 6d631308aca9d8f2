#!/bin/bash
# capture.sh BINDIR OUTDIR: the soak's and the bench's output on fixed seeds and rows.
set -u
B=$1; O=$2; mkdir -p $O
SEEDS=/work/wt-drivers/tools/zcoll_soak/regression_seeds.txt
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
for np in 1 2 3; do
  mpiexec -n $np $B/zcoll-soak --seed $((4242+np)) --iterations 60 --max-mib 1 --max-count 20000 --verbose > $O/soak_np$np.txt 2>&1
  mpiexec -n $np $B/zcoll-soak --seed $((5151+np)) --iterations 40 --max-mib 1 --max-count 20000 --verbose --nonblocking > $O/soak_nb_np$np.txt 2>&1
done
mpiexec -n 3 $B/zcoll-soak --seed 777 --iterations 40 --max-mib 1 --max-count 20000 --verbose --subgroups > $O/soak_sub_np3.txt 2>&1
for np in 2 3; do
  mpiexec -n $np $B/zcoll-soak --seeds-file $SEEDS --verbose > $O/soak_reg_np$np.txt 2>&1
done
for c in allreduce reduce_scatter allgather bcast scatter reduce gather; do
  mpiexec -n 3 $B/zcoll-bench $c -b 64K -e 256K -f 4 -w 1 -n 2 --modes mpi,raw,cpr_p2p,doc,hom --json $O/bench_$c.json > $O/bench_$c.txt 2>&1
done
mpiexec -n 2 $B/zcoll-bench allreduce -b 100K -e 100K --dtype double --op max -w 0 -n 1 --json $O/bench_ar_max.json > /dev/null 2>&1
mpiexec -n 3 $B/zcoll-bench reduce -b 64K -e 64K --avg --abs 1e-3 --root 2 --repeats 2 -w 0 -n 1 --json $O/bench_red_avg.json > /dev/null 2>&1
mpiexec -n 3 $B/zcoll-bench reduce_scatter -b 96K -e 96K --op prod --bound result --threads 1,2 -w 0 -n 1 --json $O/bench_rs_prod.json > /dev/null 2>&1
mpiexec -n 3 $B/zcoll-bench gather -b 48K -e 48K --dtype double --root 1 --algo auto -w 0 -n 1 --json $O/bench_ga.json > /dev/null 2>&1
echo captured
