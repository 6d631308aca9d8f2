// mpi_large_count.h — the MPI library's collectives with MPI_Count counts, in
// zcoll's own namespace (never under MPI's names: a library that defines
// MPI_* symbols collides with the MPI library and with PMPI tools).
//
// Counts up to INT_MAX go to the classic calls: MPICH 4.0's _c collectives
// mishandle MPI_IN_PLACE in some paths, and the classic calls are what every
// MPI tunes. Larger counts use the MPI-4 large-count calls; an MPI-3 library
// (Open MPI 4.1) has none, and these return MPI_ERR_COUNT there.
//
// Every MPI call zcoll makes for a user's collective goes through here, so a
// build that must bypass the MPI_* entry points (a PMPI interposer) changes
// them in one place.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>

namespace zcoll::transport::mpi {

inline bool fits_int(MPI_Count c) { return c >= 0 && c <= static_cast<MPI_Count>(INT_MAX); }

#if MPI_VERSION >= 4
#define ZCOLL_LARGE(classic, large) large
#else
#define ZCOLL_LARGE(classic, large) MPI_ERR_COUNT
#endif

inline int allreduce(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm) {
  if (fits_int(n)) return MPI_Allreduce(sb, rb, static_cast<int>(n), dt, op, comm);
  return ZCOLL_LARGE(0, MPI_Allreduce_c(sb, rb, n, dt, op, comm));
}

inline int reduce_scatter_block(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op,
                                MPI_Comm comm) {
  if (fits_int(n)) return MPI_Reduce_scatter_block(sb, rb, static_cast<int>(n), dt, op, comm);
  return ZCOLL_LARGE(0, MPI_Reduce_scatter_block_c(sb, rb, n, dt, op, comm));
}

// counts: one entry per rank of comm (size entries); scratch: room for size
// MPI_Count values (the counts converted to the call's type, no allocation).
inline int reduce_scatter(const void* sb, void* rb, const size_t* counts, int size, void* scratch,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm) {
  bool small = true;
  for (int i = 0; i < size; ++i) small = small && fits_int(static_cast<MPI_Count>(counts[i]));
  if (small) {
    int* c = static_cast<int*>(scratch);
    for (int i = 0; i < size; ++i) c[i] = static_cast<int>(counts[i]);
    return MPI_Reduce_scatter(sb, rb, c, dt, op, comm);
  }
#if MPI_VERSION >= 4
  MPI_Count* c = static_cast<MPI_Count*>(scratch);
  for (int i = 0; i < size; ++i) c[i] = static_cast<MPI_Count>(counts[i]);
  return MPI_Reduce_scatter_c(sb, rb, c, dt, op, comm);
#else
  return MPI_ERR_COUNT;
#endif
}

inline int allgather(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Comm comm) {
  if (fits_int(n)) {
    const int i = static_cast<int>(n);
    return MPI_Allgather(sb, i, dt, rb, i, dt, comm);
  }
  return ZCOLL_LARGE(0, MPI_Allgather_c(sb, n, dt, rb, n, dt, comm));
}

inline int bcast(void* buf, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  if (fits_int(n)) return MPI_Bcast(buf, static_cast<int>(n), dt, root, comm);
  return ZCOLL_LARGE(0, MPI_Bcast_c(buf, n, dt, root, comm));
}

inline int scatter(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, int root,
                   MPI_Comm comm) {
  if (fits_int(n)) {
    const int i = static_cast<int>(n);
    return MPI_Scatter(sb, i, dt, rb, i, dt, root, comm);
  }
  return ZCOLL_LARGE(0, MPI_Scatter_c(sb, n, dt, rb, n, dt, root, comm));
}

inline int reduce(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, MPI_Op op, int root,
                  MPI_Comm comm) {
  if (fits_int(n)) return MPI_Reduce(sb, rb, static_cast<int>(n), dt, op, root, comm);
  return ZCOLL_LARGE(0, MPI_Reduce_c(sb, rb, n, dt, op, root, comm));
}

inline int gather(const void* sb, void* rb, MPI_Count n, MPI_Datatype dt, int root, MPI_Comm comm) {
  if (fits_int(n)) {
    const int i = static_cast<int>(n);
    return MPI_Gather(sb, i, dt, rb, i, dt, root, comm);
  }
  return ZCOLL_LARGE(0, MPI_Gather_c(sb, n, dt, rb, n, dt, root, comm));
}

#undef ZCOLL_LARGE

}  // namespace zcoll::transport::mpi
