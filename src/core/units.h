// units.h — the one parser of sizes, rates and times, shared by the library
// (ZCOLL_* variables) and every tool's options. Pure functions, no MPI.
//
// The rules (docs/env.md repeats them; tools/common/zcoll_units.py is the
// Python twin and must agree):
//
//   number   digits, an optional fraction and an optional exponent: "64",
//            "2.5", "1e6". No sign, no spaces, no hex, no inf/nan.
//   size     number + optional prefix K, M, G, T (either case) + optional
//            "i" + optional "B". A bare prefix or one with "i" is binary
//            (2^10, 2^20, ...): "64K" = "64KiB" = 65536. A prefix followed by
//            "B" without "i" is decimal (SI): "1MB" = 10^6, "646MB" =
//            646 000 000. The result must be a whole number of bytes (or
//            values) below 2^64: "1.5K" = 1536, "0.5" is refused.
//   rate     number + optional prefix + unit + optional "/s", in bytes per
//            second. Units: "B" (bytes) or "bit"/"bits" (any case). A prefix
//            is decimal unless followed by "i": "1Gbit" = 1.25e8 B/s,
//            "100MB/s" = 1e8, "1GiB/s" = 2^30. A bare number is bytes/s; a
//            prefix needs its unit ("1G" is refused: bits or bytes?), and so
//            do "b", "bps" and "Bps" (tc reads bps as bytes/s, most people as
//            bits/s). The rate must be > 0.
//   time     number + optional unit "s", "ms", "us", "ns" (either case), in
//            seconds; a bare number is seconds. "10ms" = 0.01.
#pragma once

#include <cstdint>

namespace zcoll::units {

// Each returns false, leaving *out alone, when the text does not follow the
// rules above (junk, a sign, a fraction of a byte, overflow, NULL or empty).
bool parse_number(const char* text, double* out);        // plain number, >= 0
bool parse_size(const char* text, uint64_t* out);        // bytes or values
bool parse_rate(const char* text, double* bytes_per_s);  // > 0
bool parse_time(const char* text, double* seconds);      // >= 0

// The shortest exact binary form of a size: 65536 -> "64K", 1536 -> "1536",
// 3 << 30 -> "3G". Writes at most 24 characters with the NUL; returns buf.
char* format_size(uint64_t bytes, char* buf, int len);

}  // namespace zcoll::units
