// kernels_edge_test.cc — the SIMD kernels against the scalar reference where their
// special paths are: every code length 0..33, chunks and inputs that end exactly
// at an unreadable page (the masked loads and buffered stores at a chunk's end),
// the borders of the quantizers' fast ranges (|q| around 2^16 for float and 2^20
// and 2^28 for double, 2^27 and 2^29 for the dense codec's fine quantizer, and
// error bounds that switch them off), and lengths 1, 31, 32, 33, odd.
// kernels_test.cc covers random data of every kind; this file the corners.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "codec/chunk_codec.h"      // internal
#include "codec/dense_interp.h"     // internal
#include "codec/format.h"           // internal
#include "codec/stream_internal.h"  // internal
#include "test_util.h"

namespace {

using zt::Rng;

const zcoll::ChunkKernels* simd_kernels() {
#if defined(__x86_64__) || defined(__i386__)
  const zcoll::ChunkKernels* k = zcoll::avx2_kernels();
  if (k && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2")) return k;
#endif
  return nullptr;
}

// Bytes whose end touches a page that cannot be read or written: any access past
// `size` faults, so an over-read or over-write kills the test instead of passing.
class Guarded {
 public:
  explicit Guarded(size_t size) : size_(size) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    span_ = (size + page - 1) / page * page + page;
    base_ = static_cast<uint8_t*>(
        mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) base_ = nullptr;
    if (base_) mprotect(base_ + span_ - page, page, PROT_NONE);
  }
  ~Guarded() {
    if (base_) munmap(base_, span_);
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;
  uint8_t* data() { return base_ + span_ - sysconf(_SC_PAGESIZE) - size_; }
  bool ok() const { return base_ != nullptr; }

 private:
  uint8_t* base_ = nullptr;
  size_t size_, span_ = 0;
};

// Compress x with both kernel sets, each reading x from a guarded copy and writing
// into a guarded buffer of exactly the raw size; the chunks must be identical.
// Then decode the chunk from a guarded copy of exactly its size, stored and
// accumulated, with both: identical values. Returns the chunk.
template <typename T>
std::vector<uint8_t> check_chunk(const zcoll::ChunkKernels& simd, const std::vector<T>& x,
                                 const zcoll::Quantizer<T>& qz, const std::string& what) {
  const zcoll::ChunkKernels& ref = zcoll::scalar_kernels();
  const uint32_t len = static_cast<uint32_t>(x.size());
  const size_t raw = zcoll::raw_chunk_bytes(len, sizeof(T));
  Guarded in(len * sizeof(T)), oa(raw), ob(raw);
  if (!in.ok() || !oa.ok() || !ob.ok()) {
    ADD_FAILURE() << "mmap failed";
    return {};
  }
  std::memcpy(in.data(), x.data(), len * sizeof(T));
  const T* xin = reinterpret_cast<const T*>(in.data());
  const size_t sa = zcoll::compress_chunk<T>(ref, xin, len, qz, oa.data());
  const size_t sb = zcoll::compress_chunk<T>(simd, xin, len, qz, ob.data());
  EXPECT_EQ(sa, sb) << what;
  if (sa != sb || std::memcmp(oa.data(), ob.data(), sa) != 0) {
    ADD_FAILURE() << what << ": chunks differ";
    return {};
  }
  std::vector<uint8_t> chunk(oa.data(), oa.data() + sa);
  Guarded cin(sa);
  std::memcpy(cin.data(), chunk.data(), sa);
  for (bool acc : {false, true}) {
    Guarded da(len * sizeof(T)), db(len * sizeof(T));
    for (uint32_t i = 0; i < len; ++i) {
      const T v = static_cast<T>(0.5 * (i % 7));
      std::memcpy(da.data() + i * sizeof(T), &v, sizeof v);
      std::memcpy(db.data() + i * sizeof(T), &v, sizeof v);
    }
    EXPECT_EQ(zcoll::decompress_chunk<T>(ref, cin.data(), sa, len, qz.quantum,
                                         reinterpret_cast<T*>(da.data()), acc),
              ZCOLL_SUCCESS);
    EXPECT_EQ(zcoll::decompress_chunk<T>(simd, cin.data(), sa, len, qz.quantum,
                                         reinterpret_cast<T*>(db.data()), acc),
              ZCOLL_SUCCESS);
    EXPECT_EQ(std::memcmp(da.data(), db.data(), len * sizeof(T)), 0)
        << what << ": decoded values differ, accumulate=" << acc;
  }
  return chunk;
}

// Values whose codes have deltas of exactly w bits (w = 0..31) in every block:
// q alternates between 0 and 2^(w-1) - 1 (w >= 2); w = 1: q steps down by 1 at
// every other value (deltas 0 and -1).
template <typename T>
std::vector<T> width_case(uint32_t w, uint32_t len, double quantum) {
  std::vector<T> x(len);
  const int64_t hi = w < 2 ? 0 : (int64_t{1} << (w - 1)) - 1;
  for (uint32_t i = 0; i < len; ++i) {
    const int64_t q = w == 1 ? -static_cast<int64_t>((i + 1) / 2) : i % 2 ? hi : 0;
    x[i] = static_cast<T>(static_cast<double>(q) * quantum);
  }
  return x;
}

TEST(KernelsEdge, EveryCodeLengthAtChunkEnd) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  zcoll::Quantizer<double> qd;
  zcoll::Quantizer<float> qf;
  ASSERT_TRUE(zcoll::make_quantizer<double>(0.5, &qd));
  ASSERT_TRUE(zcoll::make_quantizer<float>(0.5, &qf));
  for (uint32_t len : {1u, 2u, 31u, 32u, 33u, 63u, 64u, 65u, 97u, 1023u, 1024u}) {
    for (uint32_t w = 0; w <= 31; ++w) {
      const std::string what = "w=" + std::to_string(w) + " len=" + std::to_string(len);
      std::vector<uint8_t> c =
          check_chunk<double>(*simd, width_case<double>(w, len, qd.quantum), qd, "f64 " + what);
      // the full blocks of the double case really have code length w
      if (len >= 64 && c[0] == zcoll::kChunkQuantized) {
        EXPECT_EQ(c[13], w) << what;
      }
      check_chunk<float>(*simd, width_case<float>(w, len, qf.quantum), qf, "f32 " + what);
      if (testing::Test::HasFailure()) return;
    }
  }
}

// |q| at the border of the fast range (no reconstruction check) and of the range
// a compressor code may have (2^30 - 1), with values a hair off the bins and at
// half-integers of x / quantum; bounds that switch the fast range off.
template <typename T>
void fast_range_borders(const zcoll::ChunkKernels& simd, uint64_t seed) {
  Rng r(seed);
  const int bits = sizeof(T) == 4 ? 16 : 20;
  const double borders[] = {std::ldexp(1.0, bits) - 2, std::ldexp(1.0, bits) - 1,
                            std::ldexp(1.0, bits),     std::ldexp(1.0, bits) + 1,
                            std::ldexp(1.0, 30) - 2,   std::ldexp(1.0, 30) - 1,
                            std::ldexp(1.0, 30)};
  const double ebs[] = {0.5, 1e-3, 3.7e-30, 2e-38, 1e-300, 1e30, 3e38, 1e300};
  for (double eb : ebs) {
    zcoll::Quantizer<T> qz;
    if (!zcoll::make_quantizer<T>(eb, &qz)) continue;
    for (double k : borders) {
      for (uint32_t len : {32u, 33u, 96u, 160u}) {
        std::vector<T> x(len);
        for (uint32_t i = 0; i < len; ++i) {
          const double off = r.coin() ? 0.5 : r.uniform(-0.5, 0.5);  // ties too
          const double q = (r.coin() ? k : r.below(64)) + off;
          x[i] = static_cast<T>((r.coin() ? q : -q) * qz.quantum);
        }
        check_chunk<T>(simd, x, qz,
                       std::string(sizeof(T) == 4 ? "f32" : "f64") +
                           " eb=" + testing::PrintToString(eb) + " |q|~" +
                           testing::PrintToString(k) + " len=" + std::to_string(len));
        if (testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(KernelsEdge, FastRangeBorders) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  fast_range_borders<float>(*simd, 11);
  fast_range_borders<double>(*simd, 12);
}

// The quantization alone (quantize_values, the dense codec's), SIMD against the
// scalar reference: the same verdict and codes, with the compressor's quantizer
// and the dense codec's fine one (quantum / 256, whose fast range is wider), for
// |q| around every power of two from 2^15 to 2^30, a hair off the bins and at
// half-integers of x / quantum.
template <typename T>
void quantize_borders(const zcoll::ChunkKernels& simd, uint64_t seed) {
  Rng r(seed);
  const double ebs[] = {0.5, 1e-3, 3.7e-30, 2e-38, 1e-300, 1e30, 3e38, 1e300};
  for (double eb : ebs) {
    zcoll::Quantizer<T> coarse;
    if (!zcoll::make_quantizer<T>(eb, &coarse)) continue;
    for (const bool fine : {false, true}) {
      const zcoll::Quantizer<T> qz = fine ? zcoll::interp_fine_quantizer(coarse) : coarse;
      for (int bits = 15; bits <= 30; ++bits) {
        for (const double k : {std::ldexp(1.0, bits) - 1, std::ldexp(1.0, bits)}) {
          std::vector<T> x(96);
          for (T& v : x) {
            const double off = r.coin() ? 0.5 : r.uniform(-0.5, 0.5);  // ties too
            const double q = (r.coin() ? k : r.below(64)) + off;
            v = static_cast<T>((r.coin() ? q : -q) * qz.quantum);
          }
          std::vector<int32_t> qa(x.size()), qb(x.size());
          const auto n = static_cast<uint32_t>(x.size());
          const bool a = zcoll::quantize_values_scalar(x.data(), n, qz, qa.data());
          const bool b = zcoll::quantize_values(simd, x.data(), n, qz, qb.data());
          const std::string what = std::string(sizeof(T) == 4 ? "f32" : "f64") +
                                   (fine ? " fine" : "") + " eb=" + testing::PrintToString(eb) +
                                   " |q|~2^" + std::to_string(bits);
          ASSERT_EQ(a, b) << what;
          if (a) {
            ASSERT_EQ(qa, qb) << what;
          }
        }
      }
    }
  }
}

TEST(KernelsEdge, QuantizeFastRangeBorders) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    quantize_borders<float>(*simd, 20 + seed);
    quantize_borders<double>(*simd, 40 + seed);
  }
}

// NaN, Inf and a value out of the code range in one block of a chunk (raw chunks),
// at every position of the block.
TEST(KernelsEdge, NonFiniteAtEveryPosition) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  zcoll::Quantizer<float> qz;
  ASSERT_TRUE(zcoll::make_quantizer<float>(1e-2, &qz));
  const float specials[] = {NAN, INFINITY, -INFINITY, 1e30f};
  for (float s : specials)
    for (uint32_t pos = 0; pos < 33; ++pos) {
      std::vector<float> x(65);
      for (uint32_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i % 5);
      x[pos] = s;
      std::vector<uint8_t> c =
          check_chunk<float>(*simd, x, qz, "special at " + std::to_string(pos));
      ASSERT_FALSE(c.empty());
      EXPECT_EQ(c[0], zcoll::kChunkRaw);
    }
}

// Valid quantized chunks with random payloads and every code length 0..33 in the
// last block, the chunk ending at an unreadable page: both decoders read only the
// chunk and give the same values.
template <typename T>
void decode_every_length_at_end(const zcoll::ChunkKernels& simd, uint64_t seed) {
  Rng r(seed);
  for (uint32_t last = 0; last <= zcoll::kMaxCodeLength; ++last) {
    for (uint32_t len : {1u, 31u, 32u, 33u, 64u, 95u}) {
      const uint32_t nb = (len + 31) / 32;
      const size_t head = 12 + ((nb + 3) & ~3u);
      std::vector<uint8_t> ch(head, 0);
      size_t total = head;
      for (uint32_t b = 0; b < nb; ++b) {
        const uint32_t L = b + 1 == nb ? last : static_cast<uint32_t>(r.below(34));
        ch[12 + b] = static_cast<uint8_t>(L);
        total += 4 * L;
      }
      for (int i = 4; i < 12; ++i) ch[i] = static_cast<uint8_t>(r.next());
      ch.resize((total + 7) & ~size_t{7});
      for (size_t i = head; i < ch.size(); ++i) ch[i] = static_cast<uint8_t>(r.next());
      Guarded g(ch.size());
      std::memcpy(g.data(), ch.data(), ch.size());
      for (bool acc : {false, true}) {
        std::vector<T> da(len, T(1)), db(len, T(1));
        ASSERT_EQ(zcoll::decompress_chunk<T>(zcoll::scalar_kernels(), g.data(), ch.size(), len,
                                             0.125, da.data(), acc),
                  ZCOLL_SUCCESS);
        ASSERT_EQ(zcoll::decompress_chunk<T>(simd, g.data(), ch.size(), len, 0.125, db.data(), acc),
                  ZCOLL_SUCCESS);
        ASSERT_EQ(std::memcmp(da.data(), db.data(), len * sizeof(T)), 0)
            << "last block W=" << last << " len=" << len << " acc=" << acc;
      }
    }
  }
}

TEST(KernelsEdge, DecodeEveryLengthAtChunkEnd) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  decode_every_length_at_end<float>(*simd, 13);
  decode_every_length_at_end<double>(*simd, 14);
}

}  // namespace

// The range pass: lengths around the 16 lanes, non-finite values anywhere, signed
// zeros (which one is returned depends on the lane order), subnormals, all
// non-finite; the input ends at an unreadable page.
template <typename T>
void range_cases(const zcoll::ChunkKernels& simd, uint64_t seed) {
  Rng r(seed);
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(),
                        std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity(),
                        T(0),
                        -T(0),
                        std::numeric_limits<T>::denorm_min(),
                        -std::numeric_limits<T>::max()};
  for (size_t n : {0, 1, 7, 15, 16, 17, 31, 32, 33, 47, 64, 65, 1000}) {
    for (int round = 0; round < 40; ++round) {
      std::vector<T> x(n);
      for (T& v : x) v = r.coin(0.3) ? specials[r.below(7)] : static_cast<T>(r.uniform(-2, 2));
      if (round % 2)  // zeros of both signs and non-finite values only: the lane order shows
        for (T& v : x) v = specials[r.below(5)];
      if (round == 0) std::fill(x.begin(), x.end(), std::numeric_limits<T>::quiet_NaN());
      if (round % 4 >= 2)  // no infinity (the SIMD pass without blends): NaN, zeros instead
        for (T& v : x)
          if (std::isinf(v)) v = r.coin() ? specials[0] : r.coin() ? T(0) : -T(0);
      Guarded g(n * sizeof(T) + 1);  // +1: a valid pointer for n = 0
      T* in = reinterpret_cast<T*>(g.data());
      std::memcpy(in, x.data(), n * sizeof(T));
      T lo_a, hi_a, lo_b, hi_b;
      zcoll::value_range<T>(zcoll::scalar_kernels(), in, n, &lo_a, &hi_a);
      zcoll::value_range<T>(simd, in, n, &lo_b, &hi_b);
      ASSERT_EQ(zt::bits_of(lo_a), zt::bits_of(lo_b)) << "n=" << n << " round " << round;
      ASSERT_EQ(zt::bits_of(hi_a), zt::bits_of(hi_b)) << "n=" << n << " round " << round;
    }
  }
}

TEST(KernelsEdge, RangePass) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  range_cases<float>(*simd, 15);
  range_cases<double>(*simd, 16);
}

// The homomorphic block loop: random chunks with every code length 0..33 on either
// side (pipelines 0-3), add and subtract, checked and unchecked, the inputs and
// the output ending at unreadable pages (or the inputs followed by readable
// bytes, as a stream's next chunks follow a chunk): the same bytes and pipeline
// counts.
// cancel: b is a copy of a with a few bits flipped and the loop subtracts, so
// that most sums are much narrower than their operands (the AVX2 loop then finds
// the code length below its last 8-plane step). Every fourth chunk has code
// lengths below 8 but for a few, so that the AVX2 loop takes its paths for m < 8
// and m = 8 apart; the others mostly its one path for m <= 8 (one_step_path_pays).
static void hom_block_loop_cases(const zcoll::ChunkKernels& simd, uint64_t seed, bool cancel) {
  Rng r(seed);
  for (int it = 0; it < 3000; ++it) {
    const uint32_t nb = 1 + static_cast<uint32_t>(r.below(it % 3 ? 8 : 64));
    const size_t pos = 12 + ((nb + 3) & ~size_t{3});
    std::vector<uint8_t> ch[2];
    for (auto& c : ch) {
      c.assign(pos, 0);
      size_t total = pos;
      for (uint32_t b = 0; b < nb; ++b) {
        const uint32_t wide = it % 4 == 3 ? (r.coin(0.05) ? 10 : 8) : (r.coin() ? 12 : 34);
        const uint32_t L = r.coin(0.25) ? 0 : static_cast<uint32_t>(r.below(wide));
        c[12 + b] = static_cast<uint8_t>(L);
        total += 4 * L;
      }
      c.resize((total + 7) & ~size_t{7});
      for (size_t i = pos; i < c.size(); ++i) c[i] = static_cast<uint8_t>(r.next());
    }
    if (cancel) {
      ch[1] = ch[0];
      for (int k = static_cast<int>(r.below(4)); k > 0 && ch[1].size() > pos; --k)
        ch[1][pos + r.below(ch[1].size() - pos)] ^= static_cast<uint8_t>(1u << r.below(8));
    }
    const bool subtract = cancel || r.coin(), checked = r.coin();
    const size_t raw = checked ? pos + r.below(40 * nb) : pos + 4 * 35 * nb;
    // half the time random bytes follow the chunks, readable (as the next chunks
    // of a stream are): the loop may read them, and they must not count
    size_t readable[2];
    for (int k = 0; k < 2; ++k) readable[k] = ch[k].size() + (r.coin() ? r.below(400) : 0);
    Guarded ga(readable[0]), gb(readable[1]), oa(raw), ob(raw);
    for (size_t i = ch[0].size(); i < readable[0]; ++i)
      ga.data()[i] = static_cast<uint8_t>(r.next());
    for (size_t i = ch[1].size(); i < readable[1]; ++i)
      gb.data()[i] = static_cast<uint8_t>(r.next());
    std::memcpy(ga.data(), ch[0].data(), ch[0].size());
    std::memcpy(gb.data(), ch[1].data(), ch[1].size());
    uint64_t ca[4] = {0, 0, 0, 0}, cb[4] = {0, 0, 0, 0};
    const size_t ea = zcoll::scalar_kernels().combine_blocks(ga.data(), ch[0].size(), gb.data(),
                                                             ch[1].size(), oa.data(), nb, subtract,
                                                             pos, raw, checked, ca);
    const size_t eb = simd.combine_blocks(ga.data(), readable[0], gb.data(), readable[1], ob.data(),
                                          nb, subtract, pos, raw, checked, cb);
    ASSERT_EQ(ea, eb) << "it=" << it << " nb=" << nb << " subtract=" << subtract;
    if (ea == 0) continue;  // gave up: the output is not used
    ASSERT_EQ(std::memcmp(oa.data() + 12, ob.data() + 12, nb), 0) << "code lengths, it=" << it;
    ASSERT_EQ(std::memcmp(oa.data() + pos, ob.data() + pos, ea - pos), 0) << "payload, it=" << it;
    for (int p = 0; p < 4; ++p) ASSERT_EQ(ca[p], cb[p]) << "pipeline " << p;
  }
}

TEST(KernelsEdge, HomBlockLoop) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  hom_block_loop_cases(*simd, 17, false);
}

TEST(KernelsEdge, HomBlockLoopCancellation) {
  const zcoll::ChunkKernels* simd = simd_kernels();
  if (!simd) GTEST_SKIP() << "no SIMD kernels on this CPU/build";
  hom_block_loop_cases(*simd, 20, true);
}

// The same with the block loop of hom_avx512.cc, where the CPU has AVX-512.
static const zcoll::ChunkKernels* avx512_hom_kernels() {
  const zcoll::ChunkKernels* k = zcoll::avx2_avx512_kernels(false);
  return k && simd_kernels() && zcoll::cpu_has_avx512_hom() ? k : nullptr;
}

TEST(KernelsEdge, HomBlockLoopAvx512) {
  const zcoll::ChunkKernels* simd = avx512_hom_kernels();
  if (!simd) GTEST_SKIP() << "no AVX-512 kernels on this CPU/build";
  hom_block_loop_cases(*simd, 27, false);
  hom_block_loop_cases(*simd, 30, true);
}

// The framing check reads 8 code lengths at a time: against the plain rule (every
// length <= 33, sizes adding up) with bad lengths at every position of a word.
TEST(KernelsEdge, FramingCheck) {
  Rng r(18);
  const uint8_t bad[] = {34, 35, 100, 127, 128, 161, 162, 200, 255};
  for (int it = 0; it < 4000; ++it) {
    const uint32_t nb = 1 + static_cast<uint32_t>(r.below(40));
    const uint32_t len = 32 * nb - static_cast<uint32_t>(r.below(32));
    const size_t head = 12 + ((nb + 3) & ~size_t{3});
    std::vector<uint8_t> ch(head, 0);
    size_t total = head;
    for (uint32_t b = 0; b < nb; ++b) {
      ch[12 + b] = static_cast<uint8_t>(r.below(34));
      total += 4 * ch[12 + b];
    }
    if (r.coin(0.3)) ch[12 + r.below(nb)] = bad[r.below(9)];
    size_t size = (total + 7) & ~size_t{7};
    if (r.coin(0.2)) size += 8 * (r.coin() ? 1 : -1);
    bool ok = size >= head;
    size_t sum = head;
    for (uint32_t b = 0; b < nb; ++b) ok = ok && ch[12 + b] <= 33, sum += 4 * ch[12 + b];
    ok = ok && ((sum + 7) & ~size_t{7}) == size;
    ch.resize(size > head ? size : head);
    ASSERT_EQ(zcoll::validate_quantized_chunk(ch.data(), size, len), ok ? head : 0)
        << "it=" << it << " nb=" << nb;
  }
}

// The compaction of produce_chunks' runs (in parallel pieces when no destination
// overlaps a source still to be read, else run after run): the same bytes as
// the chunks back to back, for runs that shrink a lot (parallel) or little
// (serial), 1..5 runs (a chunk per thread), up to a few MiB.
TEST(KernelsEdge, RunCompaction) {
  Rng r(19);
  for (int it = 0; it < 80; ++it) {
    const int nt = it < 4 ? 2 + it : 1 + static_cast<int>(r.below(5));
    std::vector<size_t> raw(nt), bytes(nt), at(nt + 1, 0);
    for (int t = 0; t < nt; ++t) {
      raw[t] = it < 4 ? 1 << 21 : 8 * (1 + r.below(it % 2 ? 200000 : 2000));
      bytes[t] = it < 4 ? (it % 2 ? raw[t] / 5 : raw[t] - 8)  // 5:1 (in parallel) and almost 1:1
                        : 8 * r.below(raw[t] / 8 + 1) / (r.coin() ? 1 : 4);
      at[t + 1] = at[t] + bytes[t];
    }
    std::vector<uint8_t> ref(at[nt]), buf(at[nt] + std::accumulate(raw.begin(), raw.end(), 0ul));
    for (auto& b : ref) b = static_cast<uint8_t>(r.next());
    std::vector<uint32_t> sizes(nt);
    const size_t out = zcoll::produce_chunks(
        0, nt, nt, buf.data(), sizes.data(), [&](uint64_t c) { return raw[c]; },
        [&](uint64_t c, uint8_t* o, int) {
          std::memcpy(o, ref.data() + at[c], bytes[c]);
          return bytes[c];
        });
    ASSERT_EQ(out, at[nt]);
    ASSERT_EQ(std::memcmp(buf.data(), ref.data(), out), 0) << "it=" << it << " runs=" << nt;
    for (int t = 0; t < nt; ++t) ASSERT_EQ(sizes[t], bytes[t]);
  }
}

// produce_chunks with a check: where one chunk of any thread's run fails it,
// nothing is produced, and the first failing chunk is reported, for every
// thread count and position.
TEST(KernelsEdge, ProduceChunksChecksFirst) {
  constexpr uint64_t kChunks = 13;
  for (int threads : {1, 2, 3, 5}) {
    for (uint64_t bad0 = 0; bad0 <= kChunks; ++bad0) {
      const uint64_t bad1 = bad0 + 4;  // a second bad chunk after it (maybe none)
      std::vector<uint8_t> buf(kChunks * 16, 0xEE);
      std::vector<uint32_t> sizes(kChunks, 0);
      std::atomic<int> produced{0};
      uint64_t first_bad = kChunks;
      const size_t out = zcoll::produce_chunks(
          0, kChunks, threads, buf.data(), sizes.data(), [](uint64_t) { return size_t{16}; },
          [&](uint64_t c, uint8_t* o, int) {
            ++produced;
            std::memset(o, static_cast<int>(c), 8);
            return size_t{8};
          },
          nullptr, [&](uint64_t c) { return c != bad0 && c != bad1; }, &first_bad);
      if (bad0 < kChunks) {
        EXPECT_EQ(out, 0u);
        EXPECT_EQ(first_bad, bad0) << "threads " << threads;
        EXPECT_EQ(produced.load(), 0);
        EXPECT_TRUE(std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == 0xEE; }));
      } else {
        EXPECT_EQ(out, kChunks * 8);
        EXPECT_EQ(first_bad, kChunks);
        for (uint64_t c = 0; c < kChunks; ++c) EXPECT_EQ(buf[8 * c], c);
      }
    }
  }
}
