// adders.cc — the hom add's block loop with the AVX2 adder against the AVX-512 one
// (ChunkKernels::combine_blocks of avx2_kernels() and avx2_avx512_kernels()), in
// one process on the same chunks, so that the machine's drift, which swamps a
// few percent between two runs of the bench, hits both alike: per round, the loop
// over every quantized chunk pair of two streams with each adder in turn (the
// first alternating), caches warm; per adder the median ns a block, and the
// median and p10-p90 of the rounds' AVX-512 / AVX2 ratios. The two outputs are
// compared byte for byte. The inputs: the two halves of a field (the first and
// the last n/2 values, as zcoll-codec-bench --hom takes a 3-D field's), each
// compressed at ABS = REL x the field's value range.
//   g++ -O2 -std=c++17 -Iinclude -Ibuild/include -Isrc adders.cc build/libzcoll_internal.a
//       build/libzcoll.a -fopenmp -o adders          (one command; internal API)
//   ./adders FILE.f32 REL ROUNDS > out.json
#include <zcoll.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/format.h"

namespace {

std::vector<uint8_t> compress(const float* x, size_t n, double eb) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  std::vector<uint8_t> s(zcoll_compress_bound(n, ZCOLL_FLOAT32));
  size_t size = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x, n, s.data(), s.size(), &size, 1) != ZCOLL_SUCCESS) {
    std::fprintf(stderr, "compress: %s\n", zcoll_last_error());
    std::exit(1);
  }
  s.resize(size);
  return s;
}

struct Pair {  // one chunk pair both quantized: what combine_blocks takes
  const uint8_t *a, *b;
  size_t a_left, b_left, pos, raw;
  uint32_t nblocks;
  size_t out_at;
};

double pct(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: adders FILE.f32 REL ROUNDS\n"), 2;
  const zcoll::ChunkKernels* k[2] = {zcoll::avx2_kernels(), zcoll::avx2_avx512_kernels(false)};
  if (!k[0] || !k[1] || !zcoll::cpu_has_avx512_hom())
    return std::fprintf(stderr, "adders: needs the AVX2 and AVX-512 kernels\n"), 1;
  std::FILE* f = std::fopen(argv[1], "rb");
  if (!f) return std::perror(argv[1]), 1;
  std::vector<float> x;
  float buf[4096];
  for (size_t got; (got = std::fread(buf, 4, 4096, f)) > 0;) x.insert(x.end(), buf, buf + got);
  std::fclose(f);
  float lo = INFINITY, hi = -INFINITY;
  for (float v : x)
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  const double rel = std::atof(argv[2]), eb = rel * (double{hi} - lo);
  const int rounds = std::atoi(argv[3]);
  const size_t half = x.size() / 2;
  const std::vector<uint8_t> sa = compress(x.data(), half, eb);
  const std::vector<uint8_t> sb = compress(x.data() + half, half, eb);
  zcoll::StreamView va, vb;
  if (zcoll::parse_stream(sa.data(), sa.size(), &va) != ZCOLL_SUCCESS ||
      zcoll::parse_stream(sb.data(), sb.size(), &vb) != ZCOLL_SUCCESS)
    return std::fprintf(stderr, "parse failed\n"), 1;
  std::vector<Pair> pairs;
  size_t out_bytes = 0, blocks = 0;
  for (uint64_t c = 0; c < va.chunks; ++c) {
    const uint8_t *a = va.chunk(c), *b = vb.chunk(c);
    if (a[0] != zcoll::kChunkQuantized || b[0] != zcoll::kChunkQuantized) continue;
    const uint32_t len = va.h.chunk_len(c), nb = (len + zcoll::kBlock - 1) / zcoll::kBlock;
    const size_t raw = zcoll::raw_chunk_bytes(len, 4);
    pairs.push_back({a, b, va.bytes_from(c), vb.bytes_from(c),
                     zcoll::kQuantChunkHeaderBytes + zcoll::align4(nb), raw, nb, out_bytes});
    out_bytes += raw + 4 * 35 * size_t{nb};  // room for any sum: the loop need not check
    blocks += nb;
  }
  std::vector<uint8_t> out[2] = {std::vector<uint8_t>(out_bytes), std::vector<uint8_t>(out_bytes)};
  std::vector<size_t> ends[2];
  const auto run = [&](int i) {
    uint64_t counts[4] = {0, 0, 0, 0};
    ends[i].clear();
    const auto t0 = std::chrono::steady_clock::now();
    for (const Pair& p : pairs)
      ends[i].push_back(k[i]->combine_blocks(p.a, p.a_left, p.b, p.b_left, out[i].data() + p.out_at,
                                             p.nblocks, false, p.pos, p.raw + 4 * 35 * p.nblocks,
                                             false, counts));
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  run(0), run(1);  // warm
  std::vector<double> t[2], ratio;
  for (int r = 0; r < rounds; ++r) {
    double s[2];
    for (int j = 0; j < 2; ++j) {
      const int i = (r + j) % 2;
      s[i] = run(i);
    }
    t[0].push_back(s[0]), t[1].push_back(s[1]), ratio.push_back(s[1] / s[0]);
  }
  bool same = ends[0] == ends[1];
  for (size_t p = 0; same && p < pairs.size(); ++p)
    same = std::memcmp(out[0].data() + pairs[p].out_at, out[1].data() + pairs[p].out_at,
                       ends[0][p]) == 0;
  std::printf(
      "{\"file\": \"%s\", \"rel\": %g, \"rounds\": %d, \"chunk_pairs\": %zu, \"blocks\": %zu, "
      "\"avx2_ns_per_block\": %.3f, \"avx512_ns_per_block\": %.3f, \"avx512_over_avx2\": "
      "{\"median\": %.4f, \"p10\": %.4f, \"p90\": %.4f}, \"same_bytes\": %s}\n",
      argv[1], rel, rounds, pairs.size(), blocks, pct(t[0], 0.5) / blocks * 1e9,
      pct(t[1], 0.5) / blocks * 1e9, pct(ratio, 0.5), pct(ratio, 0.1), pct(ratio, 0.9),
      same ? "true" : "false");
  return same ? 0 : 1;
}
