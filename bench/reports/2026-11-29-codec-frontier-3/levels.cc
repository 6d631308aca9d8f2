// order-0 entropy of predictor 5's residuals: one table vs split at the finest level's start
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <vector>
#include "codec/dense_interp.h"
using namespace zcoll;
double H(const std::vector<uint32_t>& r, size_t a, size_t b) {
  std::map<uint32_t, size_t> c; for (size_t i = a; i < b; ++i) c[r[i]]++;
  double h = 0; for (auto& kv : c) { double p = double(kv.second) / (b - a); h -= kv.second * std::log2(p); } return h; }
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary); uint32_t W = atoi(argv[2]); double rel = atof(argv[3]); uint32_t P = argc > 4 ? atoi(argv[4]) : 0;
  std::vector<float> all; { f.seekg(0, std::ios::end); size_t n = f.tellg() / 4; f.seekg(0); all.resize(n); f.read((char*)all.data(), n * 4); }
  float mn = *std::min_element(all.begin(), all.end()), mx = *std::max_element(all.begin(), all.end());
  double eb = rel * (mx - mn), q = 2 * eb * (1 - 1.0 / 64);
  double tot1 = 0, tot2 = 0, tot4 = 0; size_t N = 0;
  for (size_t st = 0; st < all.size(); st += 262144) {
    uint32_t len = std::min<size_t>(262144, all.size() - st);
    std::vector<int32_t> v(len); std::vector<uint32_t> r(len);
    for (uint32_t i = 0; i < len; ++i) v[i] = (int32_t)std::nearbyint(all[st + i] / q * 256);
    InterpGrid g; g.ndim = P ? 3 : W ? 2 : 1; g.row = W; g.plane = P; g.cubic = false;
    interp_residuals(v.data(), len, g, r.data());
    size_t cut = len - len / 2 - (g.ndim >= 2 ? len / 4 : 0) - (g.ndim == 3 ? len / 8 : 0);
    tot1 += H(r, 0, len); tot2 += H(r, 0, cut) + H(r, cut, len);
    size_t c2 = cut / 2, c3 = cut / 4;  // coarser splits
    tot4 += H(r, 0, c3) + H(r, c3, c2) + H(r, c2, cut) + H(r, cut, len); N += len;
  }
  printf("%s rel %g: one table %.2f, finest apart %.2f, 4 parts %.2f (ratio bounds)\n", argv[1] + 18, rel, 32.0 * N / tot1, 32.0 * N / tot2, 32.0 * N / tot4);
}
