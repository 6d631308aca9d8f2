/* scal.c FILE.f32 REL ITER — wall-clock minimum over ITER calls of decompress, decompress
 * accumulate and hom add with 1 and 2 threads, and of memcpy of the same bytes by 1 and 2
 * threads (each copying half); calls interleaved. The minimum is the run that found both
 * cores free on a shared machine. Public API only. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "zcoll.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define CK(x) do { zcoll_status s_ = (x); if (s_) { fprintf(stderr, "%s: %s\n", #x, zcoll_last_error()); exit(1); } } while (0)
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); size_t n = ftell(f) / 4; rewind(f);
  float* x = malloc(n * 4); if (fread(x, 4, n, f) != n) return 2; fclose(f);
  double rel = atof(argv[2]); int iter = atoi(argv[3]);
  size_t dims[3] = {0}, nd = 0; const char* u = strrchr(argv[1], '_');
  for (const char* q = u ? u + 1 : ""; nd < 3 && *q >= '0' && *q <= '9'; ++nd) { char* e; dims[nd] = strtoul(q, &e, 10); q = *e == 'x' ? e + 1 : e; }
  size_t na; float *a = x, *b;
  if (nd >= 3) { na = dims[0] / 2 * (n / dims[0]); b = x + na; } else if (nd == 2) { na = n - dims[1]; b = x + dims[1]; } else { na = n / 2; b = x + na; }
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER; double eb;
  p.eb_mode = ZCOLL_EB_REL; p.error_bound = rel; CK(zcoll_resolve_error_bound(&p, ZCOLL_FLOAT32, x, n, &eb, 1));
  p.eb_mode = ZCOLL_EB_ABS; p.error_bound = eb;
  size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32), ns, nsa, nsb, nsh;
  unsigned char *s = malloc(cap), *sa = malloc(cap), *sb = malloc(cap), *sh = malloc(cap);
  CK(zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s, cap, &ns, 1));
  CK(zcoll_compress(&p, ZCOLL_FLOAT32, a, na, sa, cap, &nsa, 1));
  CK(zcoll_compress(&p, ZCOLL_FLOAT32, b, na, sb, cap, &nsb, 1));
  float* out = calloc(n, 4); float* cp = calloc(n, 4);
  const char* nm[8] = {"memcpy", "decompress", "decompress_acc", "hom_add"};
  double best[4][3]; for (int i = 0; i < 4; ++i) best[i][1] = best[i][2] = 1e30;
  for (int it = 0; it < iter; ++it)
    for (int th = 1; th <= 2; ++th) {
      double t0 = now();
#pragma omp parallel num_threads(th)
      { int t = omp_get_thread_num(); size_t lo = n * t / th, hi = n * (t + 1) / th; memcpy(cp + lo, x + lo, (hi - lo) * 4); }
      double t1 = now(); CK(zcoll_decompress(s, ns, out, n, th));
      double t2 = now(); CK(zcoll_decompress_accumulate(s, ns, out, n, th));
      double t3 = now(); CK(zcoll_hom_add(sa, nsa, sb, nsb, sh, cap, &nsh, NULL, th));
      double t4 = now(), d[4] = {t1 - t0, t2 - t1, t3 - t2, t4 - t3};
      for (int i = 0; i < 4; ++i) if (d[i] < best[i][th]) best[i][th] = d[i];
    }
  for (int i = 0; i < 4; ++i) {
    double by = (i == 3 ? na : n) * 4.0;
    printf("%-15s 1thr %6.2f GB/s  2thr %6.2f GB/s  2/1 %.2f\n", nm[i], by / best[i][1] / 1e9, by / best[i][2] / 1e9, best[i][1] / best[i][2]);
  }
  return 0;
}
