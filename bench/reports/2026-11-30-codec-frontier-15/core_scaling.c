// core_scaling.c KIND THREADS ITERS: ITERS iterations per thread of a loop with no
// memory operands, on THREADS OpenMP threads; prints the aggregate rate (G iterations/s).
// KIND: int (scalar integer chains), avx2int (AVX2 integer add/xor/shuffle chains),
// fma (eight independent AVX2 FMA chains: both FMA pipes busy). Build:
// gcc -O2 -mavx2 -mfma -fopenmp core_scaling.c -o core_scaling
#include <immintrin.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t loop_int(long n, uint64_t seed) {
  uint64_t a = seed, b = 3, c = 5, d = 7;
  for (long i = 0; i < n; i++) {
    a = a * 6364136223846793005ull + 1;
    b ^= b >> 7;
    b += a;
    c = (c << 1) ^ b;
    d += c >> 3;
    __asm__ volatile("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
  }
  return a ^ b ^ c ^ d;
}

static uint64_t loop_avx2int(long n, uint64_t seed) {
  __m256i a = _mm256_set1_epi32((int)seed), b = _mm256_set1_epi32(3), c = _mm256_set1_epi32(5),
          d = _mm256_set1_epi32(9), e = _mm256_set1_epi32(11), f = _mm256_set1_epi32(13);
  const __m256i sh = _mm256_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12, 1, 2,
                                      3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
  for (long i = 0; i < n; i++) {
    a = _mm256_add_epi32(a, b);
    b = _mm256_xor_si256(b, c);
    c = _mm256_shuffle_epi8(c, sh);
    d = _mm256_add_epi32(d, a);
    e = _mm256_xor_si256(e, d);
    f = _mm256_or_si256(_mm256_and_si256(f, e), c);
  }
  __m256i x = _mm256_xor_si256(_mm256_xor_si256(a, b), _mm256_xor_si256(c, d));
  x = _mm256_xor_si256(x, _mm256_xor_si256(e, f));
  return (uint64_t)_mm256_extract_epi32(x, 0);
}

static uint64_t loop_fma(long n, uint64_t seed) {
  __m256 a[8];
  for (int j = 0; j < 8; j++) a[j] = _mm256_set1_ps(1.0001f + (float)(seed + j) * 1e-6f);
  const __m256 m = _mm256_set1_ps(0.99999f), c = _mm256_set1_ps(1e-7f);
  for (long i = 0; i < n; i++)
    for (int j = 0; j < 8; j++) a[j] = _mm256_fmadd_ps(a[j], m, c);
  float o[8];
  __m256 s = a[0];
  for (int j = 1; j < 8; j++) s = _mm256_add_ps(s, a[j]);
  _mm256_storeu_ps(o, s);
  return (uint64_t)o[0];
}

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const char* kind = argv[1];
  const int threads = atoi(argv[2]);
  const long iters = atol(argv[3]);
  uint64_t sink = 0;
  const double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads) reduction(^ : sink)
  {
    const uint64_t seed = (uint64_t)omp_get_thread_num() + 1;
    if (!strcmp(kind, "int")) sink ^= loop_int(iters, seed);
    else if (!strcmp(kind, "avx2int")) sink ^= loop_avx2int(iters, seed);
    else sink ^= loop_fma(iters, seed);
  }
  const double t = omp_get_wtime() - t0;
  printf("%s %d %.4f %.4f\n", kind, threads, t, threads * iters / t / 1e9);
  return sink == 42;
}
