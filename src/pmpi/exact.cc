// exact.cc — the exact calls of ZCOLL_PMPI_VERIFY: zcoll's large-count
// wrappers (src/transport/mpi_large_count.h), which this file, like every
// source of the shim but intercept.cc, sees through pmpi_redirect.h: they call
// PMPI_* here.
#include <vector>

#include "pmpi/shim.h"
#include "transport/mpi_large_count.h"

namespace zcoll::pmpi::exact {

namespace tm = zcoll::transport::mpi;

int allreduce(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  return tm::allreduce(sb, rb, n, dt, op, comm);
}
int reduce_scatter_block(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm) {
  return tm::reduce_scatter_block(sb, rb, n, dt, op, comm);
}
int reduce_scatter(const void* sb, void* rb, const size_t* counts, int size, MPI_Datatype dt,
                   MPI_Op op, MPI_Comm comm) {
  std::vector<MPI_Count> scratch(static_cast<size_t>(size));
  return tm::reduce_scatter(sb, rb, counts, size, scratch.data(), dt, op, comm);
}
int reduce(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op, int root,
           MPI_Comm comm) {
  return tm::reduce(sb, rb, n, dt, op, root, comm);
}
int allgather(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Comm comm) {
  return tm::allgather(sb, rb, n, dt, comm);
}
int bcast(void* buf, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  return tm::bcast(buf, n, dt, root, comm);
}
int scatter(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  return tm::scatter(sb, rb, n, dt, root, comm);
}
int gather(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  return tm::gather(sb, rb, n, dt, root, comm);
}

}  // namespace zcoll::pmpi::exact
