// dense_hom_cost.cc FILE REL ROUNDS — what a homomorphic add of two dense streams
// would have to beat: one thread, CPU time, the calls interleaved per round.
// a = the field, b = the field shifted by one value (as the frontier's hom add);
// per round, each call repeated to about 0.1 s; prints one JSON object with the
// rounds' GB/s (of one input's values) of
//   compress: zcoll_compress of a (dense codec)
//   decompress: zcoll_decompress of a
//   decompress_acc: zcoll_decompress_accumulate of a into b's values (a
//     collective's doc step decodes a received stream into its own sum)
//   doc_combine: zcoll_doc_combine(a, b, SUM), two dense streams into one
// g++ -O2 -std=c++17 -I include -I build/include dense_hom_cost.cc -L build -lzcoll
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "zcoll.h"

static double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: dense_hom_cost FILE REL ROUNDS\n"), 2;
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> a(static_cast<size_t>(f.tellg()) / 4);
  f.seekg(0);
  f.read(reinterpret_cast<char*>(a.data()), static_cast<std::streamsize>(a.size() * 4));
  std::vector<float> b(a.size());
  std::rotate_copy(a.begin(), a.begin() + 1, a.end(), b.begin());
  float mn = INFINITY, mx = -INFINITY;
  for (float v : a)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = std::atof(argv[2]) * (mx - mn);
  p.codec = ZCOLL_CODEC_DENSE;
  const size_t n = a.size(), cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  std::vector<uint8_t> za(cap), zb(cap), zc(cap), zt(cap);
  size_t sa = 0, sb = 0, sc = 0, st = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, a.data(), n, za.data(), cap, &sa, 1) ||
      zcoll_compress(&p, ZCOLL_FLOAT32, b.data(), n, zb.data(), cap, &sb, 1))
    return 1;
  std::vector<float> y(n), acc(n);
  const std::vector<std::pair<std::string, std::function<int()>>> calls = {
      {"compress", [&] { return zcoll_compress(&p, ZCOLL_FLOAT32, a.data(), n, zt.data(), cap, &st, 1); }},
      {"decompress", [&] { return zcoll_decompress(za.data(), sa, y.data(), n, 1); }},
      {"decompress_acc", [&] {
         std::copy(b.begin(), b.end(), acc.begin());  // timed too: a copy is a fraction of a decode
         return zcoll_decompress_accumulate(za.data(), sa, acc.data(), n, 1);
       }},
      {"doc_combine", [&] {
         return zcoll_doc_combine(za.data(), sa, zb.data(), sb, ZCOLL_OP_SUM, zc.data(), cap, &sc, 1);
       }},
  };
  std::vector<int> reps(calls.size());
  for (size_t k = 0; k < calls.size(); ++k) {  // warm up; repeats for ~0.1 s
    const double t0 = cpu_now();
    if (calls[k].second()) return 3;
    const double dt = std::max(cpu_now() - t0, 1e-6);
    reps[k] = std::max(1, static_cast<int>(0.1 / dt));
  }
  std::vector<std::vector<double>> gbps(calls.size());
  const int rounds = std::atoi(argv[3]);
  for (int r = 0; r < rounds; ++r)
    for (size_t k = 0; k < calls.size(); ++k) {
      const double t0 = cpu_now();
      for (int i = 0; i < reps[k]; ++i)
        if (calls[k].second()) return 3;
      gbps[k].push_back(4e-9 * n * reps[k] / (cpu_now() - t0));
    }
  std::printf("{\"file\": \"%s\", \"rel\": %s, \"n\": %zu, \"ratio\": %.4f, \"doc_ratio\": %.4f", argv[1],
              argv[2], n, 4.0 * n / sa, 4.0 * n / sc);
  for (size_t k = 0; k < calls.size(); ++k) {
    std::printf(", \"%s\": [", calls[k].first.c_str());
    for (size_t r = 0; r < gbps[k].size(); ++r) std::printf("%s%.4f", r ? ", " : "", gbps[k][r]);
    std::printf("]");
  }
  std::printf("}\n");
}
