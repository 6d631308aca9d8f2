// piece_speed.cc — a field compressed in pieces of whole rows (as a collective with zcoll_comm_set_shape
// cuts it), FILE REL CHUNK PIECE ROW: ratio and compress GB/s (best of 5, wall), 1-D and with each
// piece's dims. g++ -O2 -std=c++17 piece_speed.cc -I include -I build/include -L build -lzcoll
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>
#include "zcoll.h"
static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char** argv) {
  std::string n = argv[1]; double rel = atof(argv[2]); uint32_t cs = atoi(argv[3]); size_t S = atol(argv[4]); uint64_t R = atol(argv[5]);
  std::ifstream f(n, std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  double mn, mx; zcoll_value_range(ZCOLL_FLOAT32, x.data(), x.size(), &mn, &mx, 1);
  S = S / R * R;
  for (int mode = 0; mode < 2; ++mode) {
    double best = 1e9; size_t tot = 0;
    for (int rep = 0; rep < 5; ++rep) {
      tot = 0; double t0 = now();
      for (size_t off = 0; off + S <= x.size(); off += S) {
        zcoll_params p; zcoll_params_init(&p); p.eb_mode = ZCOLL_EB_ABS; p.error_bound = rel * (mx - mn); p.codec = ZCOLL_CODEC_DENSE; p.chunk_size = cs;
        if (mode) { p.ndims = 2; p.dims[0] = S / R; p.dims[1] = R; }
        static std::vector<uint8_t> z; z.resize(zcoll_compress_bound(S, ZCOLL_FLOAT32)); size_t sz;
        zcoll_compress(&p, ZCOLL_FLOAT32, x.data() + off, S, z.data(), z.size(), &sz, 1); tot += sz;
      }
      best = std::min(best, now() - t0);
    }
    size_t used = x.size() / S * S;
    printf("chunk %u %s: ratio %.2f compress %.3f GB/s\n", cs, mode ? "dims" : "1-D ", used * 4.0 / tot, used * 4e-9 / best);
  }
}
