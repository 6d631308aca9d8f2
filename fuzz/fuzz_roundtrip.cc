// fuzz_roundtrip.cc — the bytes are values: compress, decompress, and abort on
// any violation of the error bound (exact check), on a non-finite value not
// reproduced bit for bit, on a stream larger than zcoll_compress_bound, or on
// bytes that depend on the thread count.
//
// Input: byte 0 = parameters, byte 1 = repetitions, then the values.
//   bit 0     dtype (float32 / float64)
//   bit 1     ABS / REL
//   bits 2-4  error bound (table below)
//   bit 5     threads 1 / 2
//   bits 6-7  chunk size 1024 / 1056 / 2048 / 16384
//   byte 1    the values are repeated 1 + (byte1 & 7) times (multi-chunk inputs)
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_common.h"

namespace {

const double kAbs[8] = {1e-6, 1e-3, 0.1, 0.5, 1.0, 1e3, 1e-30, 1e30};
const double kRel[8] = {0.1, 1e-2, 1e-3, 1e-5, 1e-9, 0.5, 1e-15, 1.0};
const uint32_t kChunk[4] = {1024, 1056, 2048, 16384};

// Whether the library can use the bound these settings resolve to (a positive
// finite bound whose quantization step 2*eb*(1-slack) is a finite normal
// double). zcoll_compress refuses the others with ZCOLL_ERR_INVALID_ARG: a known
// limitation (tests/unit KnownBug.*: REL on float64 data whose range is huge or
// subnormal, ABS bounds above ~DBL_MAX/2 or below DBL_MIN/2), skipped here.
template <typename T>
bool usable(const std::vector<T>& x, zcoll_eb_mode mode, double eb) {
  double b = eb;
  if (mode == ZCOLL_EB_REL) {
    double mn, mx;
    if (zcoll_value_range(sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64, x.data(), x.size(), &mn,
                          &mx, 1) != ZCOLL_SUCCESS)
      return false;
    const double range = mx - mn;
    b = range > 0 ? eb * range : eb * std::max(std::fabs(mn), 1.0);
  }
  const double slack = sizeof(T) == 4 ? 1.0 / 64 : 1.0 / 1048576;
  const double quantum = 2 * b * (1 - slack);
  return std::isfinite(b) && b > 0 && std::isfinite(quantum) && quantum >= DBL_MIN;
}

template <typename T>
void run(const uint8_t* v, size_t nbytes, uint8_t prm, uint8_t rep) {
  const zcoll_dtype dt = sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
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

  const size_t bound = zcoll_compress_bound(n, dt);
  std::vector<uint8_t> z(bound + 64, 0xA5);
  size_t zs = 0;
  const zcoll_status st = zcoll_compress(&p, dt, x.data(), n, z.data(), bound, &zs, threads);
  for (size_t i = bound; i < z.size(); ++i)
    if (z[i] != 0xA5) zfuzz::die("compressor wrote past zcoll_compress_bound");
  if (st != ZCOLL_SUCCESS) {
    const std::string msg = zcoll_last_error();
    if (st == ZCOLL_ERR_INVALID_ARG && !usable(x, p.eb_mode, p.error_bound)) return;
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
    if (std::isfinite(x[i])) {
      if (!zfuzz::within_bound(static_cast<double>(x[i]), static_cast<double>(y[i]),
                               info.error_bound)) {
        std::fprintf(stderr, "value %zu: x = %.17g, x' = %.17g, eb = %.17g\n", i,
                     static_cast<double>(x[i]), static_cast<double>(y[i]), info.error_bound);
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
  if (data[0] & 1)
    run<double>(data + 2, size - 2, data[0], data[1]);
  else
    run<float>(data + 2, size - 2, data[0], data[1]);
  return 0;
}
