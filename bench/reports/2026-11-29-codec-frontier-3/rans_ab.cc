// rans_ab.cc — variants of the AVX2 rANS decoder, timed alternately in one process
// (min over reps), on the symbols of a data file at a bound.
// g++ -O2 -std=c++17 -mavx2 -mbmi2 -mpopcnt -I src -I include -I build/include bench-out/rans_ab.cc -Wl,--start-group build/libzcoll_internal.a build/libzcoll.a -Wl,--end-group -fopenmp
#include <immintrin.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <vector>
#include "codec/chunk_codec.h"
#include "codec/dense.h"
using namespace zcoll;
static double now() { timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
struct WordPerm { uint8_t idx[256][8]; constexpr WordPerm() : idx() { for (int m = 0; m < 256; ++m) { int c = 0; for (int j = 0; j < 8; ++j) { idx[m][j] = uint8_t(c); c += (m >> j) & 1; } } } };
constexpr WordPerm kWordPerm;
struct WordPerm32 { alignas(32) uint32_t idx[256][8]; constexpr WordPerm32() : idx() { for (int m = 0; m < 256; ++m) { int c = 0; for (int j = 0; j < 8; ++j) { idx[m][j] = uint32_t(c); c += (m >> j) & 1; } } } };
constexpr WordPerm32 kWordPerm32;
static inline __m256i renorm32(__m256i x, const uint8_t*& p, __m256i low) {
  const __m256i need = _mm256_cmpgt_epi32(low, x);
  const int m = _mm256_movemask_ps(_mm256_castsi256_ps(need));
  const __m256i words = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p));
  const __m256i w = _mm256_permutevar8x32_epi32(words, _mm256_load_si256((const __m256i*)kWordPerm32.idx[m]));
  p += 2 * _mm_popcnt_u32(unsigned(m));
  return _mm256_blendv_epi8(x, _mm256_or_si256(_mm256_slli_epi32(x, 16), w), need);
}
struct Consts { __m256i slot_mask, one, low, pick; };
static inline __m256i set1(uint32_t v) { return _mm256_set1_epi32(int(v)); }
static inline void store_syms(__m256i e, const Consts& c, uint8_t* syms) {
  const __m256i s = _mm256_shuffle_epi8(e, c.pick);
  _mm_storel_epi64((__m128i*)syms, _mm_unpacklo_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1)));
}
// old table layout: s | (f-1) << 8 | k << 20
static inline __m256i step_old(__m256i x, const uint32_t* tab, const Consts& c, uint8_t* syms) {
  const __m256i e = _mm256_i32gather_epi32((const int*)tab, _mm256_and_si256(x, c.slot_mask), 4);
  const __m256i f = _mm256_add_epi32(_mm256_and_si256(_mm256_srli_epi32(e, 8), c.slot_mask), c.one);
  store_syms(e, c, syms);
  return _mm256_add_epi32(_mm256_mullo_epi32(f, _mm256_srli_epi32(x, 12)), _mm256_srli_epi32(e, 20));
}
// new layout: s | k << 8 | (f-1) << 20
static inline __m256i step_new(__m256i x, const uint32_t* tab, const Consts& c, uint8_t* syms) {
  const __m256i e = _mm256_i32gather_epi32((const int*)tab, _mm256_and_si256(x, c.slot_mask), 4);
  const __m256i q = _mm256_srli_epi32(x, 12);
  const __m256i add = _mm256_add_epi32(q, _mm256_and_si256(_mm256_srli_epi32(e, 8), c.slot_mask));
  store_syms(e, c, syms);
  return _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srli_epi32(e, 20), q), add);
}
static inline __m256i renorm(__m256i x, const uint8_t*& p, const Consts& c) {
  const __m256i need = _mm256_cmpgt_epi32(c.low, x);
  const int m = _mm256_movemask_ps(_mm256_castsi256_ps(need));
  const __m256i words = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p));
  const __m128i idx = _mm_loadl_epi64((const __m128i*)kWordPerm.idx[m]);
  const __m256i w = _mm256_permutevar8x32_epi32(words, _mm256_cvtepu8_epi32(idx));
  p += 2 * _mm_popcnt_u32(unsigned(m));
  return _mm256_blendv_epi8(x, _mm256_or_si256(_mm256_slli_epi32(x, 16), w), need);
}
static inline __m256i prefix8(__m256i x) {
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  const __m256i top = _mm256_shuffle_epi32(x, 0xFF);
  return _mm256_add_epi32(x, _mm256_permute2x128_si256(top, top, 0x08));
}
// both registers' words from one 32-byte load; indices by vector prefix sums
static inline void renorm2(__m256i& a, __m256i& b, const uint8_t*& p, const Consts& c) {
  const __m256i na = _mm256_cmpgt_epi32(c.low, a), nb = _mm256_cmpgt_epi32(c.low, b);
  const __m256i ca = _mm256_srli_epi32(na, 31), cb = _mm256_srli_epi32(nb, 31);
  const __m256i pa = prefix8(ca), pb = prefix8(cb);
  const __m256i ia = _mm256_sub_epi32(pa, ca);
  const __m256i ib = _mm256_add_epi32(_mm256_sub_epi32(pb, cb), _mm256_permutevar8x32_epi32(pa, set1(7)));
  const __m256i lo = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p));
  const __m256i hi = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)(p + 16)));
  const __m256i wa = _mm256_permutevar8x32_epi32(lo, ia);
  const __m256i wb = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, ib), _mm256_permutevar8x32_epi32(hi, ib), _mm256_cmpgt_epi32(ib, set1(7)));
  a = _mm256_blendv_epi8(a, _mm256_or_si256(_mm256_slli_epi32(a, 16), wa), na);
  b = _mm256_blendv_epi8(b, _mm256_or_si256(_mm256_slli_epi32(b, 16), wb), nb);
  const int m = _mm256_movemask_ps(_mm256_castsi256_ps(na)) | _mm256_movemask_ps(_mm256_castsi256_ps(nb)) << 8;
  p += 2 * _mm_popcnt_u32(unsigned(m));
}
// scalar loads instead of the gather
static inline __m256i step_sc(__m256i x, const uint32_t* tab, const Consts& c, uint8_t* syms) {
  alignas(32) uint32_t sl[8];
  _mm256_store_si256((__m256i*)sl, _mm256_and_si256(x, c.slot_mask));
  const __m256i e = _mm256_setr_epi32(tab[sl[0]], tab[sl[1]], tab[sl[2]], tab[sl[3]], tab[sl[4]], tab[sl[5]], tab[sl[6]], tab[sl[7]]);
  const __m256i q = _mm256_srli_epi32(x, 12);
  const __m256i add = _mm256_add_epi32(q, _mm256_and_si256(_mm256_srli_epi32(e, 8), c.slot_mask));
  store_syms(e, c, syms);
  return _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srli_epi32(e, 20), q), add);
}
static inline __m256i step_x(__m256i x, const uint32_t* tab, const Consts& c, uint8_t* syms) {
  const __m256i sl = _mm256_and_si256(x, c.slot_mask);
  const __m128i l = _mm256_castsi256_si128(sl), h = _mm256_extracti128_si256(sl, 1);
  const uint64_t s01 = uint64_t(_mm_cvtsi128_si64(l)), s23 = uint64_t(_mm_extract_epi64(l, 1));
  const uint64_t s45 = uint64_t(_mm_cvtsi128_si64(h)), s67 = uint64_t(_mm_extract_epi64(h, 1));
  const __m256i e = _mm256_setr_epi32(tab[uint32_t(s01)], tab[s01 >> 32], tab[uint32_t(s23)], tab[s23 >> 32], tab[uint32_t(s45)], tab[s45 >> 32], tab[uint32_t(s67)], tab[s67 >> 32]);
  const __m256i q = _mm256_srli_epi32(x, 12);
  const __m256i add = _mm256_add_epi32(q, _mm256_and_si256(_mm256_srli_epi32(e, 8), c.slot_mask));
  store_syms(e, c, syms);
  return _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srli_epi32(e, 20), q), add);
}
// LUT indices; b's offset by popcount(m_a) broadcast; one 32-byte load
static inline void renorm3(__m256i& a, __m256i& b, const uint8_t*& p, const Consts& c) {
  const __m256i na = _mm256_cmpgt_epi32(c.low, a), nb = _mm256_cmpgt_epi32(c.low, b);
  const int ma = _mm256_movemask_ps(_mm256_castsi256_ps(na)), mb = _mm256_movemask_ps(_mm256_castsi256_ps(nb));
  const int ka = _mm_popcnt_u32(unsigned(ma));
  const __m256i ia = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)kWordPerm.idx[ma]));
  const __m256i ib = _mm256_add_epi32(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i*)kWordPerm.idx[mb])), _mm256_set1_epi32(ka));
  const __m256i lo = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)p));
  const __m256i hi = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i*)(p + 16)));
  const __m256i wa = _mm256_permutevar8x32_epi32(lo, ia);
  const __m256i wb = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, ib), _mm256_permutevar8x32_epi32(hi, ib), _mm256_cmpgt_epi32(ib, set1(7)));
  a = _mm256_blendv_epi8(a, _mm256_or_si256(_mm256_slli_epi32(a, 16), wa), na);
  b = _mm256_blendv_epi8(b, _mm256_or_si256(_mm256_slli_epi32(b, 16), wb), nb);
  p += 2 * (ka + _mm_popcnt_u32(unsigned(mb)));
}
template <int V>
void dec(uint32_t* xs, const uint8_t** pos, const uint8_t* end, const uint32_t* tab, uint8_t* syms, uint32_t n) {
  const uint8_t* p = *pos;
  __m256i a = _mm256_loadu_si256((const __m256i*)xs), b = _mm256_loadu_si256((const __m256i*)(xs + 8));
  Consts c; c.slot_mask = set1(4095); c.one = set1(1); c.low = set1(1u << 15);
  c.pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  uint32_t i = 0;
  for (; i + 16 <= n && end - p >= 32; i += 16) {
    if (V == 0) { a = step_old(a, tab, c, syms + i); b = step_old(b, tab, c, syms + i + 8); }
    else if (V == 10) {}
    else if (V == 11) { a = step_new(a, tab, c, syms + i); b = step_x(b, tab, c, syms + i + 8); }
    else if (V == 7 || V == 8 || V == 9) { a = step_x(a, tab, c, syms + i); b = step_x(b, tab, c, syms + i + 8); }
    else if (V >= 4) { a = step_sc(a, tab, c, syms + i); b = step_sc(b, tab, c, syms + i + 8); }
    else { a = step_new(a, tab, c, syms + i); b = step_new(b, tab, c, syms + i + 8); }
    if (V == 9) { }
    else if (V == 10) { a = renorm(a, p, c); b = renorm(b, p, c); a = _mm256_srli_epi32(_mm256_add_epi32(a, c.one), 1); b = _mm256_srli_epi32(_mm256_add_epi32(b, c.one), 1); }
    else if (V == 8) { a = renorm32(a, p, c.low); b = renorm32(b, p, c.low); }
    else if (V <= 1 || V == 4 || V == 7 || V == 11) { a = renorm(a, p, c); b = renorm(b, p, c); }
    else if (V == 2 || V == 6) renorm2(a, b, p, c);
    else renorm3(a, b, p, c);
  }
  _mm256_storeu_si256((__m256i*)xs, a); _mm256_storeu_si256((__m256i*)(xs + 8), b);
  *pos = p;
  // the rest: scalar with the new layout (tests only; V0's tail uses its own table and is skipped: n % 16 == 0)
}
int main(int argc, char** argv) {
  std::ifstream f(argv[1], std::ios::binary | std::ios::ate);
  std::vector<float> x(size_t(f.tellg()) / 4); f.seekg(0); f.read((char*)x.data(), x.size() * 4);
  const double rel = atof(argv[2]);
  float mn = x[0], mx = x[0]; for (float v : x) if (std::isfinite(v)) mn = std::min(mn, v), mx = std::max(mx, v);
  const double q = 2 * rel * (mx - mn);
  const uint32_t C = 16384, n = x.size() / C * C;
  std::vector<uint32_t> res(n); int32_t prev = 0;
  for (uint32_t i = 0; i < n; ++i) { int32_t cc = (int32_t)std::llround(std::isfinite(x[i]) ? x[i] / q : 0); res[i] = (i % C) ? uint32_t(cc - prev) : uint32_t(cc); prev = cc; }
  std::vector<uint8_t> syms(n), out(n), extra(4 * C + 80);
  struct Ch { std::vector<uint8_t> words; uint32_t x0[16]; std::vector<uint32_t> tnew, told; };
  std::vector<Ch> chs;
  for (uint32_t c0 = 0; c0 < n; c0 += C) {
    scalar_kernels().dense_symbols(&res[c0], C, &syms[c0], extra.data());
    uint32_t cnt[256] = {}; for (uint32_t i = 0; i < C; ++i) cnt[syms[c0 + i]]++;
    uint32_t nsym = 0; for (uint32_t s = 0; s < 256; ++s) if (cnt[s]) nsym = s + 1;
    uint16_t fr[256]; uint32_t sum = 0, big = 0;
    for (uint32_t s = 0; s < nsym; ++s) { fr[s] = cnt[s] ? std::max<uint32_t>(1, uint64_t(cnt[s]) * 4096 / C) : 0; sum += fr[s]; if (fr[s] > fr[big]) big = s; }
    if (sum > 4096) fr[big] -= sum - 4096; else fr[big] += 4096 - sum;
    DenseEncSymbols es; dense_enc_symbols(fr, nsym, &es);
    Ch ch; ch.tnew.resize(4096); dense_dec_table(fr, nsym, ch.tnew.data());
    ch.told.resize(4096); uint32_t st = 0; for (uint32_t s = 0; s < nsym; ++s) { for (uint32_t k = 0; k < fr[s]; ++k) ch.told[st + k] = s | (fr[s] - 1u) << 8 | k << 20; st += fr[s]; }
    std::vector<uint8_t> buf(2 * C + 64); uint8_t* end = buf.data() + buf.size();
    const uint8_t* beg = scalar_kernels().dense_rans_encode(&syms[c0], C, es, end);
    for (int j = 0; j < 16; ++j) ch.x0[j] = load_u32(beg + 4 * j);
    ch.words.assign(beg + 64, (const uint8_t*)end); ch.words.resize(ch.words.size() + 64, 0);  // slack for the vector loop
    chs.push_back(std::move(ch));
  }
  using Fn = void (*)(uint32_t*, const uint8_t**, const uint8_t*, const uint32_t*, uint8_t*, uint32_t);
  Fn fns[12] = {dec<0>, dec<1>, dec<2>, dec<3>, dec<4>, dec<5>, dec<6>, dec<7>, dec<8>, dec<9>, dec<10>, dec<11>};
  double best[12] = {1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9, 1e9};
  for (int rep = 0; rep < 15; ++rep)
    for (int v = 0; v < 12; ++v) {
      double t0 = now();
      for (size_t k = 0; k < chs.size(); ++k) {
        Ch& ch = chs[k]; uint32_t xs[16]; memcpy(xs, ch.x0, 64);
        const uint8_t* p = ch.words.data();
        for (uint32_t i = 0; i < C; i += 2048) fns[v](xs, &p, ch.words.data() + ch.words.size(), v ? ch.tnew.data() : ch.told.data(), &out[k * C + i], 2048);
      }
      best[v] = std::min(best[v], now() - t0);
      if ((v < 9 || v == 11) && memcmp(out.data(), syms.data(), n)) { printf("variant %d MISMATCH\n", v); return 1; }
    }
  for (int v = 0; v < 12; ++v) printf("V%d %.3f ns/sym\n", v, best[v] * 1e9 / n);
}
