// nd_speed — dense_speed.cc with the dims of each file (its name ends in them), FILTER env: substring of the file names.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fstream>
#include <string>
#include <vector>
#include <cstdlib>
#include "zcoll.h"
static double cpu() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : "/work/shared/data";
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  int codec = argc > 3 ? atoi(argv[3]) : 1;
  std::vector<std::string> names;
  DIR* d = opendir(dir);
  while (dirent* e = readdir(d)) { std::string n = e->d_name; if (n.size() > 4 && n.substr(n.size() - 4) == ".f32") names.push_back(n); }
  closedir(d);
  std::sort(names.begin(), names.end());
  const double rels[3] = {1e-2, 1e-3, 1e-4};
  struct Row { std::vector<uint64_t> dims; std::string name; double rel; std::vector<float> x; double eb; std::vector<double> c, dd; size_t size = 0; uint64_t h = 0; };
  std::vector<Row> rows;
  for (auto& n : names) {
    std::ifstream f(std::string(dir) + "/" + n, std::ios::binary | std::ios::ate);
    std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
    double mn, mx; zcoll_value_range(ZCOLL_FLOAT32, x.data(), x.size(), &mn, &mx, 1);
    std::vector<uint64_t> dims; { std::string b = n.substr(0, n.size() - 4); size_t u = b.rfind('_'); std::string t = b.substr(u + 1); size_t pos = 0; while (pos <= t.size()) { size_t x = t.find('x', pos); if (x == std::string::npos) x = t.size(); dims.push_back(std::stoull(t.substr(pos, x - pos))); pos = x + 1; } }
    if (getenv("FILTER") && n.find(getenv("FILTER")) == std::string::npos) continue;
    for (double r : rels) { Row w; w.dims = dims; w.name = n; w.rel = r; w.x = x; w.eb = r * (mx - mn); rows.push_back(std::move(w)); }
  }
  std::vector<uint8_t> z; std::vector<float> y;
  for (int rep = 0; rep <= reps; ++rep)
    for (auto& w : rows) {
      zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = w.eb; p.codec = (zcoll_codec)codec; if (!getenv("NODIMS")) { p.ndims = w.dims.size(); for (size_t k = 0; k < w.dims.size(); ++k) p.dims[k] = w.dims[k]; }
      z.resize(zcoll_compress_bound(w.x.size(), ZCOLL_FLOAT32)); size_t sz = 0;
      double t0 = cpu();
      if (zcoll_compress(&p, ZCOLL_FLOAT32, w.x.data(), w.x.size(), z.data(), z.size(), &sz, 1) != ZCOLL_SUCCESS) { printf("fail\n"); return 1; }
      double t1 = cpu();
      y.resize(w.x.size());
      if (zcoll_decompress(z.data(), sz, y.data(), y.size(), 1) != ZCOLL_SUCCESS) { printf("dfail\n"); return 1; }
      double t2 = cpu();
      if (rep == 0) {
        uint64_t h = 0xcbf29ce484222325ull; for (size_t i = 0; i < sz; ++i) h = (h ^ z[i]) * 0x100000001b3ull;
        w.size = sz; w.h = h;
        double me = 0; for (size_t i = 0; i < y.size(); ++i) me = std::max(me, (double)std::fabs((double)w.x[i] - y[i]));
        if (me > w.eb) { printf("BOUND %s\n", w.name.c_str()); return 1; }
        continue;
      }
      w.c.push_back(w.x.size() * 4e-9 / (t1 - t0)); w.dd.push_back(w.x.size() * 4e-9 / (t2 - t1));
    }
  auto med = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]); };
  std::vector<double> cm, dm; double lr[3] = {0, 0, 0}; int nr[3] = {0, 0, 0};
  printf("%-40s %7s %8s %22s %22s %16s\n", "file", "rel", "ratio", "comp GB/s med [min,max]", "dec GB/s med [min,max]", "fnv");
  for (auto& w : rows) {
    double c = med(w.c), dd = med(w.dd); cm.push_back(c); dm.push_back(dd);
    double ratio = w.x.size() * 4.0 / w.size;
    int k = w.rel > 5e-3 ? 0 : w.rel > 5e-4 ? 1 : 2; lr[k] += std::log(ratio); nr[k]++;
    printf("%-40s %7.0e %8.3f %6.3f [%5.3f,%5.3f] %6.3f [%5.3f,%5.3f] %016llx\n", w.name.c_str(), w.rel, ratio, c,
           *std::min_element(w.c.begin(), w.c.end()), *std::max_element(w.c.begin(), w.c.end()), dd,
           *std::min_element(w.dd.begin(), w.dd.end()), *std::max_element(w.dd.begin(), w.dd.end()), (unsigned long long)w.h);
  }
  printf("rows: compress median %.3f min %.3f max %.3f | decompress median %.3f min %.3f max %.3f\n", med(cm),
         *std::min_element(cm.begin(), cm.end()), *std::max_element(cm.begin(), cm.end()), med(dm),
         *std::min_element(dm.begin(), dm.end()), *std::max_element(dm.begin(), dm.end()));
  for (int k = 0; k < 3; ++k) printf("geomean ratio REL 1e-%d: %.4f\n", k + 2, std::exp(lr[k] / nr[k]));
}
