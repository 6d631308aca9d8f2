/* vals FILE.f32 REL DTYPE(1..4) CHUNK -> writes decoded bytes (decompress, accumulate,
 * hom add of the two halves, decoded) to stdout */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "zcoll.h"
#define CHECK(c) do { zcoll_status s_ = (c); if (s_ != ZCOLL_SUCCESS) { fprintf(stderr, "%s: %s\n", #c, zcoll_status_string(s_)); exit(1);} } while (0)
static void conv(const float* x, size_t n, int dt, void* out) {
  for (size_t i = 0; i < n; ++i) {
    if (dt == 1) ((float*)out)[i] = x[i];
    else if (dt == 2) ((double*)out)[i] = x[i];
    else { uint32_t u; memcpy(&u, &x[i], 4); ((uint16_t*)out)[i] = dt == 3 ? (uint16_t)(u >> 16) : (uint16_t)(u >> 16 ^ (u >> 3)); }
  }
}
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); fseek(f, 0, SEEK_END); size_t n = ftell(f) / 4; rewind(f);
  float* x = malloc(n * 4); if (fread(x, 4, n, f) != n) return 2; fclose(f);
  double rel = atof(argv[2]); int dt = atoi(argv[3]); unsigned cs = atoi(argv[4]);
  size_t es = zcoll_dtype_size(dt);
  void* xv = malloc(n * es); conv(x, n, dt, xv);
  if (dt == 4) { /* float16 bit patterns: drop NaN/Inf ones */
    uint16_t* h = xv; for (size_t i = 0; i < n; ++i) if ((h[i] & 0x7C00) == 0x7C00) h[i] = 0; }
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER; p.eb_mode = ZCOLL_EB_REL; p.error_bound = rel; p.chunk_size = cs;
  size_t cap = zcoll_compress_bound(n, dt), ns, nsa, nsb, nsh;
  unsigned char *s = malloc(cap), *sa = malloc(cap), *sb = malloc(cap), *sh = malloc(cap);
  CHECK(zcoll_compress(&p, dt, xv, n, s, cap, &ns, 1));
  void* out = malloc(n * es);
  CHECK(zcoll_decompress(s, ns, out, n, 1)); fwrite(out, es, n, stdout);
  memcpy(out, xv, n * es);
  CHECK(zcoll_decompress_accumulate(s, ns, out, n, 1)); fwrite(out, es, n, stdout);
  size_t na = n / 2;
  double eb; CHECK(zcoll_resolve_error_bound(&p, dt, xv, n, &eb, 1));
  p.eb_mode = ZCOLL_EB_ABS; p.error_bound = eb;
  CHECK(zcoll_compress(&p, dt, xv, na, sa, cap, &nsa, 1));
  CHECK(zcoll_compress(&p, dt, (char*)xv + (n - na) * es, na, sb, cap, &nsb, 1));
  if (zcoll_hom_add(sa, nsa, sb, nsb, sh, cap, &nsh, NULL, 1) == ZCOLL_SUCCESS) {
    CHECK(zcoll_decompress(sh, nsh, out, na, 1)); fwrite(out, es, na, stdout);
    fwrite(sh, 1, nsh, stdout);
  }
  return 0;
}
