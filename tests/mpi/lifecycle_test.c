/* lifecycle_test.c — handles created and freed in a loop (10^4 times by
 * default), several alive at once, and the user's communicator freed while a
 * handle made from it is alive (the handle owns a duplicate: it keeps working
 * and frees cleanly). Leaks and use-after-free show under the sanitizer build
 * (scripts/test.sh, build-asan); this program checks statuses and results.
 * Usage: lifecycle_test [loops]. Exit status != 0 on failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "zcoll_mpi.h"

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      ++failures;                                          \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, " (%s)\n", zcoll_last_error());      \
    }                                                      \
  } while (0)

/* One compressed allreduce of n floats on zc, checked against the exact sum. */
static void allreduce_check(zcoll_comm* zc, MPI_Comm comm, size_t n) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  float* x = malloc(n * sizeof(float));
  float* y = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) x[i] = (float)(i % 97) * 0.5f + (float)rank;
  zcoll_status s = zcoll_allreduce(zc, x, y, n, MPI_FLOAT, MPI_SUM);
  CHECK(s == ZCOLL_SUCCESS, "allreduce returned %d", (int)s);
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(zc, &rep);
  for (size_t i = 0; i < n && s == ZCOLL_SUCCESS; ++i) {
    double exact = size * ((double)(i % 97) * 0.5) + size * (size - 1) / 2.0;
    double err = y[i] > exact ? y[i] - exact : exact - y[i];
    if (err > rep.error_bound + 1e-4 * (exact < 0 ? -exact : exact) + 1e-6) {
      CHECK(0, "element %zu: %g, exact %g, bound %g", i, (double)y[i], exact, rep.error_bound);
      break;
    }
  }
  free(x);
  free(y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long loops = argc > 1 ? atol(argv[1]) : 10000;
  zcoll_comm_config cfg;
  zcoll_comm_config_init(&cfg);
  cfg.mode = ZCOLL_MODE_HOM;
  cfg.min_bytes = 0;
  cfg.eb_mode = ZCOLL_EB_ABS;
  cfg.error_bound = 1e-3;

  /* 1. create / free in a loop; a call on every 1000th handle */
  for (long i = 0; i < loops; ++i) {
    zcoll_comm* zc = NULL;
    zcoll_status s = zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc);
    CHECK(s == ZCOLL_SUCCESS && zc, "create %ld returned %d", i, (int)s);
    if (!zc) break;
    if (i % 1000 == 0) allreduce_check(zc, MPI_COMM_WORLD, 5000);
    CHECK(zcoll_comm_free(zc) == ZCOLL_SUCCESS, "free %ld", i);
  }
  CHECK(zcoll_comm_free(NULL) == ZCOLL_SUCCESS, "free(NULL)");

  /* 2. several handles alive at once, used interleaved, freed out of order */
  zcoll_comm* h[4] = {NULL, NULL, NULL, NULL};
  for (int j = 0; j < 4; ++j)
    CHECK(zcoll_comm_create(MPI_COMM_WORLD, &cfg, &h[j]) == 0, "create %d", j);
  for (int round = 0; round < 3; ++round)
    for (int j = 0; j < 4; ++j) allreduce_check(h[(j + round) % 4], MPI_COMM_WORLD, 3000 + 31 * j);
  const int order[4] = {2, 0, 3, 1};
  for (int j = 0; j < 4; ++j) CHECK(zcoll_comm_free(h[order[j]]) == 0, "free %d", order[j]);

  /* 3. the user's communicator freed while a handle made from it lives */
  MPI_Comm user;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &user);
  zcoll_comm* zc = NULL;
  CHECK(zcoll_comm_create(user, &cfg, &zc) == ZCOLL_SUCCESS, "create on a split communicator");
  MPI_Comm_free(&user); /* the handle must not depend on it */
  if (zc) {
    int size = 0;
    CHECK(zcoll_comm_size(zc, &size) == ZCOLL_SUCCESS && size >= 1, "size after the free");
    /* a call after the user's communicator is gone */
    float x[4096], y[4096];
    for (int i = 0; i < 4096; ++i) x[i] = (float)i;
    CHECK(zcoll_allreduce(zc, x, y, 4096, MPI_FLOAT, MPI_SUM) == ZCOLL_SUCCESS,
          "allreduce after MPI_Comm_free of the user communicator");
    CHECK(y[100] > 100.0f * size - 1 && y[100] < 100.0f * size + 1, "y[100] = %g", (double)y[100]);
    CHECK(zcoll_comm_free(zc) == ZCOLL_SUCCESS, "free after the user communicator");
  }

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("lifecycle: %ld handles created and freed, %d failures\n", loops, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
