// collective.cc — the collective traits table and the shape of a call (collective.h).
#include "coll/control/collective.h"

#include <strings.h>

#include "coll/control/algorithms.h"
#include "coll/control/comm.h"

namespace zcoll::coll {

namespace {
using config::Var;
// clang-format off
const CollectiveTraits kTraits[kCollectives] = {
  // coll                      name              MPI name               algorithm variable          red.   rooted per-rank in place                  root-only root's data
  {ZCOLL_COLL_ALLREDUCE,      "allreduce",      "MPI_Allreduce",       config::kAllreduceAlgo,     true,  false, false, InPlace::kRecvbuf,       false, false},
  {ZCOLL_COLL_REDUCE_SCATTER, "reduce_scatter", "MPI_Reduce_scatter*", config::kReduceScatterAlgo, true,  false, true,  InPlace::kRecvbuf,       false, false},
  {ZCOLL_COLL_ALLGATHER,      "allgather",      "MPI_Allgather",       config::kAllgatherAlgo,     false, false, true,  InPlace::kOwnBlock,      false, false},
  {ZCOLL_COLL_BCAST,          "bcast",          "MPI_Bcast",           config::kBcastAlgo,         false, true,  false, InPlace::kNone,          false, true},
  {ZCOLL_COLL_SCATTER,        "scatter",        "MPI_Scatter",         config::kScatterAlgo,       false, true,  true,  InPlace::kRootSendBlock, true,  true},
  {ZCOLL_COLL_REDUCE,         "reduce",         "MPI_Reduce",          config::kReduceAlgo,        true,  true,  false, InPlace::kRecvbuf,       true,  false},
  {ZCOLL_COLL_GATHER,         "gather",         "MPI_Gather",          config::kGatherAlgo,        false, true,  true,  InPlace::kOwnBlock,      true,  false},
};
// clang-format on
static_assert(ZCOLL_COLL_ALLREDUCE == 1 && ZCOLL_COLL_GATHER == kCollectives,
              "the rows follow zcoll_collective");

bool is_in_place(const void* p) { return p == MPI_IN_PLACE; }

// The Reduce_scatter variant with recvcounts: the sum of the blocks.
size_t sum_of(const size_t* counts, int size) {
  size_t t = 0;
  for (int i = 0; i < size; ++i) t += counts[i];
  return t;
}
}  // namespace

bool is_collective(zcoll_collective coll) {
  return coll >= ZCOLL_COLL_ALLREDUCE && coll <= ZCOLL_COLL_GATHER;
}

const CollectiveTraits& traits(zcoll_collective coll) {
  return kTraits[is_collective(coll) ? static_cast<int>(coll) - 1 : 0];
}

zcoll_collective collective_named(const char* name) {
  for (const CollectiveTraits& t : kTraits)
    if (name && strcasecmp(name, t.name) == 0) return t.coll;
  return ZCOLL_COLL_NONE;
}

size_t total_values(const Call& k, int size) {
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER && !k.block) return sum_of(k.recvcounts, size);
  return traits(k.coll).per_rank_count ? k.count * static_cast<size_t>(size) : k.count;
}

size_t input_values(const Call& k, int size, int rank) {
  const CollectiveTraits& t = traits(k.coll);
  if (t.coll == ZCOLL_COLL_SCATTER) return rank == k.root ? total_values(k, size) : 0;
  if (t.coll == ZCOLL_COLL_REDUCE_SCATTER) return total_values(k, size);
  return k.count;
}

size_t output_values(const Call& k, int size, int rank) {
  const CollectiveTraits& t = traits(k.coll);
  const bool root_only = t.coll == ZCOLL_COLL_REDUCE || t.coll == ZCOLL_COLL_GATHER;
  if (root_only && rank != k.root) return 0;
  switch (t.coll) {
    case ZCOLL_COLL_REDUCE_SCATTER: return k.block ? k.count : k.recvcounts[rank];
    case ZCOLL_COLL_ALLGATHER:
    case ZCOLL_COLL_GATHER: return total_values(k, size);
    default: return k.count;
  }
}

Args bind_args(const Call& k, int size, int rank, size_t vsize, size_t* counts, size_t* displs) {
  const CollectiveTraits& t = traits(k.coll);
  Args a;
  a.root = k.root;
  a.count = k.count;
  a.out = k.recvbuf;
  a.in = k.sendbuf;
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER) {
    size_t pos = 0;
    for (int i = 0; i < size; ++i) {
      counts[i] = k.block ? k.count : k.recvcounts[i];
      displs[i] = pos;
      pos += counts[i];
    }
    a.counts = counts;
    a.displs = displs;
  }
  const bool may = !t.in_place_root_only || rank == k.root;
  auto* rb = static_cast<uint8_t*>(k.recvbuf);
  switch (t.in_place) {
    case InPlace::kNone: a.in = k.recvbuf; break;  // Bcast: the root's buffer is the input
    case InPlace::kRecvbuf:
      a.in_place = may && is_in_place(k.sendbuf);
      if (a.in_place) a.in = k.recvbuf;
      break;
    case InPlace::kOwnBlock: {
      a.in_place = may && is_in_place(k.sendbuf);
      const size_t block = static_cast<size_t>(t.rooted ? k.root : rank) * k.count * vsize;
      if (a.in_place) a.in = rb + block;
      break;
    }
    case InPlace::kRootSendBlock:
      a.in_place = may && is_in_place(k.recvbuf);
      if (a.in_place)
        a.out = const_cast<uint8_t*>(static_cast<const uint8_t*>(k.sendbuf)) +
                static_cast<size_t>(k.root) * k.count * vsize;
      break;
  }
  return a;
}

const void* bound_data(const Call& k, const Args& a, int size, int rank, size_t* n) {
  *n = 0;
  if (traits(k.coll).root_contributes_only && rank != k.root) return nullptr;
  *n = input_values(k, size, rank);
  return a.in;
}

void declare_algorithm_words() {
  for (const CollectiveTraits& t : kTraits) config::set_words(t.algo_var, algorithm_words(t.coll));
}

}  // namespace zcoll::coll
