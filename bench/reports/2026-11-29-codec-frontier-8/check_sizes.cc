// check_sizes.cc FILE... — the dense codec (1-D, default chunks) on each float32 FILE at
// REL 1e-2, 1e-3, 1e-4: the stream's bytes and the largest |x - x'| / eb over the
// finite values, one line each (the build under test by LD_LIBRARY_PATH).
// g++ -O2 -std=c++17 -I include -I build/include check_sizes.cc -L build -lzcoll
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>
#include <algorithm>
#include "zcoll.h"
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary | std::ios::ate);
    std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
    float mn = INFINITY, mx = -INFINITY; for (float v : x) if (std::isfinite(v)) { mn = std::min(mn, v); mx = std::max(mx, v); }
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = rel * (mx - mn); p.codec = ZCOLL_CODEC_DENSE;
      std::vector<uint8_t> z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32)); size_t sz = 0;
      if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1)) return 1;
      std::vector<float> y(x.size());
      if (zcoll_decompress(z.data(), sz, y.data(), y.size(), 1)) return 2;
      double e = 0; for (size_t i = 0; i < x.size(); ++i) if (std::isfinite(x[i])) e = std::max(e, std::fabs((double)x[i] - y[i]));
      printf("%s %g %zu %.4f\n", argv[a], rel, sz, e / p.error_bound);
    }
  }
}
