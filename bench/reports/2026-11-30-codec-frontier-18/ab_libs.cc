// ab_libs.cc — two builds of libzcoll in one process (dlopen by path), their hom add and
// decompression on 1 and 2 threads, cold and warm, alternating build by build in each round.
// With a last argument `compress`, also each build's compression on 2 threads, cold and warm.
//   g++ -O2 -std=c++17 -Iinclude -IBUILD/include ab_libs.cc -ldl -o ab_libs
//   ./ab_libs LIB_A LIB_B FILE.f32 VALUES_PER_INPUT REL ROUNDS [compress] > out.json
#include <dlfcn.h>
#include <zcoll.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "probe.h"

using probe::evict;
using HomFn = decltype(&zcoll_hom_add);
using DecFn = decltype(&zcoll_decompress);
using CmpFn = decltype(&zcoll_compress);
struct Lib {
  HomFn hom;
  DecFn dec;
  CmpFn cmp;
};
static Lib load(const char* path) {
  void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    fprintf(stderr, "%s\n", dlerror());
    exit(1);
  }
  return {reinterpret_cast<HomFn>(dlsym(h, "zcoll_hom_add")),
          reinterpret_cast<DecFn>(dlsym(h, "zcoll_decompress")),
          reinterpret_cast<CmpFn>(dlsym(h, "zcoll_compress"))};
}
int main(int argc, char** argv) {
  Lib lib[2] = {load(argv[1]), load(argv[2])};
  void* h0 = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  auto compress = reinterpret_cast<decltype(&zcoll_compress)>(dlsym(h0, "zcoll_compress"));
  auto bound = reinterpret_cast<decltype(&zcoll_compress_bound)>(dlsym(h0, "zcoll_compress_bound"));
  if (lib[0].hom == lib[1].hom) {
    fprintf(stderr, "same library twice\n");
    return 1;
  }
  const size_t n = strtoull(argv[4], nullptr, 10);
  const double rel = atof(argv[5]);
  const int rounds = atoi(argv[6]);
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  const std::vector<float> x = probe::read_halves(argv[3], n, rel, &p.error_bound);
  std::vector<uint8_t> a(bound(n, ZCOLL_FLOAT32)), b(a.size()), out(a.size()), out2(a.size());
  size_t na, nb, no = 0, no2 = 0;
  compress(&p, ZCOLL_FLOAT32, x.data(), n, a.data(), a.size(), &na, 1);
  compress(&p, ZCOLL_FLOAT32, x.data() + n, n, b.data(), b.size(), &nb, 1);
  std::vector<float> v(n);
  // same bytes from both builds, 1 and 2 threads
  lib[0].hom(a.data(), na, b.data(), nb, out.data(), out.size(), &no, nullptr, 1);
  lib[1].hom(a.data(), na, b.data(), nb, out2.data(), out2.size(), &no2, nullptr, 2);
  if (no != no2 || !std::equal(out.begin(), out.begin() + no, out2.begin())) {
    fprintf(stderr, "bytes differ\n");
    return 2;
  }
  if (argc > 7) {  // and the same compressed bytes
    std::vector<uint8_t> c1(a.size()), c2b(a.size());
    size_t n1 = 0, n2 = 0;
    lib[0].cmp(&p, ZCOLL_FLOAT32, x.data(), n, c1.data(), c1.size(), &n1, 1);
    lib[1].cmp(&p, ZCOLL_FLOAT32, x.data(), n, c2b.data(), c2b.size(), &n2, 2);
    if (n1 != n2 || !std::equal(c1.begin(), c1.begin() + n1, c2b.begin())) {
      fprintf(stderr, "compressed bytes differ\n");
      return 2;
    }
  }
  const char* cases[] = {"hom_1t_cold", "hom_2t_cold", "hom_2t_warm", "dec_2t_cold",
                         "dec_2t_warm", "cmp_2t_cold", "cmp_2t_warm"};
  const int ncases = argc > 7 && std::string(argv[7]) == "compress" ? 7 : 5;
  std::vector<uint8_t> c2(a.size());
  size_t nc = 0;
  std::vector<double> t[2][7];
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      const Lib& L = lib[(r + k) % 2];
      auto& T = t[(r + k) % 2];
      auto hom = [&](int th) {
        L.hom(a.data(), na, b.data(), nb, out.data(), out.size(), &no, nullptr, th);
      };
      auto dec = [&](int th) { L.dec(a.data(), na, v.data(), n, th); };
      evict();
      T[0].push_back(probe::seconds([&] { hom(1); }));
      evict();
      T[1].push_back(probe::seconds([&] { hom(2); }));
      hom(2);
      T[2].push_back(probe::seconds([&] { hom(2); }));
      evict();
      T[3].push_back(probe::seconds([&] { dec(2); }));
      dec(2);
      T[4].push_back(probe::seconds([&] { dec(2); }));
      if (ncases == 7) {
        auto cmp = [&] { L.cmp(&p, ZCOLL_FLOAT32, x.data(), n, c2.data(), c2.size(), &nc, 2); };
        evict();
        T[5].push_back(probe::seconds(cmp));
        cmp();
        T[6].push_back(probe::seconds(cmp));
      }
    }
  }
  printf(
      "{\"file\": \"%s\", \"values_per_input\": %zu, \"rel\": %g, \"rounds\": %d, \"a\": \"%s\", "
      "\"b\": \"%s\", \"cases_us\": {",
      argv[3], n, rel, rounds, argv[1], argv[2]);
  for (int c = 0; c < ncases; ++c) {
    std::vector<double> ratio(rounds);
    for (int r = 0; r < rounds; ++r) ratio[r] = t[1][c][r] / t[0][c][r];
    auto med = [&](std::vector<double> w, double q) {
      std::sort(w.begin(), w.end());
      return w[size_t(q * (w.size() - 1))];
    };
    printf(
        "%s\n  \"%s\": {\"a_median\": %.2f, \"b_median\": %.2f, \"b_over_a_median\": %.3f, "
        "\"b_over_a_p10\": %.3f, \"b_over_a_p90\": %.3f}",
        c ? "," : "", cases[c], 1e6 * med(t[0][c], .5), 1e6 * med(t[1][c], .5), med(ratio, .5),
        med(ratio, .1), med(ratio, .9));
  }
  printf("}}\n");
  return probe::g_sink == 1;
}
