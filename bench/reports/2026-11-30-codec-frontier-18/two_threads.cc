// two_threads.cc — a 2-thread hom add (or decompression) against one thread, on emptied
// caches and warm: per round, interleaved, the call on 1 and 2 threads after the eviction,
// on 2 threads after the eviction and an empty 2-thread region (the team awake when the
// call starts), 1 and 2 threads right after the same call, and the empty region alone
// after the eviction. Medians and the p10-p90 range, in us.
//   g++ -O2 -fopenmp -std=c++17 -Iinclude -IBUILD/include two_threads.cc -LBUILD -lzcoll
//       -Wl,-rpath,BUILD -o two_threads      (one command)
//   ./two_threads FILE.f32 VALUES_PER_INPUT REL ROUNDS hom|decompress > out.json
#include <omp.h>
#include <zcoll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "probe.h"

namespace {
using probe::compress;
using probe::evict;
using probe::g_sink;
using probe::seconds;
volatile int g_touch;

void empty_region() {
#pragma omp parallel num_threads(2)
  g_touch = g_touch + 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s FILE.f32 VALUES_PER_INPUT REL ROUNDS hom|decompress\n",
                 argv[0]);
    return 1;
  }
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const double rel = std::atof(argv[3]);
  const int rounds = std::atoi(argv[4]);
  const bool hom = std::strcmp(argv[5], "hom") == 0;
  double eb = 0;
  const std::vector<float> x = probe::read_halves(argv[1], n, rel, &eb);
  const auto a = compress(x.data(), n, eb), b = compress(x.data() + n, n, eb);
  std::vector<uint8_t> out(zcoll_compress_bound(n, ZCOLL_FLOAT32));
  std::vector<float> values(n);
  size_t out_size = 0;
  const auto call = [&](int threads) {
    if (hom)
      zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out.data(), out.size(), &out_size,
                    nullptr, threads);
    else
      zcoll_decompress(a.data(), a.size(), values.data(), n, threads);
  };
  call(1), call(2);
  const char* names[] = {"1t_cold", "2t_cold", "2t_cold_team_awake",
                         "1t_warm", "2t_warm", "empty_region_cold"};
  std::vector<double> t[6];
  for (int r = 0; r < rounds; ++r) {
    evict();
    t[0].push_back(seconds([&] { call(1); }));
    evict();
    t[1].push_back(seconds([&] { call(2); }));
    evict();
    empty_region();
    t[2].push_back(seconds([&] { call(2); }));
    call(1);
    t[3].push_back(seconds([&] { call(1); }));
    call(2);
    t[4].push_back(seconds([&] { call(2); }));
    evict();
    t[5].push_back(seconds(empty_region));
  }
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf(
      "{\"file\": \"%s\", \"op\": \"%s\", \"values_per_input\": %zu, \"rel\": %g, "
      "\"rounds\": %d, \"omp_wait_policy\": \"%s\",\n \"cases_us\": {",
      argv[1], argv[5], n, rel, rounds, policy ? policy : "(default)");
  probe::print_cases(names, t, 6);
  return g_sink == 12345 ? 3 : 0;
}
