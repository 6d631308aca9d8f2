// coll_driver.h — the per-collective part of the test drivers (zcoll-soak,
// zcoll-bench): nccl-tests' one small struct per collective and one generic
// driver, built on the library's collective traits table (src/coll/control/collective.h).
// The table gives the shapes (how many values each rank sends and receives,
// where MPI_IN_PLACE puts the input, whose values bound the error); this adds
// what only a driver needs: the public call (blocking or started), where each
// output value comes from (the check against the exact reference) and
// nccl-tests' bus-bandwidth factor.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "coll/control/algorithms.h"  // Args (bind_args)
#include "coll/control/collective.h"
#include "coll/control/comm.h"
#include "zcoll_mpi.h"

namespace zcoll::tools {

// One call's arguments, as every public collective takes some of them.
struct Bufs {
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;  // Bcast: the one buffer
  size_t count = 0;
  const size_t* recvcounts =
      nullptr;  // Reduce_scatter with per-rank counts; nullptr: the block form
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
};

// What a driver knows of one collective beyond the library's traits.
struct DriverColl {
  zcoll_collective coll;
  // The public call: blocking when q is nullptr, else started into *q.
  zcoll_status (*call)(zcoll_comm* zc, const Bufs& b, zcoll_request** q);
  // nccl-tests' bus bandwidth: algbw x steps x (N-1)/N; 0: algbw itself.
  double bus_steps;
  // Every rank's output holds the same bits (checked across the ranks).
  bool identical_on_all_ranks;
  // A second public form with per-rank counts (Bufs::recvcounts).
  bool counts_form;

  const coll::CollectiveTraits& traits() const { return coll::traits(coll); }
  double bus_factor(int n) const {
    return bus_steps > 0 ? bus_steps * static_cast<double>(n - 1) / n : 1.0;
  }
};

namespace driver_detail {
inline zcoll_status allreduce(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  return q ? zcoll_iallreduce(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op, q)
           : zcoll_allreduce(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op);
}
inline zcoll_status reduce_scatter(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  if (b.recvcounts)
    return q ? zcoll_ireduce_scatter(zc, b.sendbuf, b.recvbuf, b.recvcounts, b.datatype, b.op, q)
             : zcoll_reduce_scatter(zc, b.sendbuf, b.recvbuf, b.recvcounts, b.datatype, b.op);
  return q ? zcoll_ireduce_scatter_block(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op, q)
           : zcoll_reduce_scatter_block(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op);
}
inline zcoll_status allgather(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  return q ? zcoll_iallgather(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, q)
           : zcoll_allgather(zc, b.sendbuf, b.recvbuf, b.count, b.datatype);
}
inline zcoll_status bcast(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  return q ? zcoll_ibcast(zc, b.recvbuf, b.count, b.datatype, b.root, q)
           : zcoll_bcast(zc, b.recvbuf, b.count, b.datatype, b.root);
}
inline zcoll_status scatter(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  return q ? zcoll_iscatter(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.root, q)
           : zcoll_scatter(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.root);
}
inline zcoll_status reduce(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  return q ? zcoll_ireduce(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op, b.root, q)
           : zcoll_reduce(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op, b.root);
}
inline zcoll_status gather(zcoll_comm* zc, const Bufs& b, zcoll_request** q) {
  return q ? zcoll_igather(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.root, q)
           : zcoll_gather(zc, b.sendbuf, b.recvbuf, b.count, b.datatype, b.root);
}
}  // namespace driver_detail

// The rows, by zcoll_collective (the library's table's order).
inline const DriverColl& driver_coll(zcoll_collective c) {
  namespace d = driver_detail;
  // clang-format off
  static const DriverColl kRows[coll::kCollectives] = {
    // coll                      call               bus steps  identical  counts form
    {ZCOLL_COLL_ALLREDUCE,      d::allreduce,      2,         true,      false},
    {ZCOLL_COLL_REDUCE_SCATTER, d::reduce_scatter, 1,         false,     true},
    {ZCOLL_COLL_ALLGATHER,      d::allgather,      1,         false,     false},
    {ZCOLL_COLL_BCAST,          d::bcast,          0,         false,     false},
    {ZCOLL_COLL_SCATTER,        d::scatter,        1,         false,     false},
    {ZCOLL_COLL_REDUCE,         d::reduce,         0,         false,     false},
    {ZCOLL_COLL_GATHER,         d::gather,         1,         false,     false},
  };
  // clang-format on
  return kRows[coll::is_collective(c) ? static_cast<int>(c) - 1 : 0];
}

// The library's view of the call (coll/control/collective.h reads its shapes from it).
inline coll::Call call_of(zcoll_collective c, const Bufs& b) {
  coll::Call k = coll::Call::of(c, b.sendbuf, b.recvbuf, b.count, b.datatype, b.op, b.root);
  k.recvcounts = b.recvcounts;
  k.block = b.recvcounts == nullptr;
  return k;
}

// Whether rank r has an input (not a non-root of Scatter) and an output buffer
// at all (not a non-root of Reduce, Gather), whatever the count.
inline bool has_input(const coll::Call& k, int size, int r) {
  coll::Call one = k;
  one.count = 1;
  one.block = true;
  return coll::input_values(one, size, r) > 0;
}
inline bool has_output(const coll::Call& k, int size, int r) {
  coll::Call one = k;
  one.count = 1;
  one.block = true;
  return coll::output_values(one, size, r) > 0;
}

// Where rank r's block starts (in values) in a buffer of every rank's blocks:
// the input of Reduce_scatter and Scatter; 0 for a collective without blocks.
inline size_t block_offset(const coll::Call& k, int r) {
  if (!coll::traits(k.coll).per_rank_count) return 0;
  if (k.block) return static_cast<size_t>(r) * k.count;
  size_t pos = 0;
  for (int i = 0; i < r; ++i) pos += k.recvcounts[i];
  return pos;
}

// Where rank r's output value j comes from: rank *p's input value at the index
// returned; *p = -1 for a reduction (every rank's value at that index).
inline size_t source_of(const coll::Call& k, int r, size_t j, int* p) {
  const coll::CollectiveTraits& t = coll::traits(k.coll);
  if (t.reduction) {
    *p = -1;
    return block_offset(k, r) + j;
  }
  if (!t.root_contributes_only) {  // the gathering collectives: block j / count
    *p = static_cast<int>(j / k.count);
    return j % k.count;
  }
  *p = k.root;  // Bcast, Scatter: the root's values (its block r for Scatter)
  return block_offset(k, r) + j;
}

}  // namespace zcoll::tools
