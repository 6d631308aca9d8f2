// fuzz_common.h — helpers shared by the zcoll fuzz targets.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/format.h"  // internal: header_checksum, load/store helpers
#include "zcoll.h"

namespace zfuzz {

[[noreturn]] inline void die(const char* what) {
  std::fprintf(stderr, "zcoll fuzz: %s (last error: \"%s\")\n", what, zcoll_last_error());
  std::abort();
}
#define ZFUZZ_CHECK(cond)                              \
  do {                                                 \
    if (!(cond)) ::zfuzz::die("check failed: " #cond); \
  } while (0)

// If the bytes hold a plausible header and the whole index, rewrite the
// header/index checksum so that mutations reach the index and chunk checks and
// the decoders instead of stopping at the CRC.
inline void fix_checksum(std::vector<uint8_t>& s) {
  if (s.size() < zcoll::kHeaderBytes) return;
  const uint32_t cs = zcoll::load_u32(s.data() + 8);
  const uint64_t n = zcoll::load_u64(s.data() + 16);
  if (cs < ZCOLL_MIN_CHUNK_SIZE || cs > ZCOLL_MAX_CHUNK_SIZE || n > (uint64_t{1} << 40)) return;
  const uint64_t chunks = (n + cs - 1) / cs;
  if (zcoll::header_and_index_bytes(chunks) > s.size()) return;
  zcoll::store_u32(s.data() + 44, zcoll::header_checksum(s.data(), chunks));
}

// Exact |x - y| <= eb for finite x (TwoSum: s + e == x - y exactly).
inline bool within_bound(double x, double y, double eb) {
  if (!std::isfinite(y)) return false;
  const double a = x, b = -y, s = a + b;
  if (!std::isfinite(s)) return false;
  const double bv = s - a, av = s - bv, e = (a - av) + (b - bv), as = std::fabs(s);
  if (as < eb) return true;
  if (as > eb) return false;
  return e == 0 || std::signbit(e) != std::signbit(s);
}

}  // namespace zfuzz
