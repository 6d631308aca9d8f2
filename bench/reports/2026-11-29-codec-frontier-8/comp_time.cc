// comp_time.cc FILE REL REPS — the dense codec (1-D): time REPS compressions into one
// reused buffer; prints compress GB/s (CPU time of the process). part 7's dec_time.cc
// with the timed call swapped; run by part 7's decode_ab.sh (DEC_TIME=comp_time).
// g++ -O2 -std=c++17 -I include -I build/include comp_time.cc -L build -lzcoll -o comp_time
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <vector>
#include "zcoll.h"
static double now() { timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  float mn = INFINITY, mx = -INFINITY; for (float v : x) if (std::isfinite(v)) { mn = std::min(mn, v); mx = std::max(mx, v); }
  zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = atof(argv[2]) * (mx - mn); p.codec = ZCOLL_CODEC_DENSE;
  std::vector<uint8_t> z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32)); size_t sz = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1)) return 1;
  std::vector<float> y(x.size());
  if (zcoll_decompress(z.data(), sz, y.data(), y.size(), 1)) return 2;  // first touch
  const int n = atoi(argv[3]);
  const double t0 = now();
  for (int k = 0; k < n; ++k) if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1)) return 2;
  printf("%.4f\n", 4e-9 * x.size() * n / (now() - t0));
}
