#!/bin/bash
# The runs of docs/reports/2026-11-29-auto-overlap.md (as root, on the quiet 2-core machine;
# build/ = the Release build of bce03fd's code). Results: bench/results/2026-11-29-auto-overlap.tar.xz.
cd "$(dirname "$0")/../../.."
python3 bench/netcluster/sweep.py --mpi mpich --hosts 2 --rates 100mbit,1gbit,10gbit --colls allreduce,bcast \
  --sizes 64M:64M --rel 1e-3,1e-4 --repeats 5 --modes mpi,auto --bench-args "--codec auto" \
  --out /tmp/nc2/codec-auto-pipe --teardown
python3 bench/netcluster/sweep.py --mpi mpich --hosts 2 --rates 10gbit --colls allreduce \
  --sizes 64M:64M --rel 1e-3,1e-4 --repeats 5 --modes mpi,doc,hom,auto --bench-args "--codec auto" \
  --out /tmp/nc2/codec-auto-pipe-10gbit-same-run --teardown
# the model's tests with the old and the new CostTerms::pipe (model-tests-*.txt)
build/tests/coll/zcoll_coll_unit_tests --gtest_filter='CostModel.*'
# the table
python3 bench/results_data.py extract 2026-11-28-codec-auto-netcluster 2026-11-29-auto-overlap
python3 bench/reports/2026-11-29-auto-overlap/table.py bench/results/2026-11-28-codec-auto-netcluster \
  bench/results/2026-11-29-auto-overlap/codec-auto-pipe
