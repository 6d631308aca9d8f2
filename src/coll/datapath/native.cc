// native.cc — the MPI library's own collective: mode mpi and every fallback
// (other datatypes and ops, small messages, AUTO's choice). Exact; the only
// work added is the division of an averaged sum.
#include <cstring>

#include "coll/control/collective.h"
#include "coll/control/comm.h"
#include "core/error.h"
#include "transport/mpi_large_count.h"
#include "transport/mpi_transport.h"

namespace zcoll::coll {

namespace {

// Divide n values of a float/double buffer by d (averaging after MPI).
void divide(void* buf, size_t n, zcoll_dtype dtype, double d) {
  if (dtype == ZCOLL_FLOAT32) {
    float* x = static_cast<float*>(buf);
    for (size_t i = 0; i < n; ++i) x[i] /= static_cast<float>(d);
  } else {
    double* x = static_cast<double*>(buf);
    for (size_t i = 0; i < n; ++i) x[i] /= d;
  }
}

zcoll_status mpi_status(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return ZCOLL_SUCCESS;
  return fail(ZCOLL_ERR_MPI, "%s failed: %s", what, transport::mpi_error_text(rc));
}

// MPICH 4.0.2 crashes in some collectives called with MPI_IN_PLACE (see the
// callers): a copy of the input in the workspace goes in as the send buffer
// instead. The copy spans the datatype's extent, not its size, so types with
// holes (MPI_DOUBLE_INT: 12 bytes of data in a 16-byte extent) or a lower
// bound other than 0 are copied whole. Returns sendbuf when it is not in place.
const void* in_place_copy(zcoll_comm* zc, const void* sendbuf, const void* recvbuf, size_t count,
                          MPI_Datatype dt, Workspace::Slot slot) {
  if (sendbuf != MPI_IN_PLACE || count == 0) return sendbuf;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  MPI_Type_get_extent(dt, &lb, &extent);
  MPI_Type_get_true_extent(dt, &true_lb, &true_extent);
  const size_t span = (count - 1) * static_cast<size_t>(extent) + static_cast<size_t>(true_extent);
  uint8_t* copy = zc->ws.get(slot, span + 8);
  std::memcpy(copy, static_cast<const uint8_t*>(recvbuf) + true_lb, span);
  return copy - true_lb;
}

}  // namespace

zcoll_status run_native(zcoll_comm* zc, const Call& k, bool average, zcoll_dtype dtype) {
  namespace mpi = transport::mpi;
  MPI_Comm comm = zc->tp->comm();
  const int N = zc->tp->size(), r = zc->tp->rank();
  const MPI_Datatype dt = k.datatype;
  const MPI_Count n = static_cast<MPI_Count>(k.count);
  zcoll_status s = ZCOLL_SUCCESS;
  switch (k.coll) {
    case ZCOLL_COLL_ALLREDUCE:
      s = mpi_status(mpi::allreduce(k.sendbuf, k.recvbuf, n, dt, k.op, comm), "MPI_Allreduce");
      if (s == ZCOLL_SUCCESS && average) divide(k.recvbuf, k.count, dtype, N);
      return s;
    case ZCOLL_COLL_REDUCE_SCATTER:
      if (k.block)
        s = mpi_status(mpi::reduce_scatter_block(k.sendbuf, k.recvbuf, n, dt, k.op, comm),
                       "MPI_Reduce_scatter_block");
      else  // MPICH 4.0.2 fails an assertion (memcpy ranges overlap) in MPI_Reduce_scatter
            // with MPI_IN_PLACE and long uneven counts: pass a copy
        s = mpi_status(
            mpi::reduce_scatter(
                in_place_copy(zc, k.sendbuf, k.recvbuf, total_values(k, N), dt, Workspace::kTemp),
                k.recvbuf, k.recvcounts, N, zc->ws.get(Workspace::kCounts, N * sizeof(MPI_Count)),
                dt, k.op, comm),
            "MPI_Reduce_scatter");
      if (s == ZCOLL_SUCCESS && average) divide(k.recvbuf, output_values(k, N, r), dtype, N);
      return s;
    case ZCOLL_COLL_ALLGATHER:
      return mpi_status(mpi::allgather(k.sendbuf, k.recvbuf, n, dt, comm), "MPI_Allgather");
    case ZCOLL_COLL_BCAST:
      return mpi_status(mpi::bcast(k.recvbuf, n, dt, k.root, comm), "MPI_Bcast");
    case ZCOLL_COLL_SCATTER:
      return mpi_status(mpi::scatter(k.sendbuf, k.recvbuf, n, dt, k.root, comm), "MPI_Scatter");
    case ZCOLL_COLL_REDUCE: {
      // MPICH 4.0.2 crashes in MPI_Reduce with MPI_IN_PLACE at a root other
      // than 0 for long vectors (reduce-scatter-gather path): pass a copy.
      const void* sb = k.sendbuf;
      if (r == k.root && k.root != 0)
        sb = in_place_copy(zc, k.sendbuf, k.recvbuf, k.count, dt, Workspace::kTemp);
      s = mpi_status(mpi::reduce(sb, k.recvbuf, n, dt, k.op, k.root, comm), "MPI_Reduce");
      if (s == ZCOLL_SUCCESS && average && r == k.root) divide(k.recvbuf, k.count, dtype, N);
      return s;
    }
    case ZCOLL_COLL_GATHER:
      return mpi_status(mpi::gather(k.sendbuf, k.recvbuf, n, dt, k.root, comm), "MPI_Gather");
    default: break;
  }
  return fail(ZCOLL_ERR_INTERNAL, "unknown collective %d", static_cast<int>(k.coll));
}

}  // namespace zcoll::coll
