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

namespace {
using Clock = std::chrono::steady_clock;
std::vector<uint64_t> g_evict(96u << 17);  // 96 MiB, 3x the L3 (as zcoll-codec-bench --cold)
volatile uint64_t g_sink;
volatile int g_touch;

void evict() {
  uint64_t s = 0;
  for (size_t i = 0; i < g_evict.size(); i += 8) s += g_evict[i];  // a load per line
  g_sink = s;
}

template <typename F>
double seconds(F&& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::vector<uint8_t> compress(const float* x, size_t n, double eb) {
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  std::vector<uint8_t> s(zcoll_compress_bound(n, ZCOLL_FLOAT32));
  size_t size = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s.data(), s.size(), &size, 1) != ZCOLL_SUCCESS)
    std::exit(2);
  s.resize(size);
  return s;
}

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
  std::vector<float> x(2 * n);
  FILE* f = std::fopen(argv[1], "rb");
  if (!f || std::fread(x.data(), sizeof(float), x.size(), f) != x.size()) return 1;
  std::fclose(f);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.begin() + n);
  const double eb = rel * (*hi - *lo);
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
  for (int k = 0; k < 6; ++k) {
    std::sort(t[k].begin(), t[k].end());
    const auto at = [&](double q) {
      return 1e6 * t[k][static_cast<size_t>(q * (t[k].size() - 1))];
    };
    std::printf("%s\n  \"%s\": {\"median\": %.2f, \"p10\": %.2f, \"p90\": %.2f}", k ? "," : "",
                names[k], at(0.5), at(0.1), at(0.9));
  }
  std::printf("}}\n");
  return g_sink == 12345 ? 3 : 0;
}
