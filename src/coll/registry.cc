// registry.cc — the algorithm table (see algorithms.h).
#include "coll/algorithms.h"

namespace zcoll::coll {

namespace {
const Algorithm kAlgorithms[] = {
    {ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING, "allreduce_ring", "commutative ops",
     "reduce-scatter ring + allgather ring; bandwidth-optimal for large vectors", allreduce_ring,
     allreduce_ring_model},
    {ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RECURSIVE_DOUBLING, "allreduce_recursive_doubling",
     "commutative ops; any process count (pre/post step for non-powers of two)",
     "log2 N exchanges of the whole vector; fewer compressions, for small vectors",
     allreduce_recursive_doubling, allreduce_recursive_doubling_model},
    {ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING, "reduce_scatter_ring", "commutative ops",
     "N-1 ring steps, segments pipelined", reduce_scatter_ring, reduce_scatter_ring_model},
    {ZCOLL_COLL_ALLGATHER, ZCOLL_ALGO_RING, "allgather_ring", "none",
     "compress once, balanced fixed-segment ring, decompress on arrival", allgather_ring,
     allgather_ring_model},
    {ZCOLL_COLL_BCAST, ZCOLL_ALGO_BINOMIAL, "bcast_binomial", "none",
     "binomial tree, segments pipelined, root compresses once", bcast_binomial,
     bcast_binomial_model},
    {ZCOLL_COLL_BCAST, ZCOLL_ALGO_CHAIN, "bcast_chain", "none",
     "pipelined chain of segments, every link carries the buffer once; long messages", bcast_chain,
     bcast_chain_model},
    {ZCOLL_COLL_SCATTER, ZCOLL_ALGO_BINOMIAL, "scatter_binomial", "none",
     "binomial tree, one stream per block, inner ranks forward streams", scatter_binomial,
     scatter_binomial_model},
    {ZCOLL_COLL_REDUCE, ZCOLL_ALGO_BINOMIAL, "reduce_binomial", "commutative ops",
     "binomial tree, segments pipelined with a receive window per child", reduce_binomial,
     reduce_binomial_model},
    {ZCOLL_COLL_GATHER, ZCOLL_ALGO_BINOMIAL, "gather_binomial", "none",
     "binomial tree, own block compressed once, inner ranks forward streams", gather_binomial,
     gather_binomial_model},
};
}  // namespace

const Algorithm* algorithms(size_t* count) {
  *count = sizeof kAlgorithms / sizeof kAlgorithms[0];
  return kAlgorithms;
}

const Algorithm* find_algorithm(zcoll_collective coll, zcoll_algorithm algo) {
  for (const Algorithm& a : kAlgorithms)
    if (a.coll == coll && a.algo == algo) return &a;
  return nullptr;
}

}  // namespace zcoll::coll
