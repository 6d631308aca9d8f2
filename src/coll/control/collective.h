// collective.h — the collective traits table: one row per collective with what
// it is (a reduction? rooted?) and the shape of its buffers (per-rank blocks,
// where MPI_IN_PLACE puts the input, which values bound the error). The one
// place that knows a collective's shape: dispatch, the MPI fallback, the device
// path (CudaOps::run_native), zcoll_predict, the PMPI shim's wrappers and the
// test drivers zcoll-soak and zcoll-bench (tools/common/coll_driver.h) read it
// (the nccl-tests idea: one traits table per collective).
#pragma once

#include <cstddef>

#include "core/config.h"
#include "zcoll_mpi.h"

namespace zcoll::coll {

struct Call;
struct Args;

// Where a call's input is when sendbuf is MPI_IN_PLACE.
enum class InPlace {
  kNone,          // no MPI_IN_PLACE (Bcast: one buffer)
  kRecvbuf,       // the input is recvbuf (Allreduce, Reduce_scatter; Reduce at the root)
  kOwnBlock,      // the input is this rank's block of recvbuf (Allgather; Gather at the root)
  kRootSendBlock  // Scatter, recvbuf MPI_IN_PLACE at the root: its block stays in sendbuf
};

struct CollectiveTraits {
  zcoll_collective coll;
  const char* name;      // "allreduce": zcoll_collective_name, ZCOLL_PMPI_COLLS
  const char* mpi_name;  // "MPI_Allreduce" (the PMPI shim's report)
  config::Var algo_var;  // ZCOLL_ALLREDUCE_ALGO
  bool reduction;        // takes an op (and the average setting)
  bool rooted;           // takes a root
  bool per_rank_count;   // count is one rank's block: the buffer holds count x N values
  InPlace in_place;
  bool in_place_root_only;     // MPI_IN_PLACE only at the root (Reduce, Gather, Scatter)
  bool root_contributes_only;  // only the root's values bound the error (Bcast, Scatter)
};

// The rows, by zcoll_collective (ALLREDUCE .. GATHER); kCollectives of them.
constexpr int kCollectives = 7;
const CollectiveTraits& traits(zcoll_collective coll);
// Whether coll is a collective (ALLREDUCE .. GATHER).
bool is_collective(zcoll_collective coll);
// The collective called `name` (any case); ZCOLL_COLL_NONE if none.
zcoll_collective collective_named(const char* name);

// ---- the shape of a call ----------------------------------------------------
// Values moved or reduced by all ranks together (the size threshold).
size_t total_values(const Call& k, int size);
// Values of this rank's input and output buffers (0 where it has none: a
// non-root's output of Reduce and Gather, a non-root's input of Scatter).
size_t input_values(const Call& k, int size, int rank);
size_t output_values(const Call& k, int size, int rank);
// The buffers after MPI_IN_PLACE; counts/displs (size entries each) receive
// the per-rank blocks of Reduce_scatter.
Args bind_args(const Call& k, int size, int rank, size_t vsize, size_t* counts, size_t* displs);
// The values this rank contributes to the error bound (nullptr: none).
const void* bound_data(const Call& k, const Args& a, int size, int rank, size_t* n);

// Gives each ZCOLL_<COLLECTIVE>_ALGO variable its words from the algorithm
// table (config::set_words); idempotent.
void declare_algorithm_words();

}  // namespace zcoll::coll
