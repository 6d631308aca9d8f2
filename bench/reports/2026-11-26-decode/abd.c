/* abd LIBA LIBB FILE REL N ITER: decompress (and accumulate, hom add) timings of two
 * builds loaded side by side (dlmopen), interleaved; min thread CPU time each. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "zcoll.h"
typedef zcoll_status (*comp_t)(const zcoll_params*, zcoll_dtype, const void*, size_t, void*, size_t, size_t*, int);
typedef zcoll_status (*dec_t)(const void*, size_t, void*, size_t, int);
typedef zcoll_status (*hom_t)(const void*, size_t, const void*, size_t, void*, size_t, size_t*, zcoll_hom_stats*, int);
typedef size_t (*bound_t)(size_t, zcoll_dtype);
static double now(void) { struct timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  void* h[2]; dec_t dec[2], acc[2]; hom_t hom[2];
  for (int k = 0; k < 2; ++k) {
    h[k] = dlmopen(LM_ID_NEWLM, argv[1 + k], RTLD_NOW | RTLD_LOCAL);
    if (!h[k]) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    dec[k] = (dec_t)dlsym(h[k], "zcoll_decompress"); acc[k] = (dec_t)dlsym(h[k], "zcoll_decompress_accumulate");
    hom[k] = (hom_t)dlsym(h[k], "zcoll_hom_add");
  }
  comp_t comp = (comp_t)dlsym(h[0], "zcoll_compress"); bound_t bound = (bound_t)dlsym(h[0], "zcoll_compress_bound");
  FILE* f = fopen(argv[3], "rb"); fseek(f, 0, SEEK_END); size_t n = ftell(f) / 4; rewind(f);
  float* x = malloc(n * 4); if (fread(x, 4, n, f) != n) return 2; fclose(f);
  size_t lim = strtoul(argv[5], 0, 10); if (lim && lim < n) n = lim;
  int iter = atoi(argv[6]);
  float lo = x[0], hi = x[0]; for (size_t i = 0; i < n; ++i) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i]; }
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER; p.eb_mode = ZCOLL_EB_ABS; p.error_bound = atof(argv[4]) * (hi - lo);
  size_t cap = bound(n, ZCOLL_FLOAT32), ns, na = n / 2, nsa, nsb, nsh;
  unsigned char *s = malloc(cap), *sa = malloc(cap), *sb = malloc(cap), *sh = malloc(cap);
  comp(&p, ZCOLL_FLOAT32, x, n, s, cap, &ns, 1);
  comp(&p, ZCOLL_FLOAT32, x, na, sa, cap, &nsa, 1);
  comp(&p, ZCOLL_FLOAT32, x + na, na, sb, cap, &nsb, 1);
  float* out = malloc(n * 4); float* cp = malloc(n * 4);
  double best[2][3] = {{1e30, 1e30, 1e30}, {1e30, 1e30, 1e30}}, bm = 1e30;
  for (int i = 0; i < iter; ++i) {
    for (int k0 = 0; k0 < 2; ++k0) {
      int k = (i & 1) ? 1 - k0 : k0;
      double t = now(); dec[k](s, ns, out, n, 1); t = now() - t; if (t < best[k][0]) best[k][0] = t;
      t = now(); acc[k](s, ns, out, n, 1); t = now() - t; if (t < best[k][1]) best[k][1] = t;
      t = now(); hom[k](sa, nsa, sb, nsb, sh, cap, &nsh, NULL, 1); t = now() - t; if (t < best[k][2]) best[k][2] = t;
    }
    double t = now(); memcpy(cp, x, n * 4); t = now() - t; if (t < bm) bm = t;
  }
  printf("ratio %.2f  memcpy %.2f GB/s\n", (double)n * 4 / ns, n * 4 / bm / 1e9);
  const char* nm[3] = {"decompress", "accumulate", "hom_add"};
  for (int j = 0; j < 3; ++j) {
    double by = (j == 2 ? na : n) * 4.0;
    printf("%-11s A %6.3f  B %6.3f GB/s  B/A %.3f  (x memcpy A %.2f B %.2f)\n", nm[j], by / best[0][j] / 1e9, by / best[1][j] / 1e9,
           best[0][j] / best[1][j], by / best[0][j] / (n * 4 / bm), by / best[1][j] / (n * 4 / bm));
  }
  return 0;
}
