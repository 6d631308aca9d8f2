// passes.cc — ns per value of the dense codec's passes (scalar and AVX2 kernels) on the
// order-1 residuals of a data file's codes at a relative bound; chunks of 16384 values.
// g++ -O2 -std=c++17 -mavx2 -I src -I include -I build/include bench-out/passes.cc build/libzcoll_internal.a -fopenmp
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <vector>
#include "codec/chunk_codec.h"
#include "codec/dense.h"
using namespace zcoll;
static double now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  const double rel = atof(argv[2]);
  float mn = x[0], mx = x[0]; for (float v : x) if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  const double q = 2 * rel * (mx - mn);
  const uint32_t C = 16384, n = x.size() / C * C;
  std::vector<uint32_t> res(n);
  int32_t prev = 0;
  for (uint32_t i = 0; i < n; ++i) { int32_t c = (int32_t)std::llround(std::isfinite(x[i]) ? x[i] / q : 0); res[i] = (i % C) ? uint32_t(c - prev) : uint32_t(c); prev = c; }
  const ChunkKernels* ks[2] = {&scalar_kernels(), avx2_kernels()};
  std::vector<uint8_t> syms(n), syms2(n), extra(4 * C + 16 + 64), rans(2 * C + 64);
  std::vector<uint32_t> back(n);
  double best[2][4]; for (auto& b : best) for (double& v : b) v = 1e9;
  for (int rep = 0; rep < 7; ++rep)
    for (int k = 0; k < 2; ++k) {
      double t[4] = {0, 0, 0, 0};
      for (uint32_t c = 0; c < n; c += C) {
        double t0 = now();
        size_t eb = ks[k]->dense_symbols(&res[c], C, &syms[c], extra.data());
        double t1 = now();
        uint32_t cnt[256] = {}; for (uint32_t i = 0; i < C; ++i) cnt[syms[c + i]]++;
        uint32_t nsym = 0; for (uint32_t s = 0; s < 256; ++s) if (cnt[s]) nsym = s + 1;
        uint16_t fr[256]; uint32_t sum = 0, big = 0;
        for (uint32_t s = 0; s < nsym; ++s) { fr[s] = cnt[s] ? std::max<uint32_t>(1, uint64_t(cnt[s]) * 4096 / C) : 0; sum += fr[s]; if (fr[s] > fr[big]) big = s; }
        if (sum > 4096) { fr[big] -= sum - 4096; } else fr[big] += 4096 - sum;
        DenseEncSymbols es; dense_enc_symbols(fr, nsym, &es);
        uint32_t tab[4096]; dense_dec_table(fr, nsym, tab);
        double t2 = now();
        uint8_t* end = rans.data() + rans.size();
        const uint8_t* beg = ks[k]->dense_rans_encode(&syms[c], C, es, end);
        double t3 = now();
        uint32_t xs[16]; for (int j = 0; j < 16; ++j) xs[j] = load_u32(beg + 4 * j);
        const uint8_t* p = beg + 64;
        for (uint32_t i = 0; i < C; i += 2048) ks[k]->dense_rans_decode(xs, &p, end, tab, &syms2[c + i], 2048);
        double t4 = now();
        uint64_t at = 0;
        for (uint32_t i = 0; i < C; i += 2048) at = ks[k]->dense_residuals(&syms2[c + i], 2048, extra.data(), eb, at, &back[c + i]);
        double t5 = now();
        t[0] += t1 - t0; t[1] += t3 - t2; t[2] += t4 - t3; t[3] += t5 - t4;
      }
      if (memcmp(back.data(), res.data(), n * 4)) { printf("MISMATCH\n"); return 1; }
      for (int j = 0; j < 4; ++j) best[k][j] = std::min(best[k][j], t[j]);
    }
  printf("%-8s %8s %8s %8s %8s   (ns/value, min of 7)\n", "", "symbols", "rans-enc", "rans-dec", "resid");
  for (int k = 0; k < 2; ++k) printf("%-8s %8.3f %8.3f %8.3f %8.3f\n", k ? "avx2" : "scalar", best[k][0] * 1e9 / n, best[k][1] * 1e9 / n, best[k][2] * 1e9 / n, best[k][3] * 1e9 / n);
}
