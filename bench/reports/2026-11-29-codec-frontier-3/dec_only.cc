// dec_only.cc — compress a file once (dense, REL bound), then decompress it N times (for perf).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>
#include "zcoll.h"
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_REL; p.error_bound = atof(argv[2]); p.codec = ZCOLL_CODEC_DENSE;
  std::vector<uint8_t> z(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32)); size_t sz = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), z.data(), z.size(), &sz, 1)) return 1;
  std::vector<float> y(x.size());
  for (int k = 0; k < atoi(argv[3]); ++k) if (zcoll_decompress(z.data(), sz, y.data(), y.size(), 1)) return 2;
}
