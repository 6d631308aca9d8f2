/* Round trip through the installed library, in C (the header must be C11-clean). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <zcoll.h>
#include <zcoll_version.h>

int main(void) {
  enum { N = 5000 };
  float x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = (float)sin(i * 0.01) * 10.0f;
  int version = 0;
  if (zcoll_get_version(&version) != ZCOLL_SUCCESS || version != ZCOLL_VERSION_CODE) {
    fprintf(stderr, "zcoll_get_version: %d, header %d\n", version, ZCOLL_VERSION_CODE);
    return 1;
  }
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-3;
  size_t cap = zcoll_compress_bound(N, ZCOLL_FLOAT32), size = 0;
  unsigned char* buf = malloc(cap);
  if (!buf) return 1;
  zcoll_status s = zcoll_compress(&p, ZCOLL_FLOAT32, x, N, buf, cap, &size, 1);
  if (s == ZCOLL_SUCCESS) s = zcoll_decompress(buf, size, y, N, 1);
  if (s != ZCOLL_SUCCESS) {
    fprintf(stderr, "zcoll: %s: %s\n", zcoll_status_string(s), zcoll_last_error());
    return 1;
  }
  for (int i = 0; i < N; ++i)
    if (fabs((double)x[i] - (double)y[i]) > 1e-3) return 1;
  printf("consumer ok: %zu bytes\n", size);
  free(buf);
  return 0;
}
