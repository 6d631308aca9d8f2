// mpi_compat.h — the MPI-4 large-count collectives (MPI_Allreduce_c, ...) for MPI-3
// libraries such as Open MPI 4.1, which do not have them. Counts up to INT_MAX go to the
// classic call; larger ones return MPI_ERR_COUNT (an MPI-3 library cannot reduce more
// than INT_MAX elements of a predefined type in one call). Nothing is defined when the
// library implements MPI 4 (MPICH 4), so the real calls are used there.
#pragma once

#include <mpi.h>

#include <climits>

#if MPI_VERSION < 4
namespace zcoll::transport::compat {
inline bool fits(MPI_Count c) { return c >= 0 && c <= static_cast<MPI_Count>(INT_MAX); }
}  // namespace zcoll::transport::compat

inline int MPI_Allreduce_c(const void* sb, void* rb, MPI_Count c, MPI_Datatype dt, MPI_Op op,
                           MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(c)) return MPI_ERR_COUNT;
  return MPI_Allreduce(sb, rb, static_cast<int>(c), dt, op, comm);
}
inline int MPI_Reduce_scatter_block_c(const void* sb, void* rb, MPI_Count c, MPI_Datatype dt,
                                      MPI_Op op, MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(c)) return MPI_ERR_COUNT;
  return MPI_Reduce_scatter_block(sb, rb, static_cast<int>(c), dt, op, comm);
}
inline int MPI_Reduce_scatter_c(const void* sb, void* rb, const MPI_Count counts[], MPI_Datatype dt,
                                MPI_Op op, MPI_Comm comm) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  int* ic = new int[n > 0 ? n : 1];
  for (int i = 0; i < n; ++i) {
    if (!zcoll::transport::compat::fits(counts[i])) {
      delete[] ic;
      return MPI_ERR_COUNT;
    }
    ic[i] = static_cast<int>(counts[i]);
  }
  int rc = MPI_Reduce_scatter(sb, rb, ic, dt, op, comm);
  delete[] ic;
  return rc;
}
inline int MPI_Allgather_c(const void* sb, MPI_Count sc, MPI_Datatype st, void* rb, MPI_Count rc,
                           MPI_Datatype rt, MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(sc) || !zcoll::transport::compat::fits(rc)) return MPI_ERR_COUNT;
  return MPI_Allgather(sb, static_cast<int>(sc), st, rb, static_cast<int>(rc), rt, comm);
}
inline int MPI_Bcast_c(void* b, MPI_Count c, MPI_Datatype dt, int root, MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(c)) return MPI_ERR_COUNT;
  return MPI_Bcast(b, static_cast<int>(c), dt, root, comm);
}
inline int MPI_Scatter_c(const void* sb, MPI_Count sc, MPI_Datatype st, void* rb, MPI_Count rc,
                         MPI_Datatype rt, int root, MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(sc) || !zcoll::transport::compat::fits(rc)) return MPI_ERR_COUNT;
  return MPI_Scatter(sb, static_cast<int>(sc), st, rb, static_cast<int>(rc), rt, root, comm);
}
inline int MPI_Reduce_c(const void* sb, void* rb, MPI_Count c, MPI_Datatype dt, MPI_Op op, int root,
                        MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(c)) return MPI_ERR_COUNT;
  return MPI_Reduce(sb, rb, static_cast<int>(c), dt, op, root, comm);
}
inline int MPI_Gather_c(const void* sb, MPI_Count sc, MPI_Datatype st, void* rb, MPI_Count rc,
                        MPI_Datatype rt, int root, MPI_Comm comm) {
  if (!zcoll::transport::compat::fits(sc) || !zcoll::transport::compat::fits(rc)) return MPI_ERR_COUNT;
  return MPI_Gather(sb, static_cast<int>(sc), st, rb, static_cast<int>(rc), rt, root, comm);
}
#endif  // MPI_VERSION < 4
