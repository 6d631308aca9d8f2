// hom_time.cc FILE REL REPS — the fast codec's zcoll_hom_add of the field and the field
// shifted by one value, one thread, alternating with a memcpy of the field, REPS of
// each (the first untimed); prints the ratio, both GB/s (CPU time, of one input) and
// memcpy time / hom add time (the last column, which hom_ab.sh keeps).
// g++ -O2 -std=c++17 -I include -I build/include hom_time.cc -L build -lzcoll -o hom_time
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
  std::vector<float> y(x.size()); std::rotate_copy(x.begin(), x.begin() + 1, x.end(), y.begin());
  zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = atof(argv[2]) * (mx - mn);
  size_t cap = zcoll_compress_bound(x.size(), ZCOLL_FLOAT32);
  std::vector<uint8_t> a(cap), b(cap), o(2 * cap); size_t sa = 0, sb = 0, so = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), a.data(), cap, &sa, 1)) return 1;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, y.data(), y.size(), b.data(), cap, &sb, 1)) return 1;
  std::vector<float> m(x.size());
  const int n = atoi(argv[3]);
  double th = 0, tm = 0;
  for (int k = 0; k < n; ++k) {
    double t0 = now();
    if (zcoll_hom_add(a.data(), sa, b.data(), sb, o.data(), o.size(), &so, nullptr, 1)) return 2;
    double t1 = now();
    std::memcpy(m.data(), x.data(), x.size() * 4);
    double t2 = now();
    if (k) th += t1 - t0, tm += t2 - t1;
  }
  printf("ratio %.2f hom %.3f memcpy %.3f rel %.3f\n", 4.0 * x.size() / sa, 4e-9 * x.size() * (n - 1) / th, 4e-9 * x.size() * (n - 1) / tm, tm / th);
}
