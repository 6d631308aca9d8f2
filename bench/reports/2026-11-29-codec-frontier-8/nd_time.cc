// nd_time.cc FILE REL REPS [d0 [d1 [d2]]] — the dense codec (with dims if given, slowest
// first): REPS + 1 compress/decompress pairs, the first untimed; prints the ratio and
// compress and decompress GB/s (CPU time). shares.sh runs it under callgrind.
// g++ -O2 -std=c++17 -I include -I build/include nd_time.cc -L build -lzcoll -o nd_time
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <vector>
#include <algorithm>
#include "zcoll.h"
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  float mn = INFINITY, mx = -INFINITY; for (float v : x) if (std::isfinite(v)) { mn = std::min(mn, v); mx = std::max(mx, v); }
  zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = atof(argv[2]) * (mx - mn); p.codec = ZCOLL_CODEC_DENSE;
  p.ndims = argc - 4; for (int i = 4; i < argc; ++i) p.dims[i - 4] = strtoull(argv[i], 0, 10);
  std::vector<uint8_t> z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32)); size_t sz = 0;
  const int n = atoi(argv[3]);
  std::vector<float> y(x.size());
  double tc = 0, td = 0;
  for (int k = 0; k <= n; ++k) {
    double t0 = now();
    if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1)) return 1;
    double t1 = now();
    if (zcoll_decompress(z.data(), sz, y.data(), y.size(), 1)) return 2;
    double t2 = now();
    if (k) tc += t1 - t0, td += t2 - t1;
  }
  printf("ratio %.2f c %.3f d %.3f\n", 4.0 * x.size() / sz, 4e-9 * x.size() * n / tc, 4e-9 * x.size() * n / td);
}
