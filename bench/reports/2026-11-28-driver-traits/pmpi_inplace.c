/* Every intercepted collective with and without MPI_IN_PLACE (ZCOLL_PMPI_VERIFY
   checks each compressed call against the exact one); prints a checksum of the results. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define N 20000
static double sum(const float* x, int n) { double s = 0; for (int i = 0; i < n; ++i) s += x[i]; return s; }
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int r, p; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &p);
  float* a = malloc(sizeof(float) * N * p); float* b = malloc(sizeof(float) * N * p);
  int* rc = malloc(sizeof(int) * p);
  for (int i = 0; i < p; ++i) rc[i] = N / 2 + 17 * i;
  double chk = 0;
  for (int ip = 0; ip < 2; ++ip) {
    const int root = getenv("ROOT0") ? 0 : p - 1;
#define FILL(n) for (int i = 0; i < (n); ++i) { a[i] = (float)sin(0.001 * i + r); b[i] = a[i]; }
    FILL(N * p); MPI_Allreduce(ip ? MPI_IN_PLACE : a, b, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); chk += sum(b, N);
    if (!getenv("SKIP_REDUCE")) { FILL(N * p); MPI_Reduce(ip && r == root ? MPI_IN_PLACE : a, b, N, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD); if (r == root) chk += sum(b, N); }
    FILL(N * p); MPI_Reduce_scatter_block(ip ? MPI_IN_PLACE : a, b, N, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); chk += sum(b, N);
    FILL(N * p); MPI_Reduce_scatter(ip ? MPI_IN_PLACE : a, b, rc, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); chk += sum(b, rc[r]);
    FILL(N * p); MPI_Allgather(ip ? MPI_IN_PLACE : a + r * N, N, MPI_FLOAT, b, N, MPI_FLOAT, MPI_COMM_WORLD); chk += sum(b, N * p);
    FILL(N * p); MPI_Gather(ip && r == root ? MPI_IN_PLACE : a + r * N, N, MPI_FLOAT, b, N, MPI_FLOAT, root, MPI_COMM_WORLD); if (r == root) chk += sum(b, N * p);
    FILL(N * p); MPI_Scatter(a, N, MPI_FLOAT, ip && r == root ? MPI_IN_PLACE : b, N, MPI_FLOAT, root, MPI_COMM_WORLD); chk += sum(ip && r == root ? a + root * N : b, N);
    FILL(N * p); MPI_Bcast(b, N, MPI_FLOAT, root, MPI_COMM_WORLD); chk += sum(b, N);
  }
  double all = 0; PMPI_Allreduce(&chk, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (r == 0) printf("checksum %.6f\n", all);
  MPI_Finalize(); return 0;
}
