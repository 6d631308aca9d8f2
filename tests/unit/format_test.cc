// format_test.cc — the stream format of docs/format.md: the worked examples byte
// for byte, an independent reference decoder written from the document alone
// (it must agree with zcoll_decompress on every stream), CRC-32C, and a golden
// digest of many streams (the same for every kernel set).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "codec/format.h"       // internal: zcoll::crc32c
#include "codec/value_types.h"  // internal: rounding floats to 16-bit test inputs
#include "test_data.h"
#include "test_util.h"

namespace {

using zt::Rng;

// ---- an independent implementation of docs/format.md -----------------------------

uint32_t ref_crc32c(const uint8_t* p, size_t n, uint32_t crc = 0) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

uint32_t le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t{p[3]} << 24; }
uint64_t le64(const uint8_t* p) { return le32(p) | uint64_t{le32(p + 4)} << 32; }
double lef64(const uint8_t* p) {
  uint64_t u = le64(p);
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}

// Predictor 5 of §5.3, literally: the extents, then for each stride and dim every
// value of the chunk tested against the rule, in increasing j; res holds the
// residuals in stream order.
template <typename T>
void ref_interp(const std::vector<uint32_t>& res, uint32_t len, uint32_t D, bool cubic, uint64_t W,
                uint64_t P, double factor, T* o) {
  uint64_t n[3] = {len, 1, 1}, t[3] = {1, W, P};
  if (D >= 2) n[0] = std::min<uint64_t>(W, len), n[1] = (len + W - 1) / W;
  if (D == 3) n[1] = std::min<uint64_t>(P / W, (len + W - 1) / W), n[2] = (len + P - 1) / P;
  std::vector<uint32_t> v(len);
  size_t k = 0;
  if (len) v[0] = 255u * res[k++];  // prediction 0
  uint64_t S = 0;
  for (uint64_t m = 1; m < std::max({n[0], n[1], n[2]}); m *= 2) S = m;
  for (uint64_t s = S; s >= 1; s /= 2) {
    for (int d = 2; d >= 0; --d) {
      if (n[d] <= s) continue;
      for (uint64_t j = 0; j < len; ++j) {
        uint64_t c[3] = {j, 0, 0};  // D = 1
        if (D == 2) c[0] = j % W, c[1] = j / W;
        if (D == 3) c[0] = j % W, c[1] = j / W % (P / W), c[2] = j / P;
        if (c[0] >= n[0] || c[1] >= n[1] || c[2] >= n[2]) continue;
        if (c[d] % (2 * s) != s) continue;
        bool take = true;
        for (int e = 0; e < 3; ++e)
          if (e != d && c[e] % (e > d ? s : 2 * s) != 0) take = false;
        if (!take) continue;
        const uint64_t off = s * t[d], cd = c[d];
        auto at = [&](uint64_t i) { return static_cast<int64_t>(static_cast<int32_t>(v[i])); };
        const bool has_e = cd + s < n[d] && j + off < len, has_a = cd >= 3 * s;
        const bool has_f = cd + 3 * s < n[d] && j + 3 * off < len;
        const int64_t b = at(j - off);
        int64_t p = b;
        auto floor_div = [](int64_t x, int64_t m) { return x >= 0 ? x / m : -((-x + m - 1) / m); };
        if (has_e) {
          const int64_t e = at(j + off);
          if (cubic && has_a && has_f)
            p = floor_div(9 * (b + e) - at(j - 3 * off) - at(j + 3 * off) + 8, 16);
          else if (cubic && has_a)
            p = floor_div(6 * b + 3 * e - at(j - 3 * off) + 4, 8);
          else if (cubic && has_f)
            p = floor_div(3 * b + 6 * e - at(j + 3 * off) + 4, 8);
          else
            p = floor_div(b + e, 2);
        }
        v[j] = static_cast<uint32_t>(p) + 255u * res[k++];
      }
    }
  }
  const double fine = factor / 256;
  for (uint32_t j = 0; j < len; ++j)
    o[j] = static_cast<T>(static_cast<double>(static_cast<int32_t>(v[j])) * fine);
}

// A dense chunk's predictor fields (§5.3): row W (3), row W and plane P (4),
// mode M, W, P (5); false when invalid.
struct RefPredictor {
  uint32_t F = 0, D = 1;
  bool cubic = false;
  uint64_t W = 0, P = 0;
};
bool ref_predictor(const uint8_t* ch, uint32_t bytes, RefPredictor& pr, std::string* why) {
  auto bad = [&](const char* w) {
    *why = w;
    return false;
  };
  const uint32_t id = ch[1];
  if (id < 1 || id > 5) return bad("dense predictor");
  pr.F = id == 3 ? 4 : id == 4 ? 8 : id == 5 ? 12 : 0;
  if (8 + pr.F > bytes) return bad("dense predictor fields");
  const uint32_t M = id == 5 ? le32(ch + 8) : 0;
  pr.D = (M & 3) + 1, pr.cubic = (M & 4) != 0;
  pr.W = id == 5 ? le32(ch + 12) : pr.F ? le32(ch + 8) : 0;
  pr.P = id == 5 ? le32(ch + 16) : pr.F == 8 ? le32(ch + 12) : 0;
  const uint64_t W = pr.W, P = pr.P;
  if (id == 5) {
    if (pr.D > 3 || (M & ~7u)) return bad("dense interpolation mode");
    if (pr.D == 1 && (W || P)) return bad("dense interpolation strides");
    if (pr.D >= 2 && (W < 1 || W > (1u << 20))) return bad("dense row");
    if (pr.D == 2 && P) return bad("dense plane");
    if (pr.D == 3 && (P <= W || P > (1u << 20) || P % W)) return bad("dense plane");
    return true;
  }
  if (pr.F && (W < 1 || W > (1u << 20))) return bad("dense row");
  if (pr.F == 8 && (P <= W || P > (1u << 20))) return bad("dense plane");
  return true;
}

// A dense chunk (§5.3) of len values into o; false when its framing is invalid.
template <typename T>
bool ref_dense(const uint8_t* ch, uint32_t bytes, uint32_t len, double factor, T* o,
               std::string* why) {
  auto bad = [&](const char* w) {
    *why = w;
    return false;
  };
  if (bytes < 8) return bad("dense header");
  const uint32_t pred_id = ch[1], nsym = ch[2];
  if (nsym < 1 || nsym > 168 || ch[3] != 0) return bad("dense symbol count");
  const uint64_t extra_bytes = le32(ch + 4);
  RefPredictor pr;
  if (!ref_predictor(ch, bytes, pr, why)) return false;
  const uint64_t W = pr.W, P = pr.P;
  // the frequency table: 1..127 one frequency; 128..191 and the next byte one
  // frequency ((b - 128) << 8 | c); 192..255 a run of b - 191 zero frequencies
  std::vector<uint32_t> freq, start(nsym + 1, 0);
  uint64_t E = 8 + pr.F;
  while (freq.size() < nsym) {
    if (E >= bytes) return bad("dense table past the chunk");
    const uint32_t b = ch[E++];
    if (b == 0) return bad("dense table byte 0");
    if (b < 128) {
      freq.push_back(b);
    } else if (b < 192) {
      if (E >= bytes) return bad("dense table past the chunk");
      freq.push_back((b - 128) << 8 | ch[E++]);
    } else {
      if (b - 191 > nsym - freq.size()) return bad("dense zero run past nsym");
      freq.insert(freq.end(), b - 191, 0u);
    }
  }
  for (uint32_t s = 0; s < nsym; ++s) start[s + 1] = start[s] + freq[s];
  if (start[nsym] != 4096) return bad("dense frequencies");
  const uint64_t R = E + extra_bytes;
  if (R + 64 > bytes) return bad("dense sizes");
  uint32_t x[16];
  for (int k = 0; k < 16; ++k) {
    x[k] = le32(ch + R + 4 * k);
    if (x[k] < (1u << 15) || x[k] >= (1u << 31)) return bad("dense state");
  }
  uint64_t word = R + 64, bit = 0;  // next rANS word; next extra bit (from E)
  auto next_word = [&]() -> uint32_t {
    const uint32_t w = word + 2 <= bytes ? (ch[word] | ch[word + 1] << 8) : 0;
    word += 2;
    return w;
  };
  auto next_bit = [&]() -> uint32_t {
    const uint32_t b = bit < 8ull * extra_bytes ? (ch[E + bit / 8] >> (bit % 8)) & 1u : 0;
    ++bit;
    return b;
  };
  std::vector<uint32_t> q(len);
  for (uint32_t i = 0; i < len; ++i) {
    uint32_t& xs = x[i % 16];
    const uint32_t slot = xs % 4096;
    uint32_t s = 0;
    while (!(start[s] <= slot && slot < start[s + 1])) ++s;
    xs = freq[s] * (xs / 4096) + slot - start[s];
    if (xs < (1u << 15)) xs = xs << 16 | next_word();
    uint32_t u = s;
    if (s >= 64) {
      const uint32_t e = (s - 64) / 4 + 6, m = (s - 64) % 4;
      uint32_t b = 0;
      for (uint32_t k = 0; k < e - 2; ++k) b |= next_bit() << k;
      u = (4 + m) << (e - 2) | b;
    }
    const uint32_t r = (u >> 1) ^ (0u - (u & 1u));
    if (pred_id == 5) {
      q[i] = r;  // the residuals in order; the traversal below places them
      continue;
    }
    uint32_t pred = i == 0 ? 0 : q[i - 1];
    if (pred_id == 2 && i >= 2) pred = 2 * q[i - 1] - q[i - 2];
    if (pred_id >= 3 && i > W) pred = q[i - 1] + q[i - W] - q[i - W - 1];
    if (pred_id == 4 && i > P + W)
      pred += q[i - P] - q[i - P - 1] - q[i - P - W] + q[i - P - W - 1];
    q[i] = pred + r;
    o[i] = static_cast<T>(static_cast<double>(static_cast<int32_t>(q[i])) * factor);
  }
  if (pred_id == 5) ref_interp(q, len, pr.D, pr.cubic, W, P, factor, o);
  return true;
}

// Decode a whole stream following the document; false on anything invalid.
template <typename T>
bool ref_decode(const uint8_t* s, size_t size, std::vector<T>* out, std::string* why) {
  auto bad = [&](const char* w) {
    *why = w;
    return false;
  };
  if (size < 48) return bad("short header");
  if (std::memcmp(s, "ZCOL", 4) != 0) return bad("magic");
  if (s[4] != 1) return bad("version");
  const int dtype = s[5];
  if (dtype != (sizeof(T) == 4 ? 1 : 2)) return bad("dtype");
  if (s[6] != 5 || (s[7] & ~2) != 0) return bad("block size / flags");
  const bool dense = (s[7] & 2) != 0;  // format 1.3: dense chunks allowed
  const uint32_t cs = le32(s + 8), divisor = le32(s + 12), terms = le32(s + 40);
  const uint64_t n = le64(s + 16);
  const double eb = lef64(s + 24), quantum = lef64(s + 32);
  if (cs % 32 || cs < 1024 || cs > 1048576 || divisor == 0 || terms == 0) return bad("fields");
  if (!(eb > 0 && std::isfinite(eb) && quantum > 0 && std::isfinite(quantum)))
    return bad("eb/quantum");
  const uint64_t chunks = (n + cs - 1) / cs;
  const size_t index_bytes = (chunks * 4 + 7) / 8 * 8;
  if (size < 48 + index_bytes) return bad("short index");
  uint32_t crc = ref_crc32c(s, 44);
  crc = ref_crc32c(s + 48, index_bytes, crc);
  if (crc != le32(s + 44)) return bad("checksum");
  const double factor = quantum / static_cast<double>(divisor);
  out->assign(n, T(0));
  size_t off = 48 + index_bytes;
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint32_t bytes = le32(s + 48 + 4 * c);
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(cs, n - c * cs));
    const size_t raw = (8 + size_t{len} * sizeof(T) + 7) / 8 * 8;
    if (bytes < 8 || bytes % 8 || bytes > raw) return bad("chunk size");
    if (off + bytes > size) return bad("truncated chunk");
    const uint8_t* ch = s + off;
    T* o = out->data() + c * cs;
    if (ch[0] == 1) {
      if (bytes != raw) return bad("raw size");
      std::memcpy(o, ch + 8, size_t{len} * sizeof(T));
    } else if (ch[0] == 0) {
      const uint32_t nb = (len + 31) / 32;
      const size_t head = 12 + (nb + 3) / 4 * 4;
      if (bytes < head) return bad("quantized header");
      size_t total = head;
      for (uint32_t b = 0; b < nb; ++b) {
        if (ch[12 + b] > 33) return bad("code length");
        total += 4u * ch[12 + b];
      }
      if ((total + 7) / 8 * 8 != bytes) return bad("payload size");
      uint32_t q = le32(ch + 4);  // anchor; prefix sum modulo 2^32
      size_t pos = head;
      for (uint32_t b = 0; b < nb; ++b) {
        const uint32_t W = ch[12 + b];
        uint32_t d[32] = {0};
        for (uint32_t j = 0; j < W && j < 32; ++j) {
          const uint32_t plane = le32(ch + pos + 4 * j);
          for (int i = 0; i < 32; ++i) d[i] |= ((plane >> i) & 1u) << j;
        }
        if (W > 0 && W < 32)
          for (int i = 0; i < 32; ++i)
            if (d[i] >> (W - 1) & 1u) d[i] |= ~0u << W;  // sign extension
        pos += 4u * W;
        for (uint32_t i = 0; i < 32 && b * 32 + i < len; ++i) {
          q += d[i];
          const int32_t code = static_cast<int32_t>(q);
          o[b * 32 + i] = static_cast<T>(static_cast<double>(code) * factor);
        }
      }
    } else if (ch[0] == 2 && dense) {
      if (!ref_dense(ch, bytes, len, factor, o, why)) return false;
    } else {
      return bad("chunk kind");
    }
    off += bytes;
  }
  return true;
}

// The 16-bit types (format 1.2): the same walk, with §6's reconstruction of a
// 16-bit value: the double x' rounded to float, then to 16 bits (ties to even),
// written here from the definition with frexp/ldexp. out receives the 16-bit
// patterns. dtype 3 = bfloat16 (p = 8 significant bits, 2^-126 the smallest
// normal), 4 = float16 (p = 11, 2^-14, largest finite 65504).
uint16_t ref_encode16(float f, int dtype) {
  const bool bf = dtype == 3;
  const int p = bf ? 8 : 11, emin = bf ? -126 : -14, ebias = bf ? 127 : 15;
  const double maxf = bf ? 3.3895313892515355e38 : 65504.0;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  double x = std::fabs(static_cast<double>(f));
  if (std::isnan(f)) return 0;  // not produced by a reconstruction
  if (x != 0 && std::isfinite(x)) {
    int e;
    std::frexp(x, &e);
    const double ulp = std::ldexp(1.0, std::max(e - 1, emin) - (p - 1));
    x = std::nearbyint(x / ulp) * ulp;  // ties to even
  }
  if (!(x <= maxf)) return sign | (bf ? 0x7F80 : 0x7C00);  // overflow: Inf
  if (x == 0) return sign;
  int e;
  const double m = std::frexp(x, &e);  // x = m 2^e
  if (e - 1 < emin)                    // subnormal: units of 2^(emin - p + 1)
    return sign | static_cast<uint16_t>(std::ldexp(x, -(emin - p + 1)));
  const uint32_t frac = static_cast<uint32_t>(std::ldexp(m * 2 - 1, p - 1));
  return sign | static_cast<uint16_t>((e - 1 + ebias) << (p - 1) | frac);
}

bool ref_decode16(const uint8_t* s, size_t size, std::vector<uint16_t>* out, std::string* why) {
  auto bad = [&](const char* w) {
    *why = w;
    return false;
  };
  if (size < 48 || std::memcmp(s, "ZCOL", 4) != 0 || s[4] != 1) return bad("header");
  const int dtype = s[5];
  if (dtype != 3 && dtype != 4) return bad("dtype");
  if (s[6] != 5 || s[7] != 0) return bad("block size / flags");
  const uint32_t cs = le32(s + 8), divisor = le32(s + 12);
  const uint64_t n = le64(s + 16);
  const double quantum = lef64(s + 32);
  const uint64_t chunks = (n + cs - 1) / cs;
  const size_t index_bytes = (chunks * 4 + 7) / 8 * 8;
  if (size < 48 + index_bytes) return bad("short index");
  if ((ref_crc32c(s + 48, index_bytes, ref_crc32c(s, 44))) != le32(s + 44)) return bad("checksum");
  const double factor = quantum / static_cast<double>(divisor);
  out->assign(n, 0);
  size_t off = 48 + index_bytes;
  for (uint64_t c = 0; c < chunks; ++c) {
    const uint32_t bytes = le32(s + 48 + 4 * c);
    const uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(cs, n - c * cs));
    const size_t raw = (8 + size_t{len} * 2 + 7) / 8 * 8;  // vb = 2
    if (bytes < 8 || bytes % 8 || bytes > raw || off + bytes > size) return bad("chunk size");
    const uint8_t* ch = s + off;
    uint16_t* o = out->data() + c * cs;
    if (ch[0] == 1) {
      if (bytes != raw || divisor != 1) return bad("raw chunk");
      for (uint32_t i = 0; i < len; ++i)
        o[i] = static_cast<uint16_t>(ch[8 + 2 * i] | ch[9 + 2 * i] << 8);
    } else if (ch[0] == 0) {
      const uint32_t nb = (len + 31) / 32;
      size_t pos = 12 + (nb + 3) / 4 * 4;
      uint32_t q = le32(ch + 4);
      for (uint32_t b = 0; b < nb; ++b) {
        const uint32_t W = ch[12 + b];
        if (W > 33) return bad("code length");
        uint32_t d[32] = {0};
        for (uint32_t j = 0; j < W && j < 32; ++j) {
          const uint32_t plane = le32(ch + pos + 4 * j);
          for (int i = 0; i < 32; ++i) d[i] |= ((plane >> i) & 1u) << j;
        }
        if (W > 0 && W < 32)
          for (int i = 0; i < 32; ++i)
            if (d[i] >> (W - 1) & 1u) d[i] |= ~0u << W;
        pos += 4u * W;
        for (uint32_t i = 0; i < 32 && b * 32 + i < len; ++i) {
          q += d[i];
          const double v = static_cast<double>(static_cast<int32_t>(q)) * factor;
          o[b * 32 + i] = ref_encode16(static_cast<float>(v), dtype);
        }
      }
      if ((pos + 7) / 8 * 8 != bytes) return bad("payload size");
    } else {
      return bad("chunk kind");
    }
    off += bytes;
  }
  return true;
}

// ---- the worked examples of docs/format.md ---------------------------------------

const uint8_t kExampleQuantized[80] = {
    // header
    0x5a, 0x43, 0x4f, 0x4c, 0x01, 0x01, 0x05, 0x00,  // "ZCOL", version 1, float32, 2^5, flags 0
    0x00, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // chunk size 1024, divisor 1
    0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // n = 5
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f,  // error bound 0.5
    0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xef, 0x3f,  // quantum 0.984375
    0x01, 0x00, 0x00, 0x00, 0xc3, 0x17, 0xc2, 0x60,  // terms 1, CRC-32C 0x60c217c3
    // index
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // chunk 0: 24 bytes, padding
    // chunk 0 (quantized)
    0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // kind 0, padding, anchor 1
    0x03, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,  // qmax 3, code length W = 2, padding
    0x1c, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,  // plane 0, plane 1 (sign)
};

const uint8_t kExampleRaw[80] = {
    0x5a, 0x43, 0x4f, 0x4c, 0x01, 0x01, 0x05, 0x00,  //
    0x00, 0x04, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  //
    0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // n = 3
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xe0, 0x3f,  //
    0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xef, 0x3f,  //
    0x01, 0x00, 0x00, 0x00, 0x4b, 0x8e, 0x69, 0xc8,  // terms 1, CRC-32C 0xc8698e4b
    0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // chunk 0: 24 bytes
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // kind 1 (raw), padding
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0xc0, 0x7f,  // 1.0f, NaN (0x7fc00000)
    0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00, 0x00,  // 2.0f, padding
};

void expect_bytes(const std::vector<uint8_t>& got, const uint8_t* want, size_t n) {
  ASSERT_EQ(got.size(), n) << "got:\n" << zt::hex(got.data(), got.size());
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ(got[i], want[i]) << "byte " << i << "; got:\n" << zt::hex(got.data(), got.size());
}

TEST(Format, WorkedExampleQuantizedChunk) {
  const std::vector<float> x = {1.0f, 1.2f, 2.0f, 2.9f, 2.1f};
  for (int threads : {1, 2}) {
    std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.5, 1024, threads);
    expect_bytes(z, kExampleQuantized, sizeof kExampleQuantized);
  }
  std::vector<uint8_t> z(kExampleQuantized, kExampleQuantized + 80);
  std::vector<float> y = zt::decompress<float>(z, 5);
  const float want[5] = {0.984375f, 0.984375f, 1.96875f, 2.953125f, 1.96875f};  // codes 1 1 2 3 2
  for (int i = 0; i < 5; ++i) EXPECT_EQ(y[i], want[i]) << i;
  zcoll_info info = zt::inspect(z);
  EXPECT_EQ(info.quantum, 0.984375);  // 2 * 0.5 * (1 - 1/64)
  EXPECT_EQ(info.raw_chunks, 0u);
  std::vector<float> r;
  std::string why;
  ASSERT_TRUE(ref_decode<float>(z.data(), z.size(), &r, &why)) << why;
  EXPECT_TRUE(zt::same_bytes(r.data(), want, sizeof want));
  uint32_t crc = ref_crc32c(z.data(), 44);
  crc = ref_crc32c(z.data() + 48, 8, crc);
  EXPECT_EQ(crc, 0x60c217c3u);
}

TEST(Format, WorkedExampleRawChunk) {
  const std::vector<float> x = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
  ASSERT_EQ(zt::bits_of(x[1]), 0x7fc00000u);
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 0.5, 1024, 1);
  expect_bytes(z, kExampleRaw, sizeof kExampleRaw);
  std::vector<float> y = zt::decompress<float>(z, 3);
  EXPECT_TRUE(zt::same_bytes(y.data(), x.data(), 12));
  EXPECT_EQ(zt::inspect(z).raw_chunks, 1u);
}

TEST(Format, Crc32cCheckValue) {
  const uint8_t msg[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(ref_crc32c(msg, 9), 0xE3069283u);
  EXPECT_EQ(zcoll::crc32c(0, msg, 9), 0xE3069283u);
  Rng r(1);
  std::vector<uint8_t> buf(1000);
  for (auto& b : buf) b = static_cast<uint8_t>(r.next());
  for (size_t n : {0, 1, 7, 8, 9, 63, 64, 65, 999, 1000})
    EXPECT_EQ(zcoll::crc32c(0, buf.data(), n), ref_crc32c(buf.data(), n)) << n;
  // chaining
  EXPECT_EQ(zcoll::crc32c(zcoll::crc32c(0, buf.data(), 300), buf.data() + 300, 700),
            ref_crc32c(buf.data(), 1000));
}

// Header fields as the document describes them.
TEST(Format, HeaderFields) {
  std::vector<double> x(5000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.01 * i);
  x[3000] = NAN;  // chunk 2 of 4 raw (chunk size 1024 + 32)
  std::vector<uint8_t> z = zt::compress(x, ZCOLL_EB_ABS, 1e-4, 1056, 1);
  ASSERT_GE(z.size(), 48u);
  EXPECT_EQ(std::memcmp(z.data(), "ZCOL", 4), 0);
  EXPECT_EQ(z[4], 1);
  EXPECT_EQ(z[5], 2);
  EXPECT_EQ(z[6], 5);
  EXPECT_EQ(z[7], 0);
  EXPECT_EQ(le32(z.data() + 8), 1056u);
  EXPECT_EQ(le32(z.data() + 12), 1u);
  EXPECT_EQ(le64(z.data() + 16), 5000u);
  EXPECT_EQ(lef64(z.data() + 24), 1e-4);
  EXPECT_EQ(lef64(z.data() + 32), 2 * 1e-4 * (1 - 1.0 / 1048576));
  EXPECT_EQ(le32(z.data() + 40), 1u);
  const size_t chunks = 5, index = 24;  // 5 entries + 4 bytes of padding
  EXPECT_EQ(zcoll_header_size(5000, 1056), 48 + index);
  EXPECT_EQ(le32(z.data() + 48 + 20), 0u);
  size_t off = 48 + index;
  for (size_t c = 0; c < chunks; ++c) {
    uint32_t bytes = le32(z.data() + 48 + 4 * c);
    EXPECT_EQ(bytes % 8, 0u);
    EXPECT_EQ(off % 8, 0u);
    EXPECT_EQ(z[off], c == 2 ? 1 : 0) << c;
    off += bytes;
  }
  EXPECT_EQ(off, z.size());
  // quantized chunk: the padding after the code lengths and after the payload is zero
  const uint8_t* ch = z.data() + 48 + index;
  EXPECT_EQ(ch[1] | ch[2] | ch[3], 0);
  for (size_t i = 12 + 33; i < 12 + 36; ++i) EXPECT_EQ(ch[i], 0) << i;  // 33 blocks -> 36 bytes
  EXPECT_EQ(static_cast<int32_t>(le32(ch + 4)), 0);                     // x[0] = 0 -> anchor 0
}

// The reference decoder and zcoll_decompress agree on streams of every kind.
template <typename T>
void reference_agrees(uint64_t seed, zcoll_codec codec = ZCOLL_CODEC_FAST) {
  Rng r(seed);
  for (int it = 0; it < 120; ++it) {
    int kind = it % zt::kNumKinds;
    size_t n = r.below(3) == 0 ? r.below(70) : r.below(4000);
    uint32_t cs = r.coin() ? 1024 : 2048;
    zcoll_eb_mode mode = r.coin() ? ZCOLL_EB_ABS : ZCOLL_EB_REL;
    double eb = mode == ZCOLL_EB_ABS ? (r.coin() ? 1e-3 : 0.5) : 1e-3;
    std::vector<T> x = zt::make_case<T>(kind, n, r, mode, eb, cs);
    double mn, mx;
    zcoll_value_range(zt::dtype_of<T>(), x.data(), n, &mn, &mx, 1);
    if (mode == ZCOLL_EB_REL && !(std::isfinite(mx - mn) && (mx - mn) * eb > 1e-300)) continue;
    std::vector<uint8_t> z = zt::compress(x, mode, eb, cs, 2, codec);
    ASSERT_FALSE(z.empty());
    std::vector<T> lib = zt::decompress<T>(z, n), ref;
    std::string why;
    ASSERT_TRUE(ref_decode<T>(z.data(), z.size(), &ref, &why))
        << why << " (" << zt::kind_name(kind) << ")";
    ASSERT_EQ(std::memcmp(lib.data(), ref.data(), n * sizeof(T)), 0)
        << zt::kind_name(kind) << " n=" << n;
  }
}

TEST(Format, ReferenceDecoderAgrees) {
  reference_agrees<float>(11);
  reference_agrees<double>(12);
}

// Format 1.3: streams of the dense codec (kind 2 chunks, raw ones among them).
TEST(Format, ReferenceDecoderAgreesDense) {
  reference_agrees<float>(21, ZCOLL_CODEC_DENSE);
  reference_agrees<double>(22, ZCOLL_CODEC_DENSE);
}

// The dense codec with dims (predictors 3, 4 and 5 among 1 and 2): smooth 1-D,
// 2-D and 3-D fields of random shapes, chunk sizes and bounds.
template <typename T>
void reference_agrees_nd(uint64_t seed) {
  Rng r(seed);
  int nd = 0, interp = 0, cubic = 0;
  for (int it = 0; it < 90; ++it) {
    zcoll_params p;
    zcoll_params_init(&p);
    p.codec = ZCOLL_CODEC_DENSE;
    p.eb_mode = ZCOLL_EB_ABS;
    p.error_bound = r.coin() ? 1e-2 : 1e-4;
    p.chunk_size = r.coin() ? 1024 : 0;
    p.ndims = 1 + static_cast<uint32_t>(r.below(3));
    size_t n = 1;
    for (uint32_t d = 0; d < p.ndims; ++d)
      n *= (p.dims[d] = 1 + r.below(p.ndims == 1 ? 3000 : d == 0 ? 12 : 60));
    std::vector<T> x(n);
    const uint64_t W = p.dims[p.ndims - 1], H = p.ndims >= 2 ? p.dims[p.ndims - 2] : 1;
    const double wiggle = r.coin() ? 1e-3 : 0.1;  // smooth: interpolation; rough: Lorenzo
    for (size_t i = 0; i < n; ++i) {
      const uint64_t row = i / W, plane = row / H;  // integer indices, on purpose
      x[i] = static_cast<T>(std::sin(0.2 * static_cast<double>(i % W)) *
                                std::cos(0.1 * static_cast<double>(row % H)) +
                            0.05 * static_cast<double>(plane) + r.uniform(-wiggle, wiggle));
    }
    std::vector<uint8_t> z(zcoll_compress_bound(n, zt::dtype_of<T>()));
    size_t size = 0;
    ASSERT_EQ(zcoll_compress(&p, zt::dtype_of<T>(), x.data(), n, z.data(), z.size(), &size, 2),
              ZCOLL_SUCCESS)
        << zcoll_last_error();
    z.resize(size);
    const zcoll_info info = zt::inspect(z);
    size_t at = info.header_size;
    for (uint64_t c = 0; c < info.chunks; ++c) {
      nd += z[at] == 2 && (z[at + 1] == 3 || z[at + 1] == 4);
      interp += z[at] == 2 && z[at + 1] == 5;
      cubic += z[at] == 2 && z[at + 1] == 5 && (z[at + 8] & 4);
      at += le32(&z[48 + 4 * c]);
    }
    std::vector<T> lib = zt::decompress<T>(z, n), ref;
    std::string why;
    ASSERT_TRUE(ref_decode<T>(z.data(), z.size(), &ref, &why)) << why;
    size_t first_diff = 0;
    while (first_diff < n && zt::bits_of(lib[first_diff]) == zt::bits_of(ref[first_diff]))
      ++first_diff;
    std::string shape;
    for (uint32_t d = 0; d < p.ndims; ++d) shape += " " + std::to_string(p.dims[d]);
    ASSERT_EQ(first_diff, n) << "dims" << shape << " chunk " << info.chunk_size;
  }
  // the n-D predictors were exercised, predictor 5 in both modes
  EXPECT_GT(nd, 5);
  EXPECT_GT(interp, 10);
  EXPECT_GT(cubic, 2);
}

TEST(Format, ReferenceDecoderAgreesDenseNd) {
  reference_agrees_nd<float>(23);
  reference_agrees_nd<double>(24);
}

// Format 1.2: bfloat16 and float16 streams (the float cases of every kind,
// rounded to 16 bits, at bounds from below the 16-bit precision to coarse; sums
// with a divisor too) decode to the same 16-bit patterns in both decoders.
TEST(Format, ReferenceDecoderAgrees16) {
  Rng r(13);
  int checked = 0;
  for (int it = 0; it < 160; ++it) {
    const zcoll_dtype dt = it % 2 ? ZCOLL_FLOAT16 : ZCOLL_BFLOAT16;
    const int kind = it % zt::kNumKinds;
    const size_t n = r.below(3) == 0 ? r.below(70) : r.below(4000);
    const uint32_t cs = r.coin() ? 1024 : 2048;
    const double eb = std::ldexp(1.0, static_cast<int>(r.below(24)) - 16);  // 2^-16 .. 2^7
    std::vector<float> f = zt::make_case<float>(kind, n, r, ZCOLL_EB_ABS, eb, cs);
    std::vector<uint16_t> x(n);
    for (size_t i = 0; i < n; ++i)
      x[i] = dt == ZCOLL_BFLOAT16 ? zcoll::hd::float_to_bf16(f[i]) : zcoll::hd::float_to_f16(f[i]);
    zcoll_params p;
    zcoll_params_init(&p);
    p.eb_mode = ZCOLL_EB_ABS;
    p.error_bound = eb;
    p.chunk_size = cs;
    std::vector<uint8_t> z(zcoll_compress_bound(n, dt));
    size_t size = 0;
    ASSERT_EQ(zcoll_compress(&p, dt, x.data(), n, z.data(), z.size(), &size, 2), ZCOLL_SUCCESS);
    z.resize(size);
    if (it % 5 == 4 && n) {  // a sum of the stream with itself, then a divisor: no raw chunk
      std::vector<uint8_t> s2(zcoll_compress_bound(n, dt));
      size_t s2n = 0;
      ASSERT_EQ(zcoll_hom_add(z.data(), z.size(), z.data(), z.size(), s2.data(), s2.size(), &s2n,
                              nullptr, 1),
                ZCOLL_SUCCESS);
      s2.resize(s2n);
      if (zt::inspect(s2).raw_chunks == 0) {
        ASSERT_EQ(zcoll_hom_set_divisor(s2.data(), s2.size(), 3), ZCOLL_SUCCESS);
        z = s2;
      }
    }
    std::vector<uint16_t> lib(n), ref;
    ASSERT_EQ(zcoll_decompress(z.data(), z.size(), lib.data(), n, 1), ZCOLL_SUCCESS);
    std::string why;
    ASSERT_TRUE(ref_decode16(z.data(), z.size(), &ref, &why)) << why;
    for (size_t i = 0; i < n; ++i)
      ASSERT_EQ(lib[i], ref[i]) << zt::kind_name(kind) << " i=" << i << " eb=" << eb;
    ++checked;
  }
  EXPECT_EQ(checked, 160);
}

// ---- golden digest -------------------------------------------------------------------
// Streams of fixed inputs built with integer arithmetic only (no libm), hashed.
// The digest pins format version 1: it must be the same for every kernel set
// (ctest also runs this with ZCOLL_SIMD=scalar) and every platform. If a change
// of the bytes is intended, update docs/format.md, the worked examples and this.

constexpr size_t kGoldenBytes = 825000;
constexpr uint64_t kGoldenDigest = 0x816da081c449a7daull;

uint64_t fnv1a(uint64_t h, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

template <typename T>
std::vector<T> golden_input(int kind, size_t n) {
  std::vector<T> x(n);
  uint64_t s = 0x9E3779B97F4A7C15ull * (kind + 1);
  int64_t walk = 0;
  for (size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t r16 = static_cast<int64_t>((s >> 33) & 0xFFFF) - 32768;
    switch (kind) {
      case 0:
        walk += r16 / 64;
        x[i] = static_cast<T>(static_cast<double>(walk) / 256);
        break;
      case 1: x[i] = static_cast<T>(static_cast<double>(r16) / 1024); break;  // noise
      case 2:
        x[i] = static_cast<T>(static_cast<double>(static_cast<int64_t>(i / 100)) * 0.25);
        break;
      case 3: x[i] = zt::from_bits<T>(static_cast<typename zt::Bits<T>::U>(s)); break;  // any bits
      default: x[i] = static_cast<T>(static_cast<double>(r16) * 1e6); break;            // big codes
    }
  }
  if (n > 1500) x[1500] = std::numeric_limits<T>::quiet_NaN();
  return x;
}

TEST(Format, GoldenDigest) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t total = 0;
  for (int kind = 0; kind < 5; ++kind) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{33}, size_t{1025}, size_t{5000}}) {
      for (double eb : {1e-3, 0.5, 100.0}) {
        auto f = zt::compress(golden_input<float>(kind, n), ZCOLL_EB_ABS, eb, 1024, 2);
        auto d = zt::compress(golden_input<double>(kind, n), ZCOLL_EB_ABS, eb, 1024, 2);
        auto fr = zt::compress(golden_input<float>(kind, n), ZCOLL_EB_REL, eb * 1e-3, 2048, 1);
        h = fnv1a(h, f.data(), f.size());
        h = fnv1a(h, d.data(), d.size());
        h = fnv1a(h, fr.data(), fr.size());
        total += f.size() + d.size() + fr.size();
      }
    }
  }
  std::printf("golden: %zu bytes, digest 0x%016llx\n", total, static_cast<unsigned long long>(h));
  EXPECT_EQ(total, kGoldenBytes);
  EXPECT_EQ(h, kGoldenDigest) << "the compressed bytes changed (see the comment above)";
}

}  // namespace
