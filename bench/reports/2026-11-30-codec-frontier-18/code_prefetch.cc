// code_prefetch.cc — does bringing a cold hom add's code in ahead of the call pay?
// One zcoll_hom_add (1 thread) on emptied caches, interleaved per round with the same
// call after: a prefetch hint for every line of the functions in RANGES (prefetch_hint,
// its time included), the hint and a 20 us wait, a load of every such line (touch), a
// small hom add on other streams (code warm, as part 16's cold_call); and the hint and
// the touch alone, and memcpy of one input. RANGES: "offset size" (hex) lines of
// libzcoll's functions, from hot_ranges.sh. Medians and the p10-p90 range, in us.
//   g++ -O2 -std=c++17 -Iinclude -IBUILD/include code_prefetch.cc -LBUILD -lzcoll -ldl
//       -Wl,-rpath,BUILD -o code_prefetch      (one command)
//   ZCOLL_SIMD=avx2 ./code_prefetch FILE.f32 VALUES_PER_INPUT REL ROUNDS RANGES > out.json
#include <dlfcn.h>
#include <zcoll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe.h"

namespace {
using probe::Clock;
using probe::compress;
using probe::evict;
using probe::g_sink;
using probe::seconds;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s FILE.f32 VALUES_PER_INPUT REL ROUNDS RANGES\n", argv[0]);
    return 1;
  }
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const double rel = std::atof(argv[3]);
  const int rounds = std::atoi(argv[4]);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  FILE* rf = std::fopen(argv[5], "r");
  unsigned long long off = 0, len = 0;
  while (rf && std::fscanf(rf, "%llx %llx", &off, &len) == 2) ranges.push_back({off, len});
  if (!rf || ranges.empty()) return 1;
  std::fclose(rf);
  Dl_info info;
  if (!dladdr(reinterpret_cast<void*>(&zcoll_hom_add), &info)) return 1;
  const auto* base = static_cast<const uint8_t*>(info.dli_fbase);
  double eb = 0;
  const std::vector<float> x = probe::read_halves(argv[1], n, rel, &eb);
  const auto a = compress(x.data(), n, eb), b = compress(x.data() + n, n, eb);
  const size_t small = std::min<size_t>(n, 16384);
  const auto sa = compress(x.data(), small, eb), sb = compress(x.data() + n, small, eb);
  std::vector<uint8_t> out(zcoll_compress_bound(n, ZCOLL_FLOAT32)), small_out(out.size());
  std::vector<float> copy(n);
  size_t out_size = 0;
  const auto hom = [&] {
    zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out.data(), out.size(), &out_size,
                  nullptr, 1);
  };
  const auto hom_small = [&] {
    zcoll_hom_add(sa.data(), sa.size(), sb.data(), sb.size(), small_out.data(), small_out.size(),
                  &out_size, nullptr, 1);
  };
  const auto hint = [&] {
    for (const auto& r : ranges)
      for (uint64_t k = 0; k < r.second; k += 64) __builtin_prefetch(base + r.first + k, 0, 3);
  };
  const auto touch = [&] {
    uint64_t s = 0;
    for (const auto& r : ranges)
      for (uint64_t k = 0; k < r.second; k += 64)
        s += *reinterpret_cast<const volatile uint8_t*>(base + r.first + k);
    g_sink = s;
  };
  const auto wait = [] {
    const auto t0 = Clock::now();
    while (Clock::now() - t0 < std::chrono::microseconds(20)) {
    }
  };
  hom();
  const char* names[] = {"hom_cold",
                         "hom_cold_after_hint",
                         "hom_cold_after_hint_wait",
                         "hom_cold_after_touch",
                         "hom_code_warm",
                         "hint_only",
                         "touch_only",
                         "memcpy_cold"};
  std::vector<double> t[8];
  for (int r = 0; r < rounds; ++r) {
    evict();
    t[0].push_back(seconds(hom));
    evict();
    t[1].push_back(seconds([&] { hint(), hom(); }));
    evict();
    hint(), wait();
    t[2].push_back(seconds(hom));
    evict();
    touch();
    t[3].push_back(seconds(hom));
    evict();
    hom_small();
    t[4].push_back(seconds(hom));
    evict();
    t[5].push_back(seconds(hint));
    evict();
    t[6].push_back(seconds(touch));
    evict();
    t[7].push_back(seconds([&] { std::copy(x.begin(), x.begin() + n, copy.begin()); }));
  }
  size_t lines = 0;
  for (const auto& r : ranges) lines += (r.second + 63) / 64;
  std::printf(
      "{\"file\": \"%s\", \"values_per_input\": %zu, \"rel\": %g, \"rounds\": %d, "
      "\"code_lines_listed\": %zu,\n \"cases_us\": {",
      argv[1], n, rel, rounds, lines);
  probe::print_cases(names, t, 8);
  return g_sink == 12345 ? 3 : 0;
}
