// interp_runs.cc — ns per value of predictor 5's step-2 decode runs, scalar and AVX2
// kernels (ChunkKernels::interp_decode_run), linear and cubic, neighbours 1 and 144
// apart, on an array of 2^LOGN fine codes (default 18: a chunk with dims); min of 15.
// g++ -O2 -std=c++17 -I src -I include -I build/include interp_runs.cc \
//     build/libzcoll_internal.a build/src/core/libzcoll_core.a -fopenmp
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>
#include "codec/chunk_codec.h"
#include "codec/dense_interp.h"
using namespace zcoll;
static double now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main() {
  const uint32_t len = 1u << atoi(getenv("LOGN") ? getenv("LOGN") : "18");
  std::vector<int32_t> v(len);
  std::vector<uint32_t> r(len);
  std::mt19937 g(1);
  for (auto& x : v) x = int32_t(g() % 100000);
  for (auto& x : r) x = g() % 7;
  const ChunkKernels* ks[2] = {&scalar_kernels(), avx2_kernels()};
  for (uint32_t off : {1u, 144u})
    for (int cubic = 0; cubic < 2; ++cubic) {
      double best[2] = {1e9, 1e9};
      for (int rep = 0; rep < 15; ++rep)
        for (int k = 0; k < 2; ++k) {
          const uint32_t from = 3 * off + 1, count = (len - 6 * off - 20) / 2;
          double t0 = now();
          ks[k]->interp_decode_run(v.data(), len, from, count, off, cubic, r.data());
          best[k] = std::min(best[k], (now() - t0) / count);
        }
      printf("len %u off %u cubic %d: scalar %.3f avx2 %.3f ns/value (x%.2f)\n", len, off, cubic,
             best[0] * 1e9, best[1] * 1e9, best[0] / best[1]);
    }
}
