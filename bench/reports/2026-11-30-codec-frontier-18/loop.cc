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

#include "probe.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s FILE.f32 VALUES_PER_INPUT REL N THREADS\n", argv[0]);
    return 1;
  }
  const size_t n = std::strtoull(argv[2], nullptr, 10);
  const double rel = std::atof(argv[3]);
  const int calls = std::atoi(argv[4]), threads = std::atoi(argv[5]);
  double eb = 0;
  const std::vector<float> x = probe::read_halves(argv[1], n, rel, &eb);
  const auto a = probe::compress(x.data(), n, eb), b = probe::compress(x.data() + n, n, eb);
  std::vector<uint8_t> out(zcoll_compress_bound(n, ZCOLL_FLOAT32));
  size_t size = 0;
  for (int i = 0; i < calls; ++i)
    if (zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out.data(), out.size(), &size,
                      nullptr, threads))
      return 2;
  return 0;
}
