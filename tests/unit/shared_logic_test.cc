// shared_logic_test.cc — the host+device functions of codec/shared_logic.h and
// codec/block_codec.h, which the CPU codec and the CUDA kernels (src/cuda) both
// run, and the decomposition the kernels use (one lane per value, one warp per
// block: codes first, deltas against the previous value's code, planes as
// ballots, decode by per-lane plane reads and a prefix sum), emulated here on the
// CPU against the scalar reference chunk codec.
#include <cstring>
#include <limits>
#include <vector>

#include "codec/block_codec.h"
#include "codec/chunk_codec.h"
#include "codec/format.h"
#include "codec/shared_logic.h"
#include "test_data.h"
#include "test_util.h"

namespace {

using zt::Rng;
using namespace zcoll;

// Random deltas of a signed width in [1, 32].
void random_deltas(Rng& r, uint32_t width, int32_t d[32]) {
  for (int i = 0; i < 32; ++i) {
    const int64_t lim = width >= 32 ? (int64_t{1} << 31) : (int64_t{1} << (width - 1));
    d[i] = static_cast<int32_t>(static_cast<int64_t>(r.below(2 * lim)) - lim);
    if (r.coin(0.2)) d[i] = 0;
  }
}

TEST(SharedLogic, DecodeLaneMatchesDecodeBlock) {
  Rng r(11);
  for (uint32_t W = 1; W <= 33; ++W)
    for (int rep = 0; rep < 50; ++rep) {
      uint8_t planes[4 * 33];
      for (auto& b : planes) b = static_cast<uint8_t>(r.next());
      uint32_t d[32];
      decode_block(planes, W, d);
      for (uint32_t lane = 0; lane < 32; ++lane)
        ASSERT_EQ(decode_block_lane(planes, W, lane), d[lane]) << "W " << W << " lane " << lane;
    }
}

// add_planes against integer arithmetic: the sum's planes are those encode_block
// writes for the sum (the smallest width), for add, sub and negation (wa = 0).
TEST(SharedLogic, AddPlanesIsBlockAddition) {
  Rng r(12);
  for (int rep = 0; rep < 4000; ++rep) {
    int32_t da[32], db[32];
    const uint32_t w1 = 1 + static_cast<uint32_t>(r.below(31)),
                   w2 = 1 + static_cast<uint32_t>(r.below(31));
    random_deltas(r, w1, da);
    random_deltas(r, w2, db);
    const bool zero_a = r.coin(0.1), zero_b = r.coin(0.1), subtract = r.coin();
    if (zero_a) std::memset(da, 0, sizeof da);
    if (zero_b) std::memset(db, 0, sizeof db);
    uint8_t pa[4 * 34], pb[4 * 34], out[4 * 35], want[4 * 34];
    const uint32_t wa = encode_block(da, pa), wb = encode_block(db, pb);
    const uint32_t w = add_planes(wa ? pa : nullptr, wa, pb, wb, subtract, out);
    int64_t sum[32];
    bool fits = true;
    int32_t s32[32];
    for (int i = 0; i < 32; ++i) {
      sum[i] = subtract ? int64_t{da[i]} - db[i] : int64_t{da[i]} + db[i];
      fits &= sum[i] >= INT32_MIN && sum[i] <= INT32_MAX;
      s32[i] = static_cast<int32_t>(sum[i]);
    }
    if (wa == 0 && wb == 0) {
      ASSERT_EQ(w, 0u);
    }
    // decoded modulo 2^32 it is always the sum
    for (uint32_t lane = 0; lane < 32 && w; ++lane) {
      ASSERT_EQ(decode_block_lane(out, w, lane), static_cast<uint32_t>(sum[lane]));
    }
    if (fits) {
      const uint32_t ww = encode_block(s32, want);
      ASSERT_EQ(w, ww) << "rep " << rep;
      ASSERT_EQ(std::memcmp(out, want, 4 * w), 0) << "rep " << rep;
    } else {
      ASSERT_EQ(w, 33u);
    }
  }
}

TEST(SharedLogic, QuantizeValueKeepsTheBound) {
  Rng r(13);
  for (double eb : {1e-6, 1e-3, 0.5, 7.0}) {
    Quantizer<float> qf;
    Quantizer<double> qd;
    ASSERT_TRUE(make_quantizer_hd<float>(eb, &qf));
    ASSERT_TRUE(make_quantizer_hd<double>(eb, &qd));
    EXPECT_LE(static_cast<double>(qf.eb_check), eb);
    EXPECT_EQ(qd.eb_check, eb);
    for (int i = 0; i < 20000; ++i) {
      const double v = r.normal() * eb * 1000;
      int32_t q;
      if (quantize_value(static_cast<float>(v), qf, &q)) {
        const float rec = static_cast<float>(static_cast<double>(q) * qf.quantum);
        ASSERT_LE(std::fabs(double(static_cast<float>(v)) - double(rec)), eb);
      }
      ASSERT_TRUE(quantize_value(v, qd, &q));
      ASSERT_LE(std::fabs(v - static_cast<double>(q) * qd.quantum), eb);
    }
    int32_t q;
    EXPECT_FALSE(quantize_value(std::numeric_limits<float>::quiet_NaN(), qf, &q));
    EXPECT_FALSE(quantize_value(std::numeric_limits<double>::infinity(), qd, &q));
    EXPECT_FALSE(quantize_value(eb * 4e9, qd, &q));  // code beyond 2^30 - 1
  }
}

TEST(SharedLogic, QuantizerEdges) {
  Quantizer<double> q;
  EXPECT_FALSE(make_quantizer_hd<double>(0.0, &q));
  EXPECT_FALSE(make_quantizer_hd<double>(-1.0, &q));
  EXPECT_FALSE(make_quantizer_hd<double>(std::numeric_limits<double>::infinity(), &q));
  EXPECT_FALSE(make_quantizer_hd<double>(std::numeric_limits<double>::quiet_NaN(), &q));
  ASSERT_TRUE(make_quantizer_hd<double>(std::numeric_limits<double>::max(), &q));
  EXPECT_EQ(q.quantum, std::numeric_limits<double>::max());
  ASSERT_TRUE(make_quantizer_hd<double>(std::numeric_limits<double>::denorm_min(), &q));
  EXPECT_GT(q.quantum, 0.0);
  EXPECT_EQ(q.inv, std::numeric_limits<double>::max());
  // the stream's quantum is kept exactly
  Quantizer<float> qf;
  double eb1 = 0;
  ASSERT_TRUE(make_quantizer_for_quantum_hd<float>(0.984375, &qf, &eb1));
  EXPECT_EQ(qf.quantum, 0.984375);
  EXPECT_EQ(eb1, 0.5);
}

TEST(SharedLogic, RelToAbsBound) {
  EXPECT_EQ(rel_to_abs_bound(1e-3, -2.0, 3.0), 1e-3 * 5.0);
  EXPECT_EQ(rel_to_abs_bound(1e-3, 4.0, 4.0), 1e-3 * 4.0);  // constant: |min|
  EXPECT_EQ(rel_to_abs_bound(1e-3, 0.25, 0.25), 1e-3);      // constant below 1
  EXPECT_EQ(rel_to_abs_bound(1e-3, 0.0, 0.0), 1e-3);        // no finite value
  const double big = std::numeric_limits<double>::max();
  const double eb = rel_to_abs_bound(0.5, -big, big);  // range overflows
  EXPECT_TRUE(std::isfinite(eb));
  EXPECT_EQ(eb, 0.5 * big - 0.5 * -big > big ? big : 0.5 * big - 0.5 * -big);
  EXPECT_GT(rel_to_abs_bound(1e-300, 0.0, 1e-300), 0.0);  // underflow clamps up
}

TEST(SharedLogic, CompressBoundIsTheLibrarys) {
  for (size_t n :
       {size_t{0}, size_t{1}, size_t{1023}, size_t{1024}, size_t{1025}, size_t{1} << 30}) {
    EXPECT_EQ(compress_bound_hd(n, 4), zcoll_compress_bound(n, ZCOLL_FLOAT32));
    EXPECT_EQ(compress_bound_hd(n, 8), zcoll_compress_bound(n, ZCOLL_FLOAT64));
    EXPECT_EQ(compress_bound_hd(n, 4), 64 + 16 * ((n + 1023) / 1024) + 4 * n);
  }
  EXPECT_EQ(compress_bound_hd(SIZE_MAX / 2, 8), 0u);
  EXPECT_EQ(compress_bound_hd(10, 0), 0u);
}

// ---- the GPU's decomposition, emulated lane by lane ---------------------------

// One chunk the way the CUDA kernel compresses it (src/cuda/kernels.cuh,
// compress_chunk_dev): every lane quantizes its own value and, for its delta, the
// previous value (lane 0 of a warp re-quantizes it; other lanes take it from the
// neighbour); a block's code length from two ORs; plane j = the ballot of bit j.
template <typename T>
size_t compress_chunk_lanes(const T* x, uint32_t len, const Quantizer<T>& qz, uint8_t* out) {
  const size_t raw = raw_chunk_bytes(len, sizeof(T));
  const uint32_t nblocks = (len + 31) / 32;
  const size_t pos0 = kQuantChunkHeaderBytes + align4(nblocks);
  auto write_raw = [&] {
    std::memset(out, 0, raw);
    out[0] = kChunkRaw;
    std::memcpy(out + 8, x, size_t{len} * sizeof(T));
    return raw;
  };
  if (pos0 >= raw) return write_raw();
  std::vector<int32_t> q(len);
  for (uint32_t i = 0; i < len; ++i)
    if (!quantize_value(x[i], qz, &q[i])) return write_raw();
  size_t pos = pos0;
  uint32_t qmax = 0;
  for (uint32_t b = 0; b < nblocks; ++b) {
    int32_t d[32];
    uint32_t any = 0, folded = 0;
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t i = b * 32 + lane;
      d[lane] = (i < len && i > 0) ? q[i] - q[i - 1] : 0;
      if (i < len) qmax = std::max<uint32_t>(qmax, static_cast<uint32_t>(std::abs(q[i])));
      any |= static_cast<uint32_t>(d[lane]);
      folded |= fold_sign(d[lane]);
    }
    const uint32_t W = code_length(any, folded);
    out[12 + b] = static_cast<uint8_t>(W);
    for (uint32_t j = 0; j < W; ++j) {
      uint32_t ballot = 0;
      for (uint32_t lane = 0; lane < 32; ++lane)
        ballot |= ((static_cast<uint32_t>(d[lane]) >> j) & 1u) << lane;
      if (pos + 4 * j + 4 <= raw) put_word(out + pos + 4 * j, ballot);
    }
    pos += 4 * W;
    if (pos >= raw) return write_raw();
  }
  const size_t end = align8(pos);
  if (end >= raw) return write_raw();
  for (size_t k = 12 + nblocks; k < pos0; ++k) out[k] = 0;
  for (size_t k = pos; k < end; ++k) out[k] = 0;
  out[0] = kChunkQuantized;
  out[1] = out[2] = out[3] = 0;
  put_word(out + 4, static_cast<uint32_t>(q[0]));
  put_word(out + 8, qmax);
  return end;
}

template <typename T>
void check_lanes(const std::vector<T>& x, double eb, const char* what) {
  Quantizer<T> qz;
  ASSERT_TRUE(make_quantizer<T>(eb, &qz));
  for (uint32_t len : {1u, 2u, 31u, 32u, 33u, 1000u, 1024u, 4096u}) {
    if (len > x.size()) continue;
    std::vector<uint8_t> a(raw_chunk_bytes(len, sizeof(T)), 0xAB), b(a.size(), 0xCD);
    const size_t sa = compress_chunk<T>(scalar_kernels(), x.data(), len, qz, a.data());
    const size_t sb = compress_chunk_lanes<T>(x.data(), len, qz, b.data());
    ASSERT_EQ(sa, sb) << what << " len " << len;
    ASSERT_EQ(std::memcmp(a.data(), b.data(), sa), 0) << what << " len " << len;
    // decode lane by lane with a prefix sum (decode_chunk_dev) = the scalar decode
    if (a[0] != kChunkQuantized) continue;
    std::vector<T> ref(len), got(len);
    ASSERT_EQ(
        decompress_chunk<T>(scalar_kernels(), a.data(), sa, len, qz.quantum, ref.data(), false),
        ZCOLL_SUCCESS);
    const uint32_t nblocks = (len + 31) / 32;
    size_t pos = 12 + align4(nblocks);
    uint32_t carry = get_word(a.data() + 4);
    for (uint32_t blk = 0; blk < nblocks; ++blk) {
      const uint32_t W = a[12 + blk];
      for (uint32_t lane = 0; lane < 32; ++lane) {
        carry += W ? decode_block_lane(a.data() + pos, W, lane) : 0u;
        const uint32_t i = blk * 32 + lane;
        if (i < len)
          got[i] = static_cast<T>(static_cast<double>(static_cast<int32_t>(carry)) * qz.quantum);
      }
      pos += 4 * W;
    }
    ASSERT_EQ(std::memcmp(ref.data(), got.data(), len * sizeof(T)), 0) << what << " len " << len;
  }
}

TEST(SharedLogic, LaneDecompositionMatchesScalarCodec) {
  for (int k = 0; k < zt::kNumKinds; ++k) {
    for (double eb : {1e-1, 1e-4}) {
      Rng r(100 + k);
      const auto xf = zt::make_case<float>(k, 4096, r, ZCOLL_EB_ABS, eb, 4096);
      const auto xd = zt::make_case<double>(k, 4096, r, ZCOLL_EB_ABS, eb, 4096);
      check_lanes<float>(xf, eb, zt::kind_name(k));
      check_lanes<double>(xd, eb, zt::kind_name(k));
    }
  }
}

}  // namespace

// ---- the GPU's homomorphic chunk, emulated block by block -------------------

// hom_chunk of src/cuda/kernels.cuh with its per-thread view spelled out: the
// worst case decided first for the whole chunk, then per block the offset before
// it (a prefix sum of the output widths) checked against the raw size when the
// worst case does not fit. Returns 0 when the chunk goes through floats (the
// float path itself is the CPU's decode-add-store, tested by the GPU tests).
size_t hom_chunk_blocks(const uint8_t* a, const uint8_t* b, uint32_t len, size_t vb, bool subtract,
                        uint8_t* out, size_t* checked_count) {
  const size_t raw = raw_chunk_bytes(len, vb);
  if (a[0] == kChunkRaw || b[0] == kChunkRaw) return 0;
  const uint64_t qmax = uint64_t{get_word(a + 8)} + get_word(b + 8);
  if (qmax > static_cast<uint64_t>(kQMaxFormat)) return 0;
  const uint32_t nblocks = (len + 31) / 32;
  const size_t pos0 = 12 + align4(nblocks);
  if (pos0 >= raw) return 0;
  size_t worst = 0;
  for (uint32_t k = 0; k < nblocks; ++k) {
    const uint32_t widest = std::max(a[12 + k], b[12 + k]);
    worst += widest ? 4 * (widest + 1) : 0;
  }
  const bool checked = pos0 + worst >= raw;
  *checked_count += checked;
  // input offsets: exclusive prefix sums of the code lengths
  std::vector<size_t> offa(nblocks), offb(nblocks);
  size_t pa = pos0, pb = pos0;
  for (uint32_t k = 0; k < nblocks; ++k) {
    offa[k] = pa, offb[k] = pb;
    pa += 4 * a[12 + k], pb += 4 * b[12 + k];
  }
  std::vector<uint32_t> w(nblocks);
  std::vector<std::vector<uint8_t>> words(nblocks, std::vector<uint8_t>(4 * 34));
  for (uint32_t k = 0; k < nblocks; ++k) {  // every "thread" independently
    const uint32_t wa = a[12 + k], wb = b[12 + k];
    if (wa == 0 && wb == 0) {
      w[k] = 0;
    } else if (wa == 0 && !subtract) {
      w[k] = wb;
      std::memcpy(words[k].data(), b + offb[k], 4 * wb);
    } else if (wb == 0) {
      w[k] = wa;
      std::memcpy(words[k].data(), a + offa[k], 4 * wa);
    } else {
      w[k] = add_planes(a + offa[k], wa, b + offb[k], wb, subtract, words[k].data());
    }
  }
  size_t pos = pos0;
  for (uint32_t k = 0; k < nblocks; ++k) {
    const uint32_t widest = std::max(a[12 + k], b[12 + k]);
    if (checked && pos + 4 * (widest + 1) >= raw) return 0;
    out[12 + k] = static_cast<uint8_t>(w[k]);
    std::memcpy(out + pos, words[k].data(), 4 * w[k]);
    pos += 4 * w[k];
  }
  const size_t end = align8(pos);
  if (end >= raw) return 0;
  std::memset(out + 12 + nblocks, 0, pos0 - 12 - nblocks);
  std::memset(out + pos, 0, end - pos);
  const int64_t aa = static_cast<int32_t>(get_word(a + 4)),
                ab = static_cast<int32_t>(get_word(b + 4));
  std::memset(out, 0, 4);
  put_word(out + 4, static_cast<uint32_t>(static_cast<int32_t>(subtract ? aa - ab : aa + ab)));
  put_word(out + 8, static_cast<uint32_t>(qmax));
  return end;
}

// A float32 stream of random planes: per block a code length in [wlo, whi]
// (reduced where the chunk would not beat a raw one), random plane bits. Its
// chunks sit near the raw size, where the capacity rules of a sum decide.
std::vector<uint8_t> craft_wide_stream(Rng& r, size_t n, double quantum, uint32_t wlo,
                                       uint32_t whi) {
  Header h;
  h.dtype = ZCOLL_FLOAT32;
  h.chunk_size = 1024;
  h.n = n;
  h.eb = quantum;
  h.quantum = quantum;
  std::vector<uint8_t> z(header_and_index_bytes(h.chunks()), 0);
  for (uint64_t c = 0; c < h.chunks(); ++c) {
    const uint32_t len = h.chunk_len(c), nb = (len + 31) / 32;
    const size_t raw = raw_chunk_bytes(len, 4), begin = 12 + align4(nb);
    std::vector<uint32_t> w(nb);
    size_t sum = 0;
    for (auto& x : w) sum += x = wlo + static_cast<uint32_t>(r.below(whi - wlo + 1));
    while (align8(begin + 4 * sum) >= raw) {
      const size_t k = r.below(nb);
      if (w[k]) --w[k], --sum;
    }
    std::vector<uint8_t> ch(align8(begin + 4 * sum), 0);
    put_word(ch.data() + 4, static_cast<uint32_t>(r.below(1000)));
    put_word(ch.data() + 8, 1u << 29);  // declared qmax: a sum of two stays in int32
    size_t pos = begin;
    for (uint32_t b = 0; b < nb; ++b) {
      ch[12 + b] = static_cast<uint8_t>(w[b]);
      for (uint32_t j = 0; j < w[b]; ++j, pos += 4)
        put_word(ch.data() + pos, static_cast<uint32_t>(r.next()));
    }
    put_word(z.data() + kHeaderBytes + 4 * c, static_cast<uint32_t>(ch.size()));
    z.insert(z.end(), ch.begin(), ch.end());
  }
  write_header(z.data(), h);
  return z;
}

TEST(SharedLogic, HomBlockDecompositionMatchesCpuHom) {
  Rng r(21);
  size_t quantized = 0, floats = 0, checked = 0;
  for (int rep = 0; rep < 60; ++rep) {
    // short last chunks (a few values) are where the per-block capacity rule of a
    // sum decides: their raw size is close to their header
    const size_t n = rep % 2 ? 1 + r.below(9000) : 1024 * r.below(4) + 3 + r.below(40);
    const int ka = static_cast<int>(r.below(zt::kNumKinds)),
              kb = static_cast<int>(r.below(zt::kNumKinds));
    const double eb = r.coin() ? 1e-2 : 1e-5;
    const auto x = zt::make_case<float>(ka, n, r, ZCOLL_EB_ABS, eb, 1024);
    const auto y = zt::make_case<float>(kb, n, r, ZCOLL_EB_ABS, eb, 1024);
    zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
    p.eb_mode = ZCOLL_EB_ABS;
    p.error_bound = eb;
    p.chunk_size = 1024;
    std::vector<uint8_t> sa(zcoll_compress_bound(n, ZCOLL_FLOAT32)), sb(sa.size()), so(sa.size());
    size_t na = 0, nb = 0, no = 0;
    ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), n, sa.data(), sa.size(), &na, 1),
              ZCOLL_SUCCESS);
    ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, y.data(), n, sb.data(), sb.size(), &nb, 1),
              ZCOLL_SUCCESS);
    if (rep % 3 == 2) {  // crafted wide blocks instead of compressed data
      Header hq;
      ASSERT_EQ(parse_header(sa.data(), na, &hq), ZCOLL_SUCCESS);
      const auto ca = craft_wide_stream(r, n, hq.quantum, 24, 32);
      const auto cb = craft_wide_stream(r, n, hq.quantum, 24, 32);
      std::copy(ca.begin(), ca.end(), sa.begin());
      std::copy(cb.begin(), cb.end(), sb.begin());
      na = ca.size(), nb = cb.size();
    }
    const bool subtract = r.coin();
    ASSERT_EQ((subtract ? zcoll_hom_sub : zcoll_hom_add)(sa.data(), na, sb.data(), nb, so.data(),
                                                         so.size(), &no, nullptr, 1),
              ZCOLL_SUCCESS);
    StreamView va, vb, vo;
    ASSERT_EQ(parse_stream(sa.data(), na, &va), ZCOLL_SUCCESS);
    ASSERT_EQ(parse_stream(sb.data(), nb, &vb), ZCOLL_SUCCESS);
    ASSERT_EQ(parse_stream(so.data(), no, &vo), ZCOLL_SUCCESS);
    for (uint64_t c = 0; c < va.chunks; ++c) {
      const uint32_t len = va.h.chunk_len(c);
      std::vector<uint8_t> mine(raw_chunk_bytes(len, 4), 0xEE);
      const size_t size =
          hom_chunk_blocks(va.chunk(c), vb.chunk(c), len, 4, subtract, mine.data(), &checked);
      if (size == 0) {  // the CPU must have gone through floats too
        ASSERT_EQ(vo.chunk(c)[0], kChunkRaw) << "rep " << rep << " chunk " << c;
        ++floats;
        continue;
      }
      ++quantized;
      ASSERT_EQ(size, vo.chunk_bytes(c)) << "rep " << rep << " chunk " << c;
      ASSERT_EQ(std::memcmp(mine.data(), vo.chunk(c), size), 0) << "rep " << rep << " chunk " << c;
    }
  }
  EXPECT_GT(quantized, 50u);
  EXPECT_GT(floats, 5u);
  EXPECT_GT(checked, 5u);  // the per-block capacity rule was exercised
}
