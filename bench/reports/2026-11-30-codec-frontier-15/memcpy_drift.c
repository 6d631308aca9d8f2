// memcpy_drift.c N COUNT: COUNT memcpys of N bytes, each after reading a 96 MiB
// buffer (as zcoll-codec-bench --cold does); prints "seconds_since_start GB/s" per copy.
// How memcpy's rate moves over time on one machine, with nothing else changing.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const size_t n = strtoul(argv[1], NULL, 10);
  const int count = atoi(argv[2]);
  char *src = malloc(n), *dst = malloc(n);
  const size_t evict = (size_t)96 << 20;
  volatile long* e = malloc(evict);
  if (!src || !dst || !e) return 1;
  memset(src, 1, n);
  memset(dst, 2, n);
  for (size_t i = 0; i < evict / 8; i++) e[i] = (long)i;
  const double t0 = now();
  for (int k = 0; k < count; k++) {
    long sum = 0;
    for (size_t i = 0; i < evict / 8; i += 8) sum += e[i];  // a load per 64-byte line
    const double a = now();
    memcpy(dst, src, n);
    const double b = now();
    printf("%.4f %.3f\n", a - t0, n / (b - a) / 1e9);
    if (sum == 42) puts("");
  }
  return dst[5] == 0;
}
