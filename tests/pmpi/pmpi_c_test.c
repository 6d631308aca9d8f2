/* pmpi_c_test.c — an ordinary MPI program (it knows nothing of zcoll) with
 * small and large reductions and data movement, run by tests/pmpi with and
 * without libzcoll_pmpi.so preloaded. Each result is compared with the same
 * call made through PMPI_* (the MPI library itself, never the shim):
 *
 *   pmpi_c_test exact   every result bit-identical to the library's
 *                       (no shim, or the shim loaded but off)
 *   pmpi_c_test lossy   small, integer, MAXLOC, double and Pcontrol(0)
 *                       calls and those on the communicator the name pattern
 *                       excludes bit-identical; large float calls within the
 *                       bound ZCOLL_ERROR_BOUND (abs, ZCOLL_BOUND=result) and
 *                       at least one of them not bit-identical (so the
 *                       shim really ran)
 *
 * Both print "digest <hex>" of every result, which the test compares between
 * a run without the shim and one with it loaded but off.
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

/* Compare got with ref (n floats). exact: bit-identical required; else within
 * the bound plus rounding allowance. */
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

/* An attribute copy callback that makes a (small) collective call: MPI_Comm_dup
 * runs it, also when the shim duplicates MPI_COMM_WORLD for its handle, from
 * inside the shim's MPI_Allreduce. The shim's re-entrancy guard must pass that
 * nested call straight to MPI (the report counts it). */
static int g_copies;
static int copy_with_collective(MPI_Comm old, int keyval, void* extra, void* in, void* out,
                                int* flag) {
  (void)keyval, (void)extra, (void)in, (void)out;
  int one = 1, n = 0;
  MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, old);
  int size = 0;
  MPI_Comm_size(old, &size);
  if (n != size) ++g_failures;
  ++g_copies;
  *flag = 0; /* the duplicate does not get the attribute */
  return MPI_SUCCESS;
}

/* small Allreduce: exact always */
static void allreduce_floats(float* a, float* b, float* r, size_t small, size_t large) {
  const int lossy = g_lossy;
  fill(a, small, g_rank, 1);
  MPI_Allreduce(a, b, (int)small, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(a, r, (int)small, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  check_f("small allreduce", b, r, small, 1);

  /* scalar: a norm */
  float s = (float)(g_rank + 1) * 0.1f, s_out, s_ref;
  MPI_Allreduce(&s, &s_out, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&s, &s_ref, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  check_f("scalar allreduce", &s_out, &s_ref, 1, 1);

  /* large Allreduce, then in place */
  fill(a, large, g_rank, 2);
  MPI_Allreduce(a, b, (int)large, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(a, r, (int)large, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  check_f("large allreduce", b, r, large, !lossy);
  memcpy(b, a, large * sizeof(float));
  MPI_Allreduce(MPI_IN_PLACE, b, (int)large, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  check_f("large allreduce in place", b, r, large, !lossy);

  /* large but MAX (not in ZCOLL_PMPI_OPS by default): exact */
  MPI_Allreduce(a, b, (int)large, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  PMPI_Allreduce(a, r, (int)large, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  check_f("large allreduce max", b, r, large, 1);
}

/* large integer and double: exact (double not in ZCOLL_PMPI_TYPES by default) */
static void int_and_double(float* a, float* b, float* r, size_t large) {
  int* ia = (int*)a;
  int* ib = (int*)b;
  int* ir = (int*)r;
  for (size_t i = 0; i < large; ++i) ia[i] = (int)(i * 7 + (size_t)g_rank);
  MPI_Allreduce(ia, ib, (int)large, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(ia, ir, (int)large, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (memcmp(ib, ir, large * sizeof(int)) != 0) {
    ++g_failures;
    fprintf(stderr, "rank %d: int allreduce not exact\n", g_rank);
  }
  digest(ib, large * sizeof(int));
  double* da = (double*)a;
  double* db = (double*)b;
  double* dr = (double*)r;
  const size_t nd = large / 2;
  for (size_t i = 0; i < nd; ++i) da[i] = sin(0.002 * (double)i + g_rank);
  MPI_Allreduce(da, db, (int)nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(da, dr, (int)nd, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (!same_bytes(db, dr, nd * sizeof(double))) {
    ++g_failures;
    fprintf(stderr, "rank %d: double allreduce not exact\n", g_rank);
  }
  digest(db, nd * sizeof(double));
}

/* MAXLOC on float-int pairs: never touched */
static void maxloc(float* a, float* b, float* r, size_t large) {
  struct {
    float v;
    int i;
  }* p = (void*)a, *q = (void*)b, *w = (void*)r;
  const size_t np = large / 2;
  for (size_t i = 0; i < np; ++i)
    p[i].v = (float)((i * 13 + (size_t)g_rank * 5) % 101), p[i].i = g_rank;
  MPI_Allreduce(p, q, (int)np, MPI_FLOAT_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  PMPI_Allreduce(p, w, (int)np, MPI_FLOAT_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  if (!same_bytes(q, w, np * sizeof *p)) {
    ++g_failures;
    fprintf(stderr, "rank %d: maxloc not exact\n", g_rank);
  }
}

/* MPI_Pcontrol(0): compression off for the region */
static void pcontrol(float* a, float* b, float* r, size_t large) {
  fill(a, large, g_rank, 3);
  MPI_Pcontrol(0);
  MPI_Allreduce(a, b, (int)large, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Pcontrol(1);
  PMPI_Allreduce(a, r, (int)large, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  check_f("allreduce under Pcontrol(0)", b, r, large, 1);
}

/* the other collectives (compressed when ZCOLL_PMPI_COLLS lists them) */
static void other_collectives(float* a, float* b, float* r, size_t large, size_t n_rsb) {
  const int lossy = g_lossy;
  const int all = getenv("ZCOLL_PMPI_COLLS") && strstr(getenv("ZCOLL_PMPI_COLLS"), "all");
  const int lossy_all = lossy && all;
  fill(a, large, g_rank, 4);
  MPI_Reduce(a, b, (int)large, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(a, r, (int)large, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (g_rank == 0) check_f("reduce", b, r, large, !lossy_all);
  fill(a, n_rsb * (size_t)g_size, g_rank, 5);
  MPI_Reduce_scatter_block(a, b, (int)n_rsb, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Reduce_scatter_block(a, r, (int)n_rsb, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  check_f("reduce_scatter_block", b, r, n_rsb, !lossy_all);
  {
    int* counts = malloc(sizeof(int) * (size_t)g_size);
    for (int i = 0; i < g_size; ++i) counts[i] = (int)n_rsb + 17 * i;
    MPI_Reduce_scatter(a, b, counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    PMPI_Reduce_scatter(a, r, counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    check_f("reduce_scatter", b, r, (size_t)counts[g_rank], !lossy_all);
    free(counts);
  }
  fill(a, large, 0, 6); /* root's data */
  if (g_rank == 0) memcpy(b, a, large * sizeof(float));
  MPI_Bcast(b, (int)large, MPI_FLOAT, 0, MPI_COMM_WORLD);
  check_f("bcast", b, a, large, !lossy_all);
  fill(a, n_rsb, g_rank, 7);
  MPI_Allgather(a, (int)n_rsb, MPI_FLOAT, b, (int)n_rsb, MPI_FLOAT, MPI_COMM_WORLD);
  PMPI_Allgather(a, (int)n_rsb, MPI_FLOAT, r, (int)n_rsb, MPI_FLOAT, MPI_COMM_WORLD);
  check_f("allgather", b, r, n_rsb * (size_t)g_size, !lossy_all);
  fill(a, n_rsb * (size_t)g_size, 0, 8);
  MPI_Scatter(a, (int)n_rsb, MPI_FLOAT, b, (int)n_rsb, MPI_FLOAT, g_size - 1, MPI_COMM_WORLD);
  PMPI_Scatter(a, (int)n_rsb, MPI_FLOAT, r, (int)n_rsb, MPI_FLOAT, g_size - 1, MPI_COMM_WORLD);
  check_f("scatter", b, r, n_rsb, !lossy_all);
  fill(a, n_rsb, g_rank, 9);
  MPI_Gather(a, (int)n_rsb, MPI_FLOAT, b, (int)n_rsb, MPI_FLOAT, 0, MPI_COMM_WORLD);
  PMPI_Gather(a, (int)n_rsb, MPI_FLOAT, r, (int)n_rsb, MPI_FLOAT, 0, MPI_COMM_WORLD);
  if (g_rank == 0) check_f("gather", b, r, n_rsb * (size_t)g_size, !lossy_all);
}

/* communicators by name: "exact_sub" is left alone by the test's pattern
 * ("[MZz]*"), "zwork" is compressed; both freed before MPI_Finalize (the
 * attribute's delete callback frees zwork's handle) */
static void named_comms(float* a, float* b, float* r, size_t large) {
  const int lossy = g_lossy;
  MPI_Comm work, sub;
  MPI_Comm_dup(MPI_COMM_WORLD, &work);
  MPI_Comm_set_name(work, "zwork");
  MPI_Comm_split(MPI_COMM_WORLD, 0, g_size - g_rank, &sub);
  MPI_Comm_set_name(sub, "exact_sub");
  fill(a, large, g_rank, 10);
  MPI_Allreduce(a, b, (int)large, MPI_FLOAT, MPI_SUM, sub);
  PMPI_Allreduce(a, r, (int)large, MPI_FLOAT, MPI_SUM, sub);
  check_f("allreduce on exact_sub", b, r, large, 1);
  MPI_Allreduce(a, b, (int)large, MPI_FLOAT, MPI_SUM, work);
  PMPI_Allreduce(a, r, (int)large, MPI_FLOAT, MPI_SUM, work);
  check_f("allreduce on zwork", b, r, large, !lossy);
  MPI_Comm_free(&sub);
  MPI_Comm_free(&work);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  g_lossy = argc > 1 && strcmp(argv[1], "lossy") == 0;
  const char* eb = getenv("ZCOLL_ERROR_BOUND");
  g_eb = eb ? atof(eb) : 0;
  const int lossy = g_lossy;
  int keyval;
  MPI_Comm_create_keyval(copy_with_collective, MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, &g_copies);
  const size_t small = 1000, large = ((size_t)1 << 20) + 3; /* 4 MiB + 12 bytes, odd */
  const size_t n_rsb = (size_t)(300001); /* per rank: not a multiple of anything */
  float* a = malloc(sizeof(float) * large * (size_t)g_size);
  float* b = malloc(sizeof(float) * large * (size_t)g_size);
  float* r = malloc(sizeof(float) * large * (size_t)g_size);

  allreduce_floats(a, b, r, small, large);
  int_and_double(a, b, r, large);
  maxloc(a, b, r, large);
  pcontrol(a, b, r, large);
  other_collectives(a, b, r, large, n_rsb);
  named_comms(a, b, r, large);

  MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
  MPI_Comm_free_keyval(&keyval);
  int fails = 0, differ = 0;
  PMPI_Allreduce(&g_failures, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&g_differ, &differ, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (lossy && !differ) {
    ++fails;
    if (g_rank == 0)
      fprintf(stderr, "lossy run: every result bit-identical: the shim did not run\n");
  }
  if (g_rank == 0) printf("digest %016llx\n", (unsigned long long)g_digest);
  if (g_rank == 0) printf("%s: %d failures\n", fails ? "FAIL" : "OK", fails);
  free(a);
  free(b);
  free(r);
  MPI_Finalize();
  return fails ? 1 : 0;
}
