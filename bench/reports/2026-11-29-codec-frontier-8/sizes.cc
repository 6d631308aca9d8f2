// sizes.cc CHUNK FILE... — the dense codec's (1-D) stream bytes of each float32 FILE at
// REL 1e-2, 1e-3, 1e-4 with chunk size CHUNK (0: the default); one line each.
// g++ -O2 -std=c++17 -I include -I build/include sizes.cc -L build -lzcoll -o sizes
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>
#include <algorithm>
#include "zcoll.h"
int main(int argc, char** argv) {
  for (int a = 2; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary | std::ios::ate);
    std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
    float mn = INFINITY, mx = -INFINITY; for (float v : x) if (std::isfinite(v)) { mn = std::min(mn, v); mx = std::max(mx, v); }
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = rel * (mx - mn); p.codec = ZCOLL_CODEC_DENSE; p.chunk_size = atoi(argv[1]);
      std::vector<uint8_t> z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32)); size_t sz = 0;
      if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1)) return 1;
      printf("%s %g %zu\n", argv[a], rel, sz);
    }
  }
}
