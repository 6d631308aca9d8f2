#!/bin/bash
# capture_more.sh BINDIR OUTDIR: longer soaks, more rank counts, the other regression seeds.
set -u
B=$1; O=$2; mkdir -p $O
SEEDS=/work/wt-drivers/tools/zcoll_soak/regression_seeds.txt
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive
mpiexec -n 2 $B/zcoll-soak --seed 9100 --iterations 300 --max-mib 1 --max-count 20000 --verbose > $O/soak_long_np2.txt 2>&1
mpiexec -n 3 $B/zcoll-soak --seed 9200 --iterations 200 --max-mib 1 --max-count 20000 --verbose --nonblocking > $O/soak_long_nb_np3.txt 2>&1
mpiexec -n 4 $B/zcoll-soak --seed 9300 --iterations 120 --max-mib 1 --max-count 20000 --verbose --subgroups > $O/soak_long_sub_np4.txt 2>&1
ZCOLL_NODE_MAP=0,1,0,1 mpiexec -n 4 $B/zcoll-soak --seed 4400000 --iterations 80 --max-mib 1 --max-count 20000 --verbose --nonblocking > $O/soak_nodes_np4.txt 2>&1
mpiexec -n 1 $B/zcoll-soak --seed 9400 --iterations 200 --verbose > $O/soak_big_np1.txt 2>&1
for np in 5 7; do
  mpiexec -n $np $B/zcoll-soak --seeds-file $SEEDS --verbose > $O/soak_reg_np$np.txt 2>&1
done
mpiexec -n 2 $B/zcoll-soak --bogus > $O/soak_badflag.txt 2>&1; echo "rc=$?" >> $O/soak_badflag.txt
mpiexec -n 2 $B/zcoll-bench allreduce --modes bogus > $O/bench_badmode.txt 2>&1; echo "rc=$?" >> $O/bench_badmode.txt
mpiexec -n 2 $B/zcoll-bench allreduce -b 1M -e 1K > $O/bench_badsize.txt 2>&1; echo "rc=$?" >> $O/bench_badsize.txt
mpiexec -n 1 $B/zcoll-bench nosuch > $O/bench_badcoll.txt 2>&1; echo "rc=$?" >> $O/bench_badcoll.txt
mpiexec -n 1 $B/zcoll-bench --help > $O/bench_help.txt 2>&1; echo "rc=$?" >> $O/bench_help.txt
echo captured
