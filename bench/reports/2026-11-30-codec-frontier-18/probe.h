// probe.h — what part 18's probe programs share: the eviction of zcoll-codec-bench
// --cold, a timer, the two halves of a field and their ABS bound, and compression.
// Header-only, so each program still builds with one g++ command.
#pragma once

#include <zcoll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace probe {
using Clock = std::chrono::steady_clock;
inline std::vector<uint64_t> g_evict(96u << 17);  // 96 MiB, 3x the L3 (as --cold)
inline volatile uint64_t g_sink;

inline void evict() {
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

// 2 * n values of an f32 file (the two inputs: [0, n) and [n, 2n)), and REL rel of
// the first half's value range as an absolute bound; exits on a short file.
inline std::vector<float> read_halves(const char* path, size_t n, double rel, double* eb) {
  std::vector<float> x(2 * n);
  FILE* f = std::fopen(path, "rb");
  if (!f || std::fread(x.data(), sizeof(float), x.size(), f) != x.size()) std::exit(1);
  std::fclose(f);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.begin() + n);
  *eb = rel * (*hi - *lo);
  return x;
}

// n values compressed with ABS bound eb on one thread; exits on failure.
inline std::vector<uint8_t> compress(const float* x, size_t n, double eb) {
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

// The "cases_us" members of the JSON the programs print: per case, the median and
// the p10 and p90 of its times (seconds in t[k], sorted here), in us; then "}}".
inline void print_cases(const char* const* names, std::vector<double>* t, int cases) {
  for (int k = 0; k < cases; ++k) {
    std::sort(t[k].begin(), t[k].end());
    const auto at = [&](double q) {
      return 1e6 * t[k][static_cast<size_t>(q * (t[k].size() - 1))];
    };
    std::printf("%s\n  \"%s\": {\"median\": %.2f, \"p10\": %.2f, \"p90\": %.2f}", k ? "," : "",
                names[k], at(0.5), at(0.1), at(0.9));
  }
  std::printf("}}\n");
}
}  // namespace probe
