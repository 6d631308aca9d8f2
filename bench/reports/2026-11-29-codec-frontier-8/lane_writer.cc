// lane_writer.cc FILE REL ROUNDS — what writing the extra bits in a sixteen-lane
// layout would cost the dense encoder (a prototype for issue 34; not the codec).
//
// The layout: value i is in lane i % 16; each lane's extra bits (LSB first, values in
// order) are cut into 16-bit words, and the words of all lanes are stored in the order
// a decoder of sixteen values at a time takes them: per group of sixteen, first the
// lanes that need more bits for their first min(k, 16) bits (lanes 0..15), then for the
// rest (k > 16), a lane taking a word when its buffer holds fewer bits than it needs.
// Such a decoder needs no prefix sum of the counts (lane-buffers.patch times one).
//
// The writer here reserves a word's place when the decoder would take it and fills it
// once the lane has 16 more bits, eight lanes per AVX2 register. The field's codes
// (round(x / 2eb)), Lorenzo order 1 residuals, and the symbols' extra bits (k, bits) of
// docs/format.md §5.3 are computed first, untimed. Checked: a scalar reader of the
// layout gives back every value's bits. Timed, one thread, CPU time, ROUNDS rounds:
// the writer, and zcoll_compress (dense) of the same field for scale. Prints JSON.
// g++ -O2 -mavx2 -mpopcnt -std=c++17 -I include -I build/include lane_writer.cc -L build -lzcoll
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <vector>

#include "zcoll.h"

namespace {

double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// lane j's rank among the set lanes of mask m below it
struct Rank {
  uint8_t idx[256][8];
  Rank() {
    for (int m = 0; m < 256; ++m)
      for (int j = 0, c = 0; j < 8; ++j) idx[m][j] = static_cast<uint8_t>(c), c += (m >> j) & 1;
  }
};
const Rank kRank;

// Eight lanes' writer state: the decoder's bit count, the bits not yet in a word and
// their count, and up to two reserved words (-1: none), oldest first.
struct Lanes8 {
  __m256i n = _mm256_setzero_si256(), acc = _mm256_setzero_si256(),
          accn = _mm256_setzero_si256(), p0 = _mm256_set1_epi32(-1),
          p1 = _mm256_set1_epi32(-1);
};

// One stage of eight lanes taking t bits each (t <= 16; b: those bits). Built with
// -DBRANCH_FREE, no branch on the data: every lane stores a word, those without one
// to words[0], a spare word before the stream (also measured, slower).
inline void stage(Lanes8& s, __m256i t, __m256i b, uint32_t& next, uint16_t* words) {
  const __m256i none = _mm256_set1_epi32(-1), sixteen = _mm256_set1_epi32(16);
  const __m256i need = _mm256_cmpgt_epi32(t, s.n);
  const int m = _mm256_movemask_ps(_mm256_castsi256_ps(need));
#ifndef BRANCH_FREE
  if (m)
#endif
  {
    const __m256i rank =
        _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kRank.idx[m])));
    const __m256i slot = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(next)), rank);
    next += static_cast<uint32_t>(_mm_popcnt_u32(static_cast<uint32_t>(m)));
    const __m256i empty0 = _mm256_cmpeq_epi32(s.p0, none);
    s.p0 = _mm256_blendv_epi8(s.p0, slot, _mm256_and_si256(need, empty0));
    s.p1 = _mm256_blendv_epi8(s.p1, slot, _mm256_andnot_si256(empty0, need));
    s.n = _mm256_add_epi32(s.n, _mm256_and_si256(need, sixteen));
  }
  s.n = _mm256_sub_epi32(s.n, t);
  s.acc = _mm256_or_si256(s.acc, _mm256_sllv_epi32(b, s.accn));
  s.accn = _mm256_add_epi32(s.accn, t);
  const __m256i done = _mm256_cmpgt_epi32(s.accn, _mm256_set1_epi32(15));
  alignas(32) uint32_t a[8], p[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(a), s.acc);
#ifdef BRANCH_FREE
  _mm256_store_si256(reinterpret_cast<__m256i*>(p),
                     _mm256_blendv_epi8(_mm256_setzero_si256(), s.p0, done));
  for (int j = 0; j < 8; ++j) words[p[j]] = static_cast<uint16_t>(a[j]);
#else
  int d = _mm256_movemask_ps(_mm256_castsi256_ps(done));
  if (!d) return;
  _mm256_store_si256(reinterpret_cast<__m256i*>(p), s.p0);
  for (; d; d &= d - 1) {
    const int j = __builtin_ctz(static_cast<unsigned>(d));
    words[p[j]] = static_cast<uint16_t>(a[j]);
  }
#endif
  s.acc = _mm256_blendv_epi8(s.acc, _mm256_srli_epi32(s.acc, 16), done);
  s.accn = _mm256_sub_epi32(s.accn, _mm256_and_si256(done, sixteen));
  s.p0 = _mm256_blendv_epi8(s.p0, s.p1, done);
  s.p1 = _mm256_blendv_epi8(s.p1, none, done);
}

// The words of n values' extra bits (k[i] <= 29, bits[i] < 2^k[i]); returns their count.
uint32_t write_lanes(const uint8_t* k, const uint32_t* bits, uint32_t n, uint16_t* words) {
  Lanes8 lo, hi;
  uint32_t next = 1;  // words[0]: the spare word
  const __m256i sixteen = _mm256_set1_epi32(16), low16 = _mm256_set1_epi32(0xFFFF);
  uint32_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i kb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + i));
    if (_mm_testz_si128(kb, kb)) continue;  // no extra bits in the group
    const __m256i k0 = _mm256_cvtepu8_epi32(kb), k1 = _mm256_cvtepu8_epi32(_mm_srli_si128(kb, 8));
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + i));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bits + i + 8));
    const __m256i t0 = _mm256_min_epu32(k0, sixteen), t1 = _mm256_min_epu32(k1, sixteen);
    stage(lo, t0, _mm256_and_si256(b0, low16), next, words);
    stage(hi, t1, _mm256_and_si256(b1, low16), next, words);
    const __m256i two = _mm256_cmpgt_epi32(_mm256_max_epu32(k0, k1), sixteen);
    if (!_mm256_testz_si256(two, two)) {
      stage(lo, _mm256_sub_epi32(k0, t0), _mm256_srli_epi32(b0, 16), next, words);
      stage(hi, _mm256_sub_epi32(k1, t1), _mm256_srli_epi32(b1, 16), next, words);
    }
  }
  if (i < n) {  // the last group: lanes past n take nothing
    uint8_t kt[16] = {};
    uint32_t bt[16] = {};
    std::memcpy(kt, k + i, n - i);
    std::memcpy(bt, bits + i, 4 * (n - i));
    const __m128i kb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kt));
    const __m256i k0 = _mm256_cvtepu8_epi32(kb), k1 = _mm256_cvtepu8_epi32(_mm_srli_si128(kb, 8));
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bt));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bt + 8));
    const __m256i t0 = _mm256_min_epu32(k0, sixteen), t1 = _mm256_min_epu32(k1, sixteen);
    stage(lo, t0, _mm256_and_si256(b0, low16), next, words);
    stage(hi, t1, _mm256_and_si256(b1, low16), next, words);
    stage(lo, _mm256_sub_epi32(k0, t0), _mm256_srli_epi32(b0, 16), next, words);
    stage(hi, _mm256_sub_epi32(k1, t1), _mm256_srli_epi32(b1, 16), next, words);
  }
  // the reserved words still open: their bits so far (zeros above), then zeros
  for (Lanes8* s : {&lo, &hi}) {
    alignas(32) uint32_t a[8], p0[8], p1[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(a), s->acc);
    _mm256_store_si256(reinterpret_cast<__m256i*>(p0), s->p0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(p1), s->p1);
    for (int j = 0; j < 8; ++j) {
      if (p0[j] != 0xFFFFFFFFu) words[p0[j]] = static_cast<uint16_t>(a[j]);
      if (p1[j] != 0xFFFFFFFFu) words[p1[j]] = 0;  // (after the loop: no branch cost)
    }
  }
  return next - 1;  // the stream: words + 1
}

// For comparison, today's layout (one stream, values in order) as the scalar symbol
// pass writes it: a 64-bit bit writer, every value of a group with extra bits put
// (k = 0 puts nothing), groups without any skipped. Returns the bytes.
size_t write_stream(const uint8_t* k, const uint32_t* bits, uint32_t n, uint8_t* out) {
  uint8_t* p = out;
  uint64_t buf = 0;
  uint32_t have = 0;
  for (uint32_t i = 0; i < n; i += 16) {
    const uint32_t m = std::min(16u, n - i);
    uint64_t any = 0, k8[2] = {0, 0};
    std::memcpy(k8, k + i, m);
    any = k8[0] | k8[1];
    if (!any) continue;
    for (uint32_t j = 0; j < m; ++j) {
      buf |= uint64_t{bits[i + j]} << have;
      have += k[i + j];
      std::memcpy(p, &buf, 8);
      p += have >> 3;
      buf >>= have & ~7u;
      have &= 7u;
    }
  }
  if (have) *p++ = static_cast<uint8_t>(buf);
  return static_cast<size_t>(p - out);
}

// The reader of the layout (scalar, as a decoder would take the words): true if
// every value's bits come back.
bool read_back(const uint8_t* k, const uint32_t* bits, uint32_t n, const uint16_t* words,
               uint32_t count) {
  uint32_t buf[16] = {}, have[16] = {}, next = 0;
  for (uint32_t g = 0; g < n; g += 16) {
    uint32_t v[16] = {};
    for (uint32_t stage = 0; stage < 2; ++stage)
      for (uint32_t j = 0; j < 16; ++j) {
        const uint32_t kk = g + j < n ? k[g + j] : 0;
        const uint32_t t = stage == 0 ? std::min(kk, 16u) : kk - std::min(kk, 16u);
        if (have[j] < t) {
          buf[j] |= uint32_t{next < count ? words[next] : 0u} << have[j];
          ++next, have[j] += 16;
        }
        const uint32_t b = buf[j] & ((1u << t) - 1);
        buf[j] = t ? buf[j] >> t : buf[j], have[j] -= t;
        v[j] |= stage == 0 ? b : b << 16;
      }
    for (uint32_t j = 0; j < 16 && g + j < n; ++j)
      if (v[j] != bits[g + j]) return false;
  }
  return next == count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: lane_writer FILE REL ROUNDS\n"), 2;
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(static_cast<size_t>(f.tellg()) / 4);
  f.seekg(0);
  f.read(reinterpret_cast<char*>(x.data()), static_cast<std::streamsize>(x.size() * 4));
  float mn = INFINITY, mx = -INFINITY;
  for (float v : x)
    if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  const double eb = std::atof(argv[2]) * (mx - mn);
  const uint32_t n = static_cast<uint32_t>(x.size()), chunk = 16384;
  std::vector<uint8_t> k(n);
  std::vector<uint32_t> bits(n);
  size_t total_bits = 0;
  int64_t prev = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const int64_t q = std::isfinite(x[i]) ? std::llround(x[i] / (2 * eb)) : 0;
    const auto r = static_cast<uint32_t>(i % chunk ? q - prev : q);
    prev = q;
    const uint32_t u = (r << 1) ^ (0u - (r >> 31));
    uint32_t e = 0;
    while (e < 31 && (u >> (e + 1))) ++e;
    k[i] = static_cast<uint8_t>(u >= 64 ? e - 2 : 0);
    bits[i] = u >= 64 ? u & ((1u << k[i]) - 1) : 0;
    total_bits += k[i];
  }
  std::vector<uint16_t> words(total_bits / 16 + 32 * (n / chunk + 1) + 64);
  // per chunk, as the codec would (a chunk's layout is its own)
  const auto write_all = [&](uint32_t* count) {
    uint32_t c = 0, w = 0;  // words[c]: the chunk's spare word, then its stream
    for (uint32_t at = 0; at < n; at += chunk) {
      const uint32_t m = std::min(chunk, n - at);
      const uint32_t cw = write_lanes(k.data() + at, bits.data() + at, m, words.data() + c);
      c += 1 + cw, w += cw;
    }
    *count = w;
  };
  uint32_t count = 0;
  write_all(&count);
  bool ok = true;
  for (uint32_t at = 0, c = 0; at < n; at += chunk) {
    const uint32_t m = std::min(chunk, n - at);
    std::vector<uint16_t> w(words.size());
    const uint32_t cc = write_lanes(k.data() + at, bits.data() + at, m, w.data());
    ok = ok && read_back(k.data() + at, bits.data() + at, m, w.data() + 1, cc);
    c += cc;
  }
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  p.codec = ZCOLL_CODEC_DENSE;
  std::vector<uint8_t> z(zcoll_compress_bound(n, ZCOLL_FLOAT32));
  size_t sz = 0;
  std::vector<uint8_t> stream(total_bits / 8 + 16 * (n / chunk + 2));  // + a flush and 8 bytes of room per chunk
  const auto write_all_stream = [&] {
    size_t b = 0;
    for (uint32_t at = 0; at < n; at += chunk)
      b += write_stream(k.data() + at, bits.data() + at, std::min(chunk, n - at), stream.data() + b);
    return b;
  };
  std::vector<double> tw, tc, ts;
  const int rounds = std::atoi(argv[3]);
  for (int r = 0; r < rounds; ++r) {
    double t0 = cpu_now();
    for (int rep = 0; rep < 10; ++rep) write_all(&count);
    double t1 = cpu_now();
    for (int rep = 0; rep < 10; ++rep)
      if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), n, z.data(), z.size(), &sz, 1)) return 1;
    double t2 = cpu_now();
    for (int rep = 0; rep < 10; ++rep) write_all_stream();
    double t3 = cpu_now();
    tw.push_back(t1 - t0), tc.push_back(t2 - t1), ts.push_back(t3 - t2);
  }
  std::printf("{\"file\": \"%s\", \"rel\": %s, \"checked\": %s, \"extra_bits\": %zu, \"words\": %u, "
              "\"writer_over_compress\": [",
              argv[1], argv[2], ok ? "true" : "false", total_bits, count);
  for (int r = 0; r < rounds; ++r) std::printf("%s%.4f", r ? ", " : "", tw[r] / tc[r]);
  std::printf("], \"stream_writer_over_compress\": [");
  for (int r = 0; r < rounds; ++r) std::printf("%s%.4f", r ? ", " : "", ts[r] / tc[r]);
  std::printf("]}\n");
  return ok ? 0 : 4;
}
