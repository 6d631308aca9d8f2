/* fault_mpi_test.c — out-of-memory for scratch space on one rank, over MPI
 * (docs/reliability.md, "Faults"). Run with ZCOLL_TEST_FAIL_ALLOC=RANK:K: on
 * that rank the K-th workspace growth of every handle fails. For each
 * collective and mode, on a fresh handle: the first call fails on every rank
 * (ZCOLL_ERR_NO_MEMORY on RANK, an error elsewhere) and nobody hangs (the
 * abort notice, the status agreement); the next call on the same handle (its
 * requests cancelled, a fresh communicator, a new tag epoch) is correct.
 * Exit status != 0 on failure. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

enum { kAllreduce, kBcast, kAllgather, kReduce, kGather, kCount };
static const char* const kNames[kCount] = {"allreduce", "bcast", "allgather", "reduce", "gather"};

static float input(int rank, size_t i) { return (float)(sin(0.01 * (double)i + rank) * 10 + rank); }

/* One call of collective k on n values per rank; *max_err = the largest
 * deviation from the exact result on this rank (where it has one). */
static zcoll_status one_call(zcoll_comm* zc, int k, size_t n, int rank, int size, double* max_err) {
  float* x = malloc(n * sizeof(float));
  float* y = malloc(n * size * sizeof(float));
  for (size_t i = 0; i < n; ++i) x[i] = input(rank, i);
  for (size_t i = 0; i < n * size; ++i) y[i] = -7.f;
  zcoll_status s = ZCOLL_SUCCESS;
  switch (k) {
    case kAllreduce: s = zcoll_allreduce(zc, x, y, n, MPI_FLOAT, MPI_SUM); break;
    case kBcast:
      if (rank == 0) memcpy(y, x, n * sizeof(float));
      s = zcoll_bcast(zc, y, n, MPI_FLOAT, 0);
      break;
    case kAllgather: s = zcoll_allgather(zc, x, y, n, MPI_FLOAT); break;
    case kReduce: s = zcoll_reduce(zc, x, y, n, MPI_FLOAT, MPI_SUM, 0); break;
    case kGather: s = zcoll_gather(zc, x, y, n, MPI_FLOAT, 0); break;
  }
  *max_err = 0;
  const int has_result = k == kAllreduce || k == kBcast || k == kAllgather || rank == 0;
  if (s == ZCOLL_SUCCESS && has_result) {
    const size_t m = (k == kAllgather || k == kGather) ? n * size : n;
    for (size_t j = 0; j < m; ++j) {
      double exact = 0;
      if (k == kAllreduce || k == kReduce)
        for (int p = 0; p < size; ++p) exact += input(p, j);
      else if (k == kBcast)
        exact = input(0, j);
      else
        exact = input((int)(j / n), j % n);
      const double e = fabs(y[j] - exact);
      if (!(e <= *max_err)) *max_err = e;  /* NaN counts */
    }
  }
  free(x);
  free(y);
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* spec = getenv("ZCOLL_TEST_FAIL_ALLOC");
  int victim = -1, nth = 0;
  if (!spec || sscanf(spec, "%d:%d", &victim, &nth) != 2 || victim >= size) {
    if (rank == 0) fprintf(stderr, "set ZCOLL_TEST_FAIL_ALLOC=RANK:K (RANK < %d)\n", size);
    MPI_Finalize();
    return 2;
  }
  const zcoll_mode modes[] = {ZCOLL_MODE_RAW, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM};
  const size_t n = 100003;
  int injected = 0;
  for (int k = 0; k < kCount; ++k)
    for (int mi = 0; mi < 3; ++mi) {
      zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
      cfg.mode = modes[mi];
      cfg.eb_mode = ZCOLL_EB_ABS;
      cfg.error_bound = 1e-3;
      cfg.min_bytes = 0;
      zcoll_comm* zc = NULL;
      zcoll_status s = zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc);
      CHECK(s == ZCOLL_SUCCESS, "create");
      if (s != ZCOLL_SUCCESS) continue;
      double err = 0;
      s = one_call(zc, k, n, rank, size, &err);
      int bad = s != ZCOLL_SUCCESS, all_bad = 0, any_bad = 0;
      MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      CHECK(all_bad == any_bad, "%s %s: some ranks failed, others did not (this one: %d)",
            kNames[k], zcoll_mode_name(modes[mi]), (int)s);
      if (rank == victim && any_bad)
        CHECK(s == ZCOLL_ERR_NO_MEMORY, "%s %s: the failing rank returned %d", kNames[k],
              zcoll_mode_name(modes[mi]), (int)s);
      injected += any_bad;
      /* the same handle goes on: three more calls, all correct */
      for (int again = 0; again < 3; ++again) {
        s = one_call(zc, k, n, rank, size, &err);
        zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
        zcoll_comm_last_report(zc, &rep);
        CHECK(s == ZCOLL_SUCCESS, "%s %s: call %d after the failure returned %d", kNames[k],
              zcoll_mode_name(modes[mi]), again + 2, (int)s);
        const double tol = rep.error_bound + 1e-4 * size * 12 + 1e-6;
        CHECK(err <= tol, "%s %s: call %d after the failure off by %g (bound %g)", kNames[k],
              zcoll_mode_name(modes[mi]), again + 2, err, rep.error_bound);
      }
      CHECK(zcoll_comm_free(zc) == ZCOLL_SUCCESS, "free");
    }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("scratch OOM on rank %d (allocation %d): %d of %d calls failed on every rank, none "
           "hung; the next calls on the same handle correct; %d failures\n",
           victim, nth, injected, kCount * 3, total);
  if (rank == 0 && injected < kCount * 2) {
    fprintf(stderr, "FAIL: only %d injected failures\n", injected);
    total++;
  }
  MPI_Finalize();
  return total ? 1 : 0;
}
