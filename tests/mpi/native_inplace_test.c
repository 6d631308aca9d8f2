/* native_inplace_test.c — regressions the soak found in the MPI fallback
 * (native.cc), both with MPI_IN_PLACE:
 *   1. MPI_Reduce at a root other than 0 with a datatype whose extent exceeds
 *      its size (MPI_DOUBLE_INT, MAXLOC): the workaround's copy of the input
 *      took size, not extent, bytes per element — a wrong result;
 *   2. MPI_Reduce_scatter with long uneven counts: MPICH 4.0.2 aborts (yaksa
 *      "memcpy argument memory ranges overlap"); zcoll now passes a copy.
 * Run with 2 or 3 ranks. Exit status != 0 on failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "zcoll_mpi.h"

typedef struct {
  double v;
  int i;
} double_int;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  zcoll_comm* zc = NULL;
  if (zcoll_comm_create(MPI_COMM_WORLD, NULL, &zc) != ZCOLL_SUCCESS) {
    fprintf(stderr, "create: %s\n", zcoll_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  /* 1. MAXLOC in place at the last rank */
  const size_t n = 9455;
  const int root = size - 1;
  double_int* x = malloc(n * sizeof(double_int));
  double_int* y = malloc(n * sizeof(double_int));
  for (size_t i = 0; i < n; ++i) {
    x[i].v = (double)((i * 7 + (size_t)rank * 3) % 5);
    x[i].i = (int)((i + (size_t)rank * 11) % 100);
  }
  if (rank == root)
    for (size_t i = 0; i < n; ++i) y[i] = x[i];
  zcoll_status s = zcoll_reduce(zc, rank == root ? MPI_IN_PLACE : x, rank == root ? y : NULL, n,
                                MPI_DOUBLE_INT, MPI_MAXLOC, root);
  if (s != ZCOLL_SUCCESS) {
    fprintf(stderr, "reduce maxloc: %s\n", zcoll_last_error());
    ++bad;
  } else if (rank == root) {
    for (size_t i = 0; i < n; ++i) {
      double bv = -1;
      int bi = 0;
      for (int p = 0; p < size; ++p) {
        double v = (double)((i * 7 + (size_t)p * 3) % 5);
        int ix = (int)((i + (size_t)p * 11) % 100);
        if (v > bv || (v == bv && ix < bi)) bv = v, bi = ix;
      }
      if (y[i].v != bv || y[i].i != bi) {
        fprintf(stderr, "maxloc element %zu: (%g, %d), expected (%g, %d)\n", i, y[i].v, y[i].i, bv,
                bi);
        ++bad;
        break;
      }
    }
  }
  free(x);
  free(y);

  /* 2. Reduce_scatter in place, long uneven counts, ints (MPI fallback) */
  size_t counts[8] = {49320, 68222, 106266, 5000, 70001, 3, 0, 12345};
  size_t total = 0, off = 0;
  for (int p = 0; p < size; ++p) total += counts[p % 8];
  for (int p = 0; p < rank; ++p) off += counts[p % 8];
  size_t rc[64];
  for (int p = 0; p < size && p < 64; ++p) rc[p] = counts[p % 8];
  int* b = malloc(total * sizeof(int) + 1);
  for (size_t i = 0; i < total; ++i) b[i] = (int)(i % 1000) * (rank + 1);
  s = zcoll_reduce_scatter(zc, MPI_IN_PLACE, b, rc, MPI_INT, MPI_MIN);
  if (s != ZCOLL_SUCCESS) {
    fprintf(stderr, "reduce_scatter in place: %s\n", zcoll_last_error());
    ++bad;
  } else {
    for (size_t i = 0; i < rc[rank]; ++i)
      if (b[i] != (int)((off + i) % 1000)) {
        fprintf(stderr, "reduce_scatter element %zu: %d, expected %d\n", i, b[i],
                (int)((off + i) % 1000));
        ++bad;
        break;
      }
  }
  free(b);
  zcoll_comm_free(zc);
  int all = 0;
  MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("native in-place regressions (%d ranks): %d failures\n", size, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
