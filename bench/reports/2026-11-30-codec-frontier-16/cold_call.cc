// cold_call.cc — where the time of one cold zcoll_hom_add (1 thread) goes: the
// call on emptied caches, against the same call with only its code warm (a small
// hom add on other streams just before), with everything warm, and against the
// memory traffic it has to make (read both inputs, write the output's bytes).
// The same for zcoll_decompress. Interleaved per round; medians and the p10-p90
// range. Built against an installed or built libzcoll:
//   g++ -O2 -std=c++17 -Iinclude -IBUILD/include cold_call.cc -LBUILD -lzcoll
//       -Wl,-rpath,BUILD -o cold_call      (one command)
//   ./cold_call FILE.f32 VALUES_PER_INPUT REL ROUNDS > out.json
// ROUNDS 0: one hom add only, the process's first, in measured_call: for a
// cache simulator (code_misses.sh).
#include <zcoll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
using Clock = std::chrono::steady_clock;
std::vector<uint64_t> g_evict(96u << 17);  // 96 MiB, 3x the L3 (as zcoll-codec-bench --cold)
volatile uint64_t g_sink;

__attribute__((noinline)) void measured_call(const void* a, size_t na, const void* b, size_t nb,
                                             void* out, size_t cap, size_t* out_size) {
  zcoll_hom_add(a, na, b, nb, out, cap, out_size, nullptr, 1);
}

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

struct Stream {
  std::vector<uint8_t> bytes;
  size_t size = 0;
};

Stream compress(const float* x, size_t n, double eb) {
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  Stream s;
  s.bytes.resize(zcoll_compress_bound(n, ZCOLL_FLOAT32));
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s.bytes.data(), s.bytes.size(), &s.size, 1) !=
      ZCOLL_SUCCESS)
    std::exit(2);
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s FILE.f32 VALUES_PER_INPUT REL ROUNDS\n", argv[0]);
    return 1;
  }
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const double rel = std::atof(argv[3]);
  const int rounds = std::atoi(argv[4]);
  std::vector<float> x(2 * n);
  FILE* f = std::fopen(argv[1], "rb");
  if (!f || std::fread(x.data(), sizeof(float), x.size(), f) != x.size()) return 1;
  std::fclose(f);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.begin() + n);
  const double eb = rel * (*hi - *lo);
  const Stream a = compress(x.data(), n, eb), b = compress(x.data() + n, n, eb);
  // the small call that warms the code: the first chunk of each input again
  const size_t small = std::min<size_t>(n, 16384);
  const Stream sa = compress(x.data(), small, eb), sb = compress(x.data() + n, small, eb);
  std::vector<uint8_t> out(a.bytes.size()), small_out(sa.bytes.size());
  std::vector<float> values(n), small_values(small), copy(n);
  size_t out_size = 0, small_size = 0;
  const auto hom = [&] {
    zcoll_hom_add(a.bytes.data(), a.size, b.bytes.data(), b.size, out.data(), out.size(), &out_size,
                  nullptr, 1);
  };
  const auto hom_small = [&] {
    zcoll_hom_add(sa.bytes.data(), sa.size, sb.bytes.data(), sb.size, small_out.data(),
                  small_out.size(), &small_size, nullptr, 1);
  };
  const auto dec = [&] { zcoll_decompress(a.bytes.data(), a.size, values.data(), n, 1); };
  const auto dec_small = [&] {
    zcoll_decompress(sa.bytes.data(), sa.size, small_values.data(), small, 1);
  };
  if (rounds == 0) {
    measured_call(a.bytes.data(), a.size, b.bytes.data(), b.size, out.data(), out.size(),
                  &out_size);
    std::printf("{\"hom_bytes\": %zu}\n", out_size);
    return 0;
  }
  hom();
  const size_t hom_out = out_size;
  const auto hom_traffic = [&] {  // what the hom add must move: read a and b, write its output
    uint64_t s = 0;
    for (size_t i = 0; i + 8 <= a.size; i += 8)
      s += *reinterpret_cast<const uint64_t*>(&a.bytes[i]);
    for (size_t i = 0; i + 8 <= b.size; i += 8)
      s += *reinterpret_cast<const uint64_t*>(&b.bytes[i]);
    std::memset(out.data(), static_cast<int>(s & 1), hom_out);
  };
  const auto dec_traffic = [&] {  // read a, write the values
    uint64_t s = 0;
    for (size_t i = 0; i + 8 <= a.size; i += 8)
      s += *reinterpret_cast<const uint64_t*>(&a.bytes[i]);
    std::memset(values.data(), static_cast<int>(s & 1), n * sizeof(float));
  };
  const auto mcpy = [&] { std::memcpy(copy.data(), x.data(), n * sizeof(float)); };
  struct Case {
    const char* name;
    std::vector<double> t;
  };
  std::vector<Case> cases = {
      {"hom_cold", {}},         {"hom_code_warm", {}},           {"hom_warm", {}},
      {"hom_traffic_cold", {}}, {"decompress_cold", {}},         {"decompress_code_warm", {}},
      {"decompress_warm", {}},  {"decompress_traffic_cold", {}}, {"memcpy_cold", {}}};
  // cold, code warm, warm and the traffic of one operation, into cases[first ..]
  const auto four = [&](size_t first, const auto& call, const auto& small_call,
                        const auto& traffic) {
    evict();
    cases[first].t.push_back(seconds(call));
    evict();
    small_call();
    cases[first + 1].t.push_back(seconds(call));
    call();
    cases[first + 2].t.push_back(seconds(call));
    evict();
    cases[first + 3].t.push_back(seconds(traffic));
  };
  for (int r = 0; r < rounds; ++r) {
    four(0, hom, hom_small, hom_traffic);
    four(4, dec, dec_small, dec_traffic);
    evict();
    cases[8].t.push_back(seconds(mcpy));
  }
  std::printf(
      "{\"file\": \"%s\", \"values_per_input\": %zu, \"rel\": %g, \"rounds\": %d, "
      "\"bytes_one_input\": %zu, \"a_bytes\": %zu, \"b_bytes\": %zu, \"hom_bytes\": %zu,\n"
      " \"cases_us\": {",
      argv[1], n, rel, rounds, n * sizeof(float), a.size, b.size, hom_out);
  for (size_t k = 0; k < cases.size(); ++k) {
    std::vector<double> t = cases[k].t;
    std::sort(t.begin(), t.end());
    const auto at = [&](double q) { return 1e6 * t[static_cast<size_t>(q * (t.size() - 1))]; };
    std::printf("%s\n  \"%s\": {\"median\": %.2f, \"p10\": %.2f, \"p90\": %.2f}", k ? "," : "",
                cases[k].name, at(0.5), at(0.1), at(0.9));
  }
  std::printf("}}\n");
  return g_sink == 12345 ? 3 : 0;
}
