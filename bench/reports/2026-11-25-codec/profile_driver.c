/* profile_driver.c — one call of each codec operation on one float32 file, each
 * in its own function so that callgrind's inclusive counts split them. Public API
 * only (zcoll.h), so the same source links against any build's libzcoll.so.
 *   profile_driver FILE.f32 REL THREADS [ITER [OP]]
 * OP (default all): value_range, compress_abs, decompress, decompress_accumulate or
 * hom_add; run under callgrind with --toggle-collect='op_*' to count one operation.
 * The hom add's inputs are those of zcoll-codec-bench --hom, from the shape in the
 * file name (<stem>_<d0>x<d1>[x<d2>].f32): 3-D, the two halves along the slowest
 * axis; 2-D, the field without its last row and without its first row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zcoll.h"

static size_t n, na;
static float *x, *a, *b, *out;
static unsigned char *s, *sa, *sb, *sh;
static size_t ns, nsa, nsb, nsh;
static double eb;
static int th;

#define CHECK(call)                                                              \
  do {                                                                           \
    zcoll_status st_ = (call);                                                   \
    if (st_ != ZCOLL_SUCCESS) {                                                  \
      fprintf(stderr, "%s: %s (%s)\n", #call, zcoll_status_string(st_),          \
              zcoll_last_error());                                               \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

__attribute__((noinline)) void op_value_range(void) {
  double mn, mx;
  CHECK(zcoll_value_range(ZCOLL_FLOAT32, x, n, &mn, &mx, th));
}
__attribute__((noinline)) void op_compress_abs(void) {
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  CHECK(zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s, zcoll_compress_bound(n, ZCOLL_FLOAT32), &ns, th));
}
__attribute__((noinline)) void op_decompress(void) {
  CHECK(zcoll_decompress(s, ns, out, n, th));
}
__attribute__((noinline)) void op_decompress_accumulate(void) {
  CHECK(zcoll_decompress_accumulate(s, ns, out, n, th));
}
__attribute__((noinline)) void op_hom_add(void) {
  CHECK(zcoll_hom_add(sa, nsa, sb, nsb, sh, zcoll_compress_bound(na, ZCOLL_FLOAT32), &nsh, NULL, th));
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s FILE.f32 REL THREADS [ITER]\n", argv[0]);
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return perror(argv[1]), 2;
  fseek(f, 0, SEEK_END);
  n = (size_t)ftell(f) / 4;
  rewind(f);
  x = malloc(n * 4);
  if (fread(x, 4, n, f) != n) return 2;
  fclose(f);
  double rel = atof(argv[2]);
  th = atoi(argv[3]);
  int iter = argc > 4 ? atoi(argv[4]) : 1;
  const char* op = argc > 5 ? argv[5] : "all";
  size_t dims[3] = {0, 0, 0}, nd = 0;
  const char* u = strrchr(argv[1], '_');
  for (const char* q = u ? u + 1 : ""; nd < 3 && *q >= '0' && *q <= '9'; ++nd) {
    char* e;
    dims[nd] = strtoul(q, &e, 10);
    q = *e == 'x' ? e + 1 : e;
  }
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_REL;
  p.error_bound = rel;
  CHECK(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT32, x, n, &eb, th));
  if (nd >= 3) {
    na = dims[0] / 2 * (n / dims[0]);
    a = x, b = x + na;
  } else if (nd == 2) {
    na = n - dims[1];
    a = x, b = x + dims[1];
  } else {
    na = n / 2;
    a = x, b = x + na;
  }
  size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  s = malloc(cap), sa = malloc(cap), sb = malloc(cap), sh = malloc(cap);
  out = calloc(n, 4);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  CHECK(zcoll_compress(&p, ZCOLL_FLOAT32, a, na, sa, cap, &nsa, th));
  CHECK(zcoll_compress(&p, ZCOLL_FLOAT32, b, na, sb, cap, &nsb, th));
  CHECK(zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s, cap, &ns, th)); /* for the decoders */
  /* ITER > 1: also the smallest thread CPU time per call (robust on a loaded machine,
   * for the 1-thread case), next to that of memcpy of the same bytes */
  double best[6] = {1e30, 1e30, 1e30, 1e30, 1e30, 1e30};
  const char* names[6] = {"value_range", "compress_abs", "decompress", "decompress_accumulate",
                          "hom_add", "memcpy"};
  float* copy = malloc(n * 4);
#define RUN(k, name)                                                  \
  if (!strcmp(op, "all") || !strcmp(op, #name)) {                     \
    struct timespec t0, t1;                                           \
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);                      \
    op_##name();                                                      \
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);                      \
    double t = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec); \
    if (t < best[k]) best[k] = t;                                     \
  }
  for (int i = 0; i < iter; ++i) {
    RUN(0, value_range);
    RUN(1, compress_abs);
    RUN(2, decompress);
    RUN(3, decompress_accumulate);
    RUN(4, hom_add);
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    memcpy(copy, x, n * 4);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    double t = (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
    if (t < best[5]) best[5] = t;
  }
  if (iter > 1)
    for (int k = 0; k < 6; ++k)
      if (best[k] < 1e30) {
        const double bytes = (k == 4 ? na : n) * 4.0;
        printf("%-22s %7.3f GB/s (min thread CPU time of %d calls)\n", names[k], bytes / best[k] / 1e9,
               iter);
      }
  printf("n=%zu eb=%.6g ratio=%.3f hom_in=%zu\n", n, eb, (double)n * 4 / ns, na);
  return 0;
}
