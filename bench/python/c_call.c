/* c_call.c — the C side of bench/python/overhead.py: per-call time of
 * zcoll_compress and zcoll_decompress (one thread) on the first n values of a
 * float32 file, buffers allocated once. Prints one JSON object per size.
 *   c_call FILE ABS_BOUND CALLS:BYTES [CALLS:BYTES ...]                       */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "zcoll.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int k) {
  qsort(v, (size_t)k, sizeof *v, cmp);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: c_call FILE ABS_BOUND CALLS:BYTES...\n");
    return 2;
  }
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 1;
  fseek(f, 0, SEEK_END);
  size_t total = (size_t)ftell(f) / sizeof(float);
  fseek(f, 0, SEEK_SET);
  float* x = malloc(total * sizeof *x);
  if (!x || fread(x, sizeof *x, total, f) != total) return 1;
  fclose(f);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = atof(argv[2]);
  for (int a = 3; a < argc; ++a) {
    int calls = 0;
    size_t bytes = 0;
    if (sscanf(argv[a], "%d:%zu", &calls, &bytes) != 2 || calls < 1) return 2;
    size_t n = bytes / sizeof(float);
    if (n > total) return 2;
    size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32), size = 0;
    char* s = malloc(cap);
    float* y = malloc(n * sizeof *y);
    double* tc = malloc((size_t)calls * sizeof *tc);
    double* td = malloc((size_t)calls * sizeof *td);
    if (!s || !y || !tc || !td) return 1;
    /* one warm-up call of each */
    if (zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s, cap, &size, 1) != ZCOLL_SUCCESS) return 1;
    if (zcoll_decompress(s, size, y, n, 1) != ZCOLL_SUCCESS) return 1;
    for (int i = 0; i < calls; ++i) {
      double t0 = now();
      zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s, cap, &size, 1);
      double t1 = now();
      zcoll_decompress(s, size, y, n, 1);
      double t2 = now();
      tc[i] = t1 - t0;
      td[i] = t2 - t1;
    }
    printf(
        "{\"bytes\": %zu, \"calls\": %d, \"stream\": %zu, \"compress_s\": %.9g, "
        "\"decompress_s\": %.9g}\n",
        bytes, calls, size, median(tc, calls), median(td, calls));
    free(s), free(y), free(tc), free(td);
  }
  free(x);
  return 0;
}
