// units.cc — sizes, rates and times (the rules are in units.h).
#include "core/units.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <system_error>

namespace zcoll::units {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Length of the number at the start of t (digits, optional fraction, optional
// exponent); 0 when t does not start with one. *integral: digits only.
size_t scan_number(const char* t, bool* integral) {
  size_t i = 0, digits = 0;
  while (is_digit(t[i])) ++i, ++digits;
  *integral = true;
  if (t[i] == '.') {
    *integral = false;
    ++i;
    while (is_digit(t[i])) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (t[i] == 'e' || t[i] == 'E') {
    size_t j = i + 1;
    if (t[j] == '+' || t[j] == '-') ++j;
    if (!is_digit(t[j])) return i;  // "5e" or "5ex": the number ends before the 'e'
    while (is_digit(t[j])) ++j;
    *integral = false;
    i = j;
  }
  return i;
}

// The number t[0, n) as a double (locale-independent); false on overflow.
bool to_double(const char* t, size_t n, double* out) {
  double v = 0;
  auto r = std::from_chars(t, t + n, v);
  if (r.ec != std::errc() || r.ptr != t + n || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// K, M, G, T (either case) -> 1..4; anything else -> 0.
int prefix_power(char c) {
  switch (c) {
    case 'k':
    case 'K': return 1;
    case 'm':
    case 'M': return 2;
    case 'g':
    case 'G': return 3;
    case 't':
    case 'T': return 4;
    default: return 0;
  }
}

double prefix_factor(int power, bool binary) {
  double f = 1;
  for (int i = 0; i < power; ++i) f *= binary ? 1024.0 : 1000.0;
  return f;
}

bool iequal(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b) {
    char x = *a >= 'A' && *a <= 'Z' ? static_cast<char>(*a - 'A' + 'a') : *a;
    char y = *b >= 'A' && *b <= 'Z' ? static_cast<char>(*b - 'A' + 'a') : *b;
    if (x != y) return false;
  }
  return *a == *b;
}

}  // namespace

bool parse_number(const char* t, double* out) {
  if (!t) return false;
  bool integral = false;
  const size_t n = scan_number(t, &integral);
  if (n == 0 || t[n] != '\0') return false;
  return to_double(t, n, out);
}

bool parse_size(const char* t, uint64_t* out) {
  if (!t) return false;
  bool integral = false;
  const size_t n = scan_number(t, &integral);
  if (n == 0) return false;
  const char* s = t + n;
  const int power = prefix_power(*s);
  bool binary = true;
  if (power) {
    ++s;
    const bool i = *s == 'i' || *s == 'I';
    if (i) ++s;
    if (*s == 'B') {
      ++s;
      binary = i;
    }
  } else if (*s == 'B') {
    ++s;
  }
  if (*s != '\0') return false;
  if (integral) {  // exact: no double rounding for large byte counts
    uint64_t v = 0;
    auto r = std::from_chars(t, t + n, v);
    if (r.ec != std::errc() || r.ptr != t + n) return false;
    uint64_t f = 1;
    for (int i = 0; i < power; ++i) f *= binary ? 1024 : 1000;
    if (__builtin_mul_overflow(v, f, &v)) return false;
    *out = v;
    return true;
  }
  double v = 0;
  if (!to_double(t, n, &v)) return false;
  const long double r = static_cast<long double>(v) * prefix_factor(power, binary);
  if (!(r < 18446744073709551616.0L) || r != std::floor(r)) return false;
  *out = static_cast<uint64_t>(r);
  return true;
}

bool parse_rate(const char* t, double* out) {
  if (!t) return false;
  bool integral = false;
  const size_t n = scan_number(t, &integral);
  if (n == 0) return false;
  char unit[16];
  const size_t len = std::strlen(t + n);
  if (len >= sizeof unit) return false;
  std::memcpy(unit, t + n, len + 1);
  if (len >= 2 && unit[len - 2] == '/' && (unit[len - 1] == 's' || unit[len - 1] == 'S'))
    unit[len - 2] = '\0';
  const char* s = unit;
  const int power = prefix_power(*s);
  bool binary = false;
  if (power) {
    ++s;
    if (*s == 'i' || *s == 'I') ++s, binary = true;
  }
  double per_unit = 0;                                     // bytes per unit
  if ((*s == '\0' && !power) || std::strcmp(s, "B") == 0)  // "", "B", "KB", "KiB"
    per_unit = 1;
  else if (iequal(s, "bit") || iequal(s, "bits"))
    per_unit = 1.0 / 8;
  else
    return false;
  double v = 0;
  if (!to_double(t, n, &v)) return false;
  const double r = v * prefix_factor(power, binary) * per_unit;
  if (!(r > 0) || !std::isfinite(r)) return false;
  *out = r;
  return true;
}

bool parse_time(const char* t, double* out) {
  if (!t) return false;
  bool integral = false;
  const size_t n = scan_number(t, &integral);
  if (n == 0) return false;
  const char* u = t + n;
  double f = 0;
  if (*u == '\0' || iequal(u, "s"))
    f = 1;
  else if (iequal(u, "ms"))
    f = 1e-3;
  else if (iequal(u, "us"))
    f = 1e-6;
  else if (iequal(u, "ns"))
    f = 1e-9;
  else
    return false;
  double v = 0;
  if (!to_double(t, n, &v)) return false;
  *out = v * f;
  return true;
}

char* format_size(uint64_t b, char* buf, int len) {
  static const char kSuffix[] = "KMGT";
  int power = 0;
  while (power < 4 && b != 0 && b % 1024 == 0) b /= 1024, ++power;
  if (power)
    std::snprintf(buf, static_cast<size_t>(len), "%llu%c", static_cast<unsigned long long>(b),
                  kSuffix[power - 1]);
  else
    std::snprintf(buf, static_cast<size_t>(len), "%llu", static_cast<unsigned long long>(b));
  return buf;
}

}  // namespace zcoll::units
