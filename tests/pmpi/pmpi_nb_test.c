/* pmpi_nb_test.c — an ordinary MPI program (it knows nothing of zcoll) with
 * nonblocking collectives in flight together: MPI_Iallreduce (float, large;
 * and int and double, small, which the shim never compresses),
 * MPI_Ireduce_scatter_block, MPI_Ireduce_scatter, MPI_Ireduce, MPI_Iallgather
 * and MPI_Ibcast, with computation between the starts and the completion
 * (MPI_Test polling, MPI_Wait, MPI_Waitall). Run by tests/pmpi with and
 * without libzcoll_pmpi.so preloaded; each result is compared with the same
 * nonblocking call made through PMPI_* (the MPI library itself):
 *
 *   pmpi_nb_test exact [single]   every result bit-identical to the library's
 *   pmpi_nb_test lossy            the large float calls within the bound
 *                                 ZCOLL_ERROR_BOUND (abs, ZCOLL_BOUND=result),
 *                                 at least one not bit-identical (the shim ran);
 *                                 the others bit-identical
 *
 * "single" initializes MPI with MPI_THREAD_SINGLE (MPI_Init_thread): without
 * MPI_THREAD_MULTIPLE the shim passes every nonblocking call through.
 * Prints "digest <hex>" of every result.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size, g_lossy, g_failures, g_differ;
static uint64_t g_digest = 1469598103934665603ull;
static double g_eb;

/* Whether the n bytes at a and at b are equal: bit-exact values (NaN payloads, the
 * sign of zero), which == on floating-point values does not compare. */
static int same_bytes(const void* a, const void* b, size_t n) { return memcmp(a, b, n) == 0; }

static void digest(const void* p, size_t n) {
  const unsigned char* b = (const unsigned char*)p;
  for (size_t i = 0; i < n; ++i) g_digest = (g_digest ^ b[i]) * 1099511628211ull;
}

static void fill(float* x, size_t n, int rank, int salt) {
  for (size_t i = 0; i < n; ++i)
    x[i] = (float)(10.0 * sin(0.001 * (double)i + 0.3 * rank + salt) + 0.01 * (double)(i % 7));
}

/* got against ref (n floats): bit-identical (exact) or within the bound plus
 * the rounding allowance of a sum over the ranks of values below 11. */
static void check_f(const char* what, const float* got, const float* ref, size_t n, int exact) {
  if (n == 0) return;
  digest(got, n * sizeof(float));
  const double u = ldexp(1.0, -24);
  double worst = 0;
  int bad = 0, same = memcmp(got, ref, n * sizeof(float)) == 0;
  for (size_t i = 0; i < n; ++i) {
    const double e = fabs((double)got[i] - (double)ref[i]);
    const double allowed =
        exact ? 0 : g_eb + 2.0 * (g_size + 1) * u * g_size * 11.0 + 4.0 * u * fabs((double)ref[i]);
    if (e > allowed || isnan(got[i])) bad = 1;
    if (e > worst) worst = e;
  }
  if (exact && !same) bad = 1;
  if (!same) g_differ = 1;
  if (bad) {
    ++g_failures;
    fprintf(stderr, "rank %d: %s: %s (max |error| %.3g, bound %.3g)\n", g_rank, what,
            exact ? "not bit-identical" : "out of bound", worst, g_eb);
  }
}

static volatile double g_sink;
static void compute(void) {
  double s = 0;
  for (int i = 0; i < 3000000; ++i) s += sqrt((double)i);
  g_sink = s;
}

/* The buffers of the test: inputs, the program's results and the references. */
typedef struct {
  size_t n, k, total;
  int root;
  float *x, *y, *yr, *xs, *rs, *rsr, *ag, *agr, *bc, *bcr, *rd, *rdr, *xv, *rv, *rvr;
  int* counts;
  int ix[5], iy[5], iyr[5];
  double dx[7], dy[7], dyr[7];
} Bufs;

static void make_bufs(Bufs* b, int P, int R) {
  const size_t n = b->n = 300000, k = b->k = 100000;
  b->x = malloc(n * sizeof(float)), b->y = malloc(n * sizeof(float));
  b->yr = malloc(n * sizeof(float)), b->xs = malloc(k * P * sizeof(float));
  b->rs = malloc(k * sizeof(float)), b->rsr = malloc(k * sizeof(float));
  b->ag = malloc(k * P * sizeof(float)), b->agr = malloc(k * P * sizeof(float));
  b->bc = malloc(n * sizeof(float)), b->bcr = malloc(n * sizeof(float));
  b->rd = malloc(n * sizeof(float)), b->rdr = malloc(n * sizeof(float));
  b->counts = malloc(P * sizeof(int));
  b->total = 0;
  for (int p = 0; p < P; ++p) {
    b->counts[p] = (int)(k / 2 + 1000 * (size_t)p);
    b->total += (size_t)b->counts[p];
  }
  b->xv = malloc(b->total * sizeof(float)), b->rv = malloc(k * sizeof(float) * 2);
  b->rvr = malloc(k * sizeof(float) * 2);
  fill(b->x, n, R, 1);
  fill(b->xs, k * P, R, 2);
  fill(b->xv, b->total, R, 3);
  b->root = P - 1;
  fill(b->bc, n, b->root, 4);
  memcpy(b->bcr, b->bc, n * sizeof(float));
  if (R != b->root) {
    memset(b->bc, 0, n * sizeof(float));
    memset(b->bcr, 0, n * sizeof(float));
  }
  for (int i = 0; i < 5; ++i) b->ix[i] = (R + 1) * (i + 1);
  for (int i = 0; i < 7; ++i) b->dx[i] = 0.1 * (R + 1) * (i + 1);
}

static void free_bufs(Bufs* b) {
  free(b->x), free(b->y), free(b->yr), free(b->xs), free(b->rs), free(b->rsr), free(b->ag);
  free(b->agr), free(b->bc), free(b->bcr), free(b->rd), free(b->rdr), free(b->counts);
  free(b->xv), free(b->rv), free(b->rvr);
}

/* the references: the MPI library's own nonblocking calls */
static void references(Bufs* b) {
  const int n = (int)b->n, k = (int)b->k;
  MPI_Request ref[9];
  PMPI_Iallreduce(b->x, b->yr, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &ref[0]);
  PMPI_Ireduce_scatter_block(b->xs, b->rsr, k, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &ref[1]);
  PMPI_Ireduce_scatter(b->xv, b->rvr, b->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &ref[2]);
  PMPI_Ireduce(b->x, b->rdr, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD, &ref[3]);
  PMPI_Iallgather(b->x, k, MPI_FLOAT, b->agr, k, MPI_FLOAT, MPI_COMM_WORLD, &ref[4]);
  PMPI_Ibcast(b->bcr, n, MPI_FLOAT, b->root, MPI_COMM_WORLD, &ref[5]);
  PMPI_Iallreduce(b->ix, b->iyr, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ref[6]);
  PMPI_Iallreduce(b->dx, b->dyr, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &ref[7]);
  ref[8] = MPI_REQUEST_NULL;
  MPI_Status sts[9];
  PMPI_Waitall(9, ref, sts);
}

/* the program's calls, all in flight together, computation between; the
 * first completed by polling, the last by MPI_Wait, the rest together */
static void program_calls(Bufs* b, int R) {
  const int n = (int)b->n, k = (int)b->k;
  MPI_Request q[8];
  MPI_Iallreduce(b->x, b->y, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
  MPI_Ireduce_scatter_block(b->xs, b->rs, k, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q[1]);
  compute();
  MPI_Ireduce_scatter(b->xv, b->rv, b->counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &q[2]);
  MPI_Ireduce(b->x, b->rd, n, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD, &q[3]);
  MPI_Iallgather(b->x, k, MPI_FLOAT, b->ag, k, MPI_FLOAT, MPI_COMM_WORLD, &q[4]);
  if (R != b->root) memset(b->bc, 0, b->n * sizeof(float));
  MPI_Ibcast(b->bc, n, MPI_FLOAT, b->root, MPI_COMM_WORLD, &q[5]);
  MPI_Iallreduce(b->ix, b->iy, 5, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[6]);
  MPI_Iallreduce(b->dx, b->dy, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q[7]);
  compute();
  for (int done = 0; !done;) MPI_Test(&q[0], &done, MPI_STATUS_IGNORE);
  MPI_Status st, sts[9];
  MPI_Wait(&q[7], &st);
  MPI_Waitall(6, &q[1], sts);
  for (int i = 0; i < 8; ++i)
    if (q[i] != MPI_REQUEST_NULL) {
      ++g_failures;
      fprintf(stderr, "rank %d: request %d not freed by its completion\n", R, i);
    }
}

/* the program's results against the references */
static void check_results(Bufs* b, int P, int R) {
  const int lossy = g_lossy;
  const size_t n = b->n, k = b->k;
  check_f("MPI_Iallreduce float", b->y, b->yr, n, !lossy);
  check_f("MPI_Ireduce_scatter_block", b->rs, b->rsr, k, !lossy);
  check_f("MPI_Ireduce_scatter", b->rv, b->rvr, (size_t)b->counts[R], !lossy);
  if (R == 0) check_f("MPI_Ireduce", b->rd, b->rdr, n, !lossy);
  check_f("MPI_Iallgather", b->ag, b->agr, k * P, !lossy);
  check_f("MPI_Ibcast", b->bc, b->bcr, n, !lossy || R == b->root);
  digest(b->iy, sizeof b->iy);
  digest(b->dy, sizeof b->dy);
  if (!same_bytes(b->iy, b->iyr, sizeof b->iy) || !same_bytes(b->dy, b->dyr, sizeof b->dy)) {
    ++g_failures;
    fprintf(stderr, "rank %d: the int / double MPI_Iallreduce differ\n", R);
  }
}

int main(int argc, char** argv) {
  g_lossy = argc > 1 && strcmp(argv[1], "lossy") == 0;
  const int single = argc > 2 && strcmp(argv[2], "single") == 0;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char* eb = getenv("ZCOLL_ERROR_BOUND");
  g_eb = eb ? atof(eb) : 0;
  const int P = g_size, R = g_rank;
  Bufs b;
  make_bufs(&b, P, R);
  references(&b);
  for (int round = 0; round < 2; ++round) {
    program_calls(&b, R);
    check_results(&b, P, R);
  }
  int fails = 0, differ = 0;
  PMPI_Allreduce(&g_failures, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&g_differ, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_lossy && P > 1 && !differ && R == 0) {
    fprintf(stderr, "FAIL: lossy, but every result is bit-identical (did the shim run?)\n");
    ++fails;
  }
  uint64_t all[64];
  PMPI_Gather(&g_digest, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (R == 0) {
    uint64_t d = 1469598103934665603ull;
    for (int p = 0; p < P && p < 64; ++p) d = (d ^ all[p]) * 1099511628211ull;
    printf("pmpi_nb_test %s%s: %d ranks, thread level %s, %d failures, digest %016llx\n",
           g_lossy ? "lossy" : "exact", single ? " single" : "", P,
           provided == MPI_THREAD_MULTIPLE ? "multiple" : "below multiple", fails,
           g_lossy ? 0ull : (unsigned long long)d);
  }
  free_bufs(&b);
  MPI_Finalize();
  return fails ? 1 : 0;
}
