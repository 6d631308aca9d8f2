// ab_cold.cc — two builds of libzcoll in one process (dlopen by path): the goals' cold
// calls on one thread (hom add, decompression) and the same run's memcpy of one input,
// alternating build by build in each round; per case the B / A time ratio of each
// round: median, p10, p90. One JSON line.
//   g++ -O2 -std=c++17 -Iinclude -IBUILD/include ab_cold.cc -LBUILD -lzcoll -ldl
//       -Wl,-rpath,BUILD -o ab_cold      (one command; the inputs are compressed by BUILD)
//   ./ab_cold LIB_A LIB_B FILE.f32 VALUES_PER_INPUT REL ROUNDS
#include <dlfcn.h>
#include <zcoll.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../2026-11-30-codec-frontier-18/probe.h"

namespace {
struct Lib {
  decltype(&zcoll_hom_add) hom;
  decltype(&zcoll_decompress) dec;
};
Lib load(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    std::fprintf(stderr, "%s\n", dlerror());
    std::exit(1);
  }
  return {reinterpret_cast<decltype(&zcoll_hom_add)>(dlsym(h, "zcoll_hom_add")),
          reinterpret_cast<decltype(&zcoll_decompress)>(dlsym(h, "zcoll_decompress"))};
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1))];
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 7) return 1;
  const Lib lib[2] = {load(argv[1]), load(argv[2])};
  const size_t n = std::strtoull(argv[4], nullptr, 10);
  const int rounds = std::atoi(argv[6]);
  double eb = 0;
  const std::vector<float> x = probe::read_halves(argv[3], n, std::atof(argv[5]), &eb);
  const std::vector<uint8_t> a = probe::compress(x.data(), n, eb);
  const std::vector<uint8_t> b = probe::compress(x.data() + n, n, eb);
  std::vector<uint8_t> out[2];
  size_t size[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {  // the same bytes from both builds
    out[k].resize(zcoll_compress_bound(n, ZCOLL_FLOAT32));
    if (lib[k].hom(a.data(), a.size(), b.data(), b.size(), out[k].data(), out[k].size(),
                   &size[k], nullptr, 1) != ZCOLL_SUCCESS) {
      std::fprintf(stderr, "hom add failed\n");
      return 2;
    }
  }
  if (size[0] != size[1] || std::memcmp(out[0].data(), out[1].data(), size[0]) != 0) {
    std::fprintf(stderr, "the builds' hom adds differ\n");
    return 2;
  }
  std::vector<float> values(n), copy(n);
  const char* cases[] = {"hom_1t_cold", "dec_1t_cold"};
  std::vector<double> t[2][2], mc;  // t[build][case]
  size_t no = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < 2; ++j) {
      const int k = (r + j) % 2;
      probe::evict();
      t[k][0].push_back(probe::seconds([&] {
        lib[k].hom(a.data(), a.size(), b.data(), b.size(), out[k].data(), out[k].size(), &no,
                   nullptr, 1);
      }));
      probe::evict();
      t[k][1].push_back(
          probe::seconds([&] { lib[k].dec(a.data(), a.size(), values.data(), n, 1); }));
    }
    probe::evict();
    mc.push_back(probe::seconds([&] { std::memcpy(copy.data(), x.data(), n * sizeof(float)); }));
  }
  std::printf("{\"file\": \"%s\", \"values_per_input\": %zu, \"rel\": %s, \"rounds\": %d, "
              "\"a\": \"%s\", \"b\": \"%s\", \"memcpy_us\": %.2f",
              argv[3], n, argv[5], rounds, argv[1], argv[2], 1e6 * quantile(mc, .5));
  for (int c = 0; c < 2; ++c) {
    std::vector<double> ratio(rounds);
    for (int r = 0; r < rounds; ++r) ratio[r] = t[1][c][r] / t[0][c][r];
    std::printf(", \"%s\": {\"a_us\": %.2f, \"b_us\": %.2f, \"b_over_a\": %.3f, \"p10\": %.3f, "
                "\"p90\": %.3f}",
                cases[c], 1e6 * quantile(t[0][c], .5), 1e6 * quantile(t[1][c], .5),
                quantile(ratio, .5), quantile(ratio, .1), quantile(ratio, .9));
  }
  std::printf("}\n");
  return probe::g_sink == 1;
}
