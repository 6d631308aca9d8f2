// loop.cc — N hom adds of a field's two halves (as two_threads.cc's inputs) on THREADS
// threads, back to back with warm caches: for timing a whole process (time, perf) and
// for the phase probe (phase_probe.patch).
//   g++ -O2 -std=c++17 -Iinclude -IBUILD/include loop.cc -LBUILD -lzcoll
//       -Wl,-rpath,BUILD -o loop      (one command)
//   ./loop FILE.f32 VALUES_PER_INPUT REL N THREADS
#include <zcoll.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s FILE.f32 VALUES_PER_INPUT REL N THREADS\n", argv[0]);
    return 1;
  }
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const double rel = std::atof(argv[3]);
  const int calls = std::atoi(argv[4]), threads = std::atoi(argv[5]);
  std::vector<float> x(2 * n);
  FILE* f = std::fopen(argv[1], "rb");
  if (!f || std::fread(x.data(), sizeof(float), x.size(), f) != x.size()) return 1;
  std::fclose(f);
  const auto [lo, hi] = std::minmax_element(x.begin(), x.begin() + n);
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = rel * (*hi - *lo);
  std::vector<uint8_t> a(zcoll_compress_bound(n, ZCOLL_FLOAT32)), b(a.size()), out(a.size());
  size_t na = 0, nb = 0, size = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), n, a.data(), a.size(), &na, 1) ||
      zcoll_compress(&p, ZCOLL_FLOAT32, x.data() + n, n, b.data(), b.size(), &nb, 1))
    return 2;
  for (int i = 0; i < calls; ++i)
    if (zcoll_hom_add(a.data(), na, b.data(), nb, out.data(), out.size(), &size, nullptr, threads))
      return 2;
  return 0;
}
