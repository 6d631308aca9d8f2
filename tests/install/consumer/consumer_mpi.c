/* A C consumer of the installed zcoll_mpi.h: one Allreduce through zcoll on
 * MPI_COMM_WORLD (run with one rank), and the version of the loaded library. */
#include <math.h>
#include <stdio.h>
#include <zcoll_mpi.h>
#include <zcoll_version.h>

int main(int argc, char** argv) {
  enum { N = 70000 };
  static float x[N], y[N];
  int version = 0, rank = 0, size = 1, bad = 0;
  if (zcoll_get_version(&version) != ZCOLL_SUCCESS || version != ZCOLL_VERSION_CODE) {
    fprintf(stderr, "version %d, header %d\n", version, ZCOLL_VERSION_CODE);
    return 1;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < N; ++i) x[i] = (float)sin(i * 0.001) + (float)rank;
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.mode = ZCOLL_MODE_HOM;
  cfg.eb_mode = ZCOLL_EB_ABS;
  cfg.error_bound = 1e-3;
  cfg.min_bytes = 0;
  zcoll_comm* zc = NULL;
  zcoll_status s = zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc);
  if (s == ZCOLL_SUCCESS) s = zcoll_allreduce(zc, x, y, N, MPI_FLOAT, MPI_SUM);
  if (s != ZCOLL_SUCCESS) {
    fprintf(stderr, "zcoll_mpi: %s: %s\n", zcoll_status_string(s), zcoll_last_error());
    bad = 1;
  } else {
    /* size ranks, each within eb per compression: a loose check */
    for (int i = 0; i < N; ++i) {
      double want = size * sin(i * 0.001) + size * (size - 1) / 2.0;
      if (fabs(want - y[i]) > 1e-3 * size * 2 + 1e-4) bad = 1;
    }
  }
  zcoll_comm_free(zc);
  MPI_Finalize();
  if (!bad) printf("consumer_mpi ok: zcoll %s\n", zcoll_version_string());
  return bad;
}
