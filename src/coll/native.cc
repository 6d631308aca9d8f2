// native.cc — the MPI library's own collective: mode mpi and every fallback
// (other datatypes and ops, small messages, AUTO's choice). Exact; the only
// work added is the division of an averaged sum.
#include <cstring>

#include "coll/comm.h"
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
      else
        s = mpi_status(mpi::reduce_scatter(k.sendbuf, k.recvbuf, k.recvcounts, N,
                                           zc->ws.get(Workspace::kCounts, N * sizeof(MPI_Count)),
                                           dt, k.op, comm),
                       "MPI_Reduce_scatter");
      if (s == ZCOLL_SUCCESS && average)
        divide(k.recvbuf, k.block ? k.count : k.recvcounts[r], dtype, N);
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
      if (sb == MPI_IN_PLACE && r == k.root && k.root != 0) {
        int tsize = 0;
        MPI_Type_size(dt, &tsize);
        const size_t bytes = k.count * static_cast<size_t>(tsize);
        void* copy = zc->ws.get(Workspace::kTemp, bytes + 8);
        std::memcpy(copy, k.recvbuf, bytes);
        sb = copy;
      }
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
