/* fault_mpi_test.c — out-of-memory for scratch space on one rank, over MPI
 * (docs/reliability.md, "Faults"). Run with ZCOLL_TEST_FAIL_ALLOC=RANK:K: on
 * that rank the K-th workspace growth of every handle fails. For each
 * collective and mode, on a fresh handle: the first call fails on every rank
 * (ZCOLL_ERR_NO_MEMORY on RANK, an error elsewhere) and nobody hangs (the
 * abort notice, the status agreement); the next call on the same handle (its
 * requests cancelled, a fresh communicator, a new tag epoch) is correct.
 * With the argument "nonblocking" (MPI_THREAD_MULTIPLE: the handle's progress
 * thread runs the calls) the failing call is a nonblocking one with a second
 * one started behind it before either is waited for: the first request fails
 * on every rank, the second, queued behind it, is correct (waited for first),
 * and the calls after them, nonblocking and blocking, too.
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

/* The buffers of one call of collective k on n values per rank. */
typedef struct {
  float* x;
  float* y;
} Bufs;

static Bufs make_bufs(int k, size_t n, int rank, int size) {
  Bufs b;
  b.x = malloc(n * sizeof(float));
  b.y = malloc(n * size * sizeof(float));
  for (size_t i = 0; i < n; ++i) b.x[i] = input(rank, i);
  for (size_t i = 0; i < n * size; ++i) b.y[i] = -7.f;
  if (k == kBcast && rank == 0) memcpy(b.y, b.x, n * sizeof(float));
  return b;
}

static void free_bufs(Bufs* b) {
  free(b->x);
  free(b->y);
}

/* Run collective k (q NULL) or start it into *q. */
static zcoll_status issue(zcoll_comm* zc, int k, size_t n, Bufs* b, zcoll_request** q) {
  switch (k) {
    case kAllreduce:
      return q ? zcoll_iallreduce(zc, b->x, b->y, n, MPI_FLOAT, MPI_SUM, q)
               : zcoll_allreduce(zc, b->x, b->y, n, MPI_FLOAT, MPI_SUM);
    case kBcast:
      return q ? zcoll_ibcast(zc, b->y, n, MPI_FLOAT, 0, q)
               : zcoll_bcast(zc, b->y, n, MPI_FLOAT, 0);
    case kAllgather:
      return q ? zcoll_iallgather(zc, b->x, b->y, n, MPI_FLOAT, q)
               : zcoll_allgather(zc, b->x, b->y, n, MPI_FLOAT);
    case kReduce:
      return q ? zcoll_ireduce(zc, b->x, b->y, n, MPI_FLOAT, MPI_SUM, 0, q)
               : zcoll_reduce(zc, b->x, b->y, n, MPI_FLOAT, MPI_SUM, 0);
    case kGather:
      return q ? zcoll_igather(zc, b->x, b->y, n, MPI_FLOAT, 0, q)
               : zcoll_gather(zc, b->x, b->y, n, MPI_FLOAT, 0);
  }
  return ZCOLL_ERR_INVALID_ARG;
}

/* The largest deviation from the exact result on this rank (where it has one). */
static double max_error(int k, size_t n, int rank, int size, const Bufs* b) {
  double max_err = 0;
  const int has_result = k == kAllreduce || k == kBcast || k == kAllgather || rank == 0;
  if (!has_result) return 0;
  const size_t m = (k == kAllgather || k == kGather) ? n * size : n;
  for (size_t j = 0; j < m; ++j) {
    double exact = 0;
    if (k == kAllreduce || k == kReduce)
      for (int p = 0; p < size; ++p) exact += input(p, j);
    else if (k == kBcast)
      exact = input(0, j);
    else
      exact = input((int)(j / n), j % n);
    const double e = fabs(b->y[j] - exact);
    if (!(e <= max_err)) max_err = e; /* NaN counts */
  }
  return max_err;
}

/* One blocking call of collective k on n values per rank; *max_err = the
 * largest deviation from the exact result on this rank (where it has one). */
static zcoll_status one_call(zcoll_comm* zc, int k, size_t n, int rank, int size, double* max_err) {
  Bufs b = make_bufs(k, n, rank, size);
  const zcoll_status s = issue(zc, k, n, &b, NULL);
  *max_err = s == ZCOLL_SUCCESS ? max_error(k, n, rank, size, &b) : 0;
  free_bufs(&b);
  return s;
}

/* The same, nonblocking: started and waited for (its report in *rep). */
static zcoll_status one_call_nb(zcoll_comm* zc, int k, size_t n, int rank, int size,
                                double* max_err, zcoll_report* rep) {
  Bufs b = make_bufs(k, n, rank, size);
  zcoll_request* q = NULL;
  zcoll_status s = issue(zc, k, n, &b, &q);
  if (s == ZCOLL_SUCCESS) s = zcoll_wait(q, rep);
  zcoll_request_free(q);
  *max_err = s == ZCOLL_SUCCESS ? max_error(k, n, rank, size, &b) : 0;
  free_bufs(&b);
  return s;
}

/* The failing call and one queued behind it, both in flight; the second
   waited for first and correct. Returns the first's status. */
static zcoll_status failing_pair_nb(zcoll_comm* zc, int k, zcoll_mode mode, size_t n, int rank,
                                    int size) {
  Bufs b1 = make_bufs(k, n, rank, size), b2 = make_bufs(k, n, rank, size);
  zcoll_request *q1 = NULL, *q2 = NULL;
  CHECK(issue(zc, k, n, &b1, &q1) == ZCOLL_SUCCESS, "start 1");
  CHECK(issue(zc, k, n, &b2, &q2) == ZCOLL_SUCCESS, "start 2");
  zcoll_report r2 = ZCOLL_REPORT_INITIALIZER;
  const zcoll_status s2 = zcoll_wait(q2, &r2);
  CHECK(s2 == ZCOLL_SUCCESS, "%s %s: the request queued behind the failing one returned %d",
        kNames[k], zcoll_mode_name(mode), (int)s2);
  const double e2 = s2 == ZCOLL_SUCCESS ? max_error(k, n, rank, size, &b2) : 0;
  CHECK(e2 <= r2.error_bound + 1e-4 * size * 12 + 1e-6,
        "%s %s: the request queued behind the failing one off by %g (bound %g)", kNames[k],
        zcoll_mode_name(mode), e2, r2.error_bound);
  const zcoll_status s = zcoll_wait(q1, NULL);
  if (s != ZCOLL_SUCCESS)
    CHECK(strlen(zcoll_last_error()) > 0, "%s %s: the failed request has no error text", kNames[k],
          zcoll_mode_name(mode));
  zcoll_request_free(q1);
  zcoll_request_free(q2);
  free_bufs(&b1);
  free_bufs(&b2);
  return s;
}

/* The same handle goes on: three more calls, all correct (nonblocking:
   nonblocking, blocking, nonblocking). */
static void calls_after_failure(zcoll_comm* zc, int k, zcoll_mode mode, size_t n, int rank,
                                int size, int nonblocking) {
  double err = 0;
  zcoll_status s;
  for (int again = 0; again < 3; ++again) {
    zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
    if (nonblocking && again != 1) {
      s = one_call_nb(zc, k, n, rank, size, &err, &rep);
    } else {
      s = one_call(zc, k, n, rank, size, &err);
      zcoll_comm_last_report(zc, &rep);
    }
    CHECK(s == ZCOLL_SUCCESS, "%s %s: call %d after the failure returned %d", kNames[k],
          zcoll_mode_name(mode), again + 2, (int)s);
    const double tol = rep.error_bound + 1e-4 * size * 12 + 1e-6;
    CHECK(err <= tol, "%s %s: call %d after the failure off by %g (bound %g)", kNames[k],
          zcoll_mode_name(mode), again + 2, err, rep.error_bound);
  }
}

int main(int argc, char** argv) {
  const int nonblocking = argc > 1 && strcmp(argv[1], "nonblocking") == 0;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, nonblocking ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
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
      if (nonblocking) {
        int threaded = 0;
        zcoll_comm_progress(zc, &threaded);
        CHECK(threaded == (provided == MPI_THREAD_MULTIPLE), "progress thread %d", threaded);
        s = failing_pair_nb(zc, k, modes[mi], n, rank, size);
      } else {
        s = one_call(zc, k, n, rank, size, &err);
      }
      int bad = s != ZCOLL_SUCCESS, all_bad = 0, any_bad = 0;
      MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      CHECK(all_bad == any_bad, "%s %s: some ranks failed, others did not (this one: %d)",
            kNames[k], zcoll_mode_name(modes[mi]), (int)s);
      if (rank == victim && any_bad)
        CHECK(s == ZCOLL_ERR_NO_MEMORY, "%s %s: the failing rank returned %d", kNames[k],
              zcoll_mode_name(modes[mi]), (int)s);
      injected += any_bad;
      calls_after_failure(zc, k, modes[mi], n, rank, size, nonblocking);
      CHECK(zcoll_comm_free(zc) == ZCOLL_SUCCESS, "free");
    }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "scratch OOM on rank %d (allocation %d)%s: %d of %d calls failed on every rank, none "
        "hung; the next calls on the same handle correct; %d failures\n",
        victim, nth, nonblocking ? ", nonblocking" : "", injected, kCount * 3, total);
  if (rank == 0 && injected < kCount * 2) {
    fprintf(stderr, "FAIL: only %d injected failures\n", injected);
    total++;
  }
  MPI_Finalize();
  return total ? 1 : 0;
}
