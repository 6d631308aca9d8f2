// est.cc — ns per value of choose_dense_predictor and dense_code_bits (every 2nd value) on
// a file's codes, chunks of 2^18 values copied into a buffer first (hot, as in the encoder).
// g++ -O2 -std=c++17 -mavx2 -I src -I include -I build/include est.cc build/libzcoll_internal.a
//     build/src/core/libzcoll_core.a -fopenmp; run: est FILE ROW PLANE REL
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <vector>
#include "codec/dense_predict.h"
using namespace zcoll;
static double now() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  uint32_t row = atoi(argv[2]), plane = atoi(argv[3]); double rel = atof(argv[4]);
  float mn = *std::min_element(x.begin(), x.end()), mx = *std::max_element(x.begin(), x.end());
  double eb = rel * (mx - mn);
  std::vector<int32_t> q(x.size());
  for (size_t i = 0; i < x.size(); ++i) q[i] = (int32_t)std::lrint(x[i] / (2 * eb));
  DenseShape s; s.row = row; s.plane = plane; s.interp = true;
  const uint32_t C = 1u << 18; uint64_t sink = 0;
  double best1 = 1e9, best2 = 1e9;
  std::vector<int32_t> buf(C);
  for (int rep = 0; rep < 15; ++rep) {
    double a1 = 0, a2 = 0;
    DensePredictor p; p.id = plane ? 4 : 3; p.row = row; p.plane = plane;
    for (size_t a = 0; a + C <= q.size(); a += C) {
      std::copy(q.data() + a, q.data() + a + C, buf.data());
      double t0 = now();
      sink += choose_dense_predictor(buf.data(), C, s).id;
      double t1 = now();
      sink += dense_code_bits(buf.data(), C, p, 2);
      double t2 = now();
      a1 += t1 - t0, a2 += t2 - t1;
    }
    best1 = std::min(best1, a1); best2 = std::min(best2, a2);
  }
  size_t n = q.size() / C * C;
  printf("choose %.3f ns/value  code_bits %.3f ns/value  (%llu)\n", best1 * 1e9 / n, best2 * 1e9 / n, (unsigned long long)sink % 7);
}
