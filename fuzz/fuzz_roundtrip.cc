// fuzz_roundtrip.cc — the bytes are values: compress, decompress, and abort on
// any violation of the error bound (exact check), on a non-finite value not
// reproduced bit for bit, on a stream larger than zcoll_compress_bound, or on
// bytes that depend on the thread count.
//
// Input: byte 0 = parameters, byte 1 = repetitions and 16-bit types, then the values.
//   bit 0     dtype (float32 / float64)
//   bit 1     ABS / REL
//   bits 2-4  error bound (table below)
//   bit 5     threads 1 / 2
//   bits 6-7  chunk size 1024 / 1056 / 2048 / 16384
//   byte 1    bits 0-2: the values are repeated 1 + (byte1 & 7) times (multi-chunk
//             inputs); bit 3: 16-bit values instead of bit 0's type, bit 4 picks
//             bfloat16 / float16; bit 5: the dense codec (format 1.3) instead of the
//             fast one; bits 6-7: dims (zcoll_params.dims) 0 = none, 1 = 2-D (a row
//             per repetition), 2 = 3-D (the repetition split by its smallest
//             factor in 2..16), 3 = 2-D with a dim of 1
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "codec/value_types.h"  // internal: bf16/f16 widening
#include "fuzz_common.h"

namespace {

const double kAbs[8] = {1e-6, 1e-3, 0.1, 0.5, 1.0, 1e3, 1e-30, 1e30};
const double kRel[8] = {0.1, 1e-2, 1e-3, 1e-5, 1e-9, 0.5, 1e-15, 1.0};
const uint32_t kChunk[4] = {1024, 1056, 2048, 16384};

// The value types: storage, the zcoll_dtype, the value as a double, and the
// quantization step's shape (format.md: 2*eb*(1-s) for float32/float64,
// eb*(1-2^-6) for the 16-bit types).
struct F32 {
  using T = float;
  static constexpr zcoll_dtype kType = ZCOLL_FLOAT32;
  static constexpr double kBins = 2, kSlack = 1.0 / 64;
  static double value(T v) { return v; }
};
struct F64 {
  using T = double;
  static constexpr zcoll_dtype kType = ZCOLL_FLOAT64;
  static constexpr double kBins = 2, kSlack = 1.0 / 1048576;
  static double value(T v) { return v; }
};
struct BF16 {
  using T = uint16_t;
  static constexpr zcoll_dtype kType = ZCOLL_BFLOAT16;
  static constexpr double kBins = 1, kSlack = 1.0 / 64;
  static double value(T v) { return zcoll::hd::bf16_to_float(v); }
};
struct FP16 {
  using T = uint16_t;
  static constexpr zcoll_dtype kType = ZCOLL_FLOAT16;
  static constexpr double kBins = 1, kSlack = 1.0 / 64;
  static double value(T v) { return zcoll::hd::f16_to_float(v); }
};

// Whether the library can use the bound these settings resolve to (a positive
// finite bound whose quantization step is a finite normal double). zcoll_compress refuses the others with ZCOLL_ERR_INVALID_ARG: a known
// limitation (tests/unit KnownBug.*: REL on float64 data whose range is huge or
// subnormal, ABS bounds above ~DBL_MAX/2 or below DBL_MIN/2), skipped here.
template <typename V>
bool usable(const std::vector<typename V::T>& x, zcoll_eb_mode mode, double eb) {
  double b = eb;
  if (mode == ZCOLL_EB_REL) {
    double mn, mx;
    if (zcoll_value_range(V::kType, x.data(), x.size(), &mn, &mx, 1) != ZCOLL_SUCCESS) return false;
    const double range = mx - mn;
    b = range > 0 ? eb * range : eb * std::max(std::fabs(mn), 1.0);
  }
  const double quantum = V::kBins * b * (1 - V::kSlack);
  return std::isfinite(b) && b > 0 && std::isfinite(quantum) && quantum >= DBL_MIN;
}

template <typename V>
void run(const uint8_t* v, size_t nbytes, uint8_t prm, uint8_t rep) {
  using T = typename V::T;
  const zcoll_dtype dt = V::kType;
  const size_t base = nbytes / sizeof(T);
  const size_t n = base * (1 + (rep & 7));
  std::vector<T> x(n);
  for (size_t i = 0; i < n; ++i) std::memcpy(&x[i], v + (i % base) * sizeof(T), sizeof(T));

  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = (prm & 2) ? ZCOLL_EB_REL : ZCOLL_EB_ABS;
  p.error_bound = (p.eb_mode == ZCOLL_EB_ABS ? kAbs : kRel)[(prm >> 2) & 7];
  int threads = (prm & 32) ? 2 : 1;
  p.chunk_size = kChunk[prm >> 6];
  p.codec = (rep & 32) ? ZCOLL_CODEC_DENSE : ZCOLL_CODEC_FAST;
  if ((rep >> 6) && base) {  // the product is n
    const uint64_t rows = 1 + (rep & 7);
    uint64_t f = 2;
    while (f <= 16 && base % f) ++f;
    if ((rep >> 6) == 2 && f <= 16) {
      p.ndims = 3, p.dims[0] = rows, p.dims[1] = base / f, p.dims[2] = f;
    } else {
      p.ndims = (rep >> 6) == 3 ? 3 : 2;
      p.dims[0] = rows, p.dims[1] = (rep >> 6) == 3 ? 1 : base, p.dims[2] = base;
    }
  }

  const size_t bound = zcoll_compress_bound(n, dt);
  std::vector<uint8_t> z(bound + 64, 0xA5);
  size_t zs = 0;
  const zcoll_status st = zcoll_compress(&p, dt, x.data(), n, z.data(), bound, &zs, threads);
  for (size_t i = bound; i < z.size(); ++i)
    if (z[i] != 0xA5) zfuzz::die("compressor wrote past zcoll_compress_bound");
  if (st != ZCOLL_SUCCESS) {
    const std::string msg = zcoll_last_error();
    if (st == ZCOLL_ERR_INVALID_ARG && !usable<V>(x, p.eb_mode, p.error_bound)) return;
    std::fprintf(stderr, "compression failed: status %d, \"%s\" (n = %zu, eb = %g, mode %d)\n",
                 static_cast<int>(st), msg.c_str(), n, p.error_bound, static_cast<int>(p.eb_mode));
    zfuzz::die("compression failed");
  }
  ZFUZZ_CHECK(zs <= bound);

  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ZFUZZ_CHECK(zcoll_inspect(z.data(), zs, &info) == ZCOLL_SUCCESS);
  ZFUZZ_CHECK(info.stream_size == zs && info.n == n && info.dtype == dt);
  ZFUZZ_CHECK(info.chunk_size == p.chunk_size);
  if (p.eb_mode == ZCOLL_EB_ABS) ZFUZZ_CHECK(info.error_bound == p.error_bound);

  std::vector<T> y(n);
  ZFUZZ_CHECK(zcoll_decompress(z.data(), zs, y.data(), n, threads) == ZCOLL_SUCCESS);
  for (size_t i = 0; i < n; ++i) {
    const double xi = V::value(x[i]), yi = V::value(y[i]);
    if (std::isfinite(xi)) {
      if (!zfuzz::within_bound(xi, yi, info.error_bound)) {
        std::fprintf(stderr, "value %zu: x = %.17g, x' = %.17g, eb = %.17g\n", i, xi, yi,
                     info.error_bound);
        zfuzz::die("error bound violated");
      }
    } else if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) {
      zfuzz::die("non-finite value not reproduced bit for bit");
    }
  }

  // the other thread count gives the same bytes
  threads = 3 - threads;
  std::vector<uint8_t> z2(bound);
  size_t zs2 = 0;
  ZFUZZ_CHECK(zcoll_compress(&p, dt, x.data(), n, z2.data(), bound, &zs2, threads) ==
              ZCOLL_SUCCESS);
  ZFUZZ_CHECK(zs2 == zs && std::memcmp(z.data(), z2.data(), zs) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const uint8_t prm = data[0], rep = data[1];
  if (rep & 8) {
    if (rep & 16)
      run<FP16>(data + 2, size - 2, prm, rep);
    else
      run<BF16>(data + 2, size - 2, prm, rep);
  } else if (prm & 1) {
    run<F64>(data + 2, size - 2, prm, rep);
  } else {
    run<F32>(data + 2, size - 2, prm, rep);
  }
  return 0;
}
