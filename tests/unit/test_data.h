// test_data.h — random and adversarial input arrays for the zcoll unit tests.
#pragma once

#include <cfloat>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

namespace zt {

enum Kind {
  kWhiteNoise,    // uniform noise
  kGaussian,      // normal noise
  kSmoothSine,    // smooth sine field, a little noise
  kConstant,      // one repeated value
  kZeros,         // +0.0 and -0.0
  kRandomWalk,    // integrated noise
  kDynamicRange,  // magnitudes spread over many decades, both signs
  kStraddle,      // (k + 0.5) * quantum and its float neighbours
  kEscape,        // around 2^30 * quantum, the largest quantizable code
  kSpecials,      // smooth data sprinkled with NaN (payloads), +-Inf, huge, denormals, -0
  kRandomBits,    // random bit patterns: every float class
  kDenormals,     // subnormal values only
  kHuge,          // values near the largest finite ones
  kSpikes,        // mostly zero, rare huge spikes
  kOneBadChunk,   // smooth data with NaNs in a single chunk (raw + quantized mix)
  kSteps,         // piecewise constant integers
  kNumKinds
};

inline const char* kind_name(int k) {
  static const char* names[] = {"white_noise", "gaussian",    "smooth_sine",   "constant",
                                "zeros",       "random_walk", "dynamic_range", "straddle",
                                "escape",      "specials",    "random_bits",   "denormals",
                                "huge",        "spikes",      "one_bad_chunk", "steps"};
  return k >= 0 && k < kNumKinds ? names[k] : "?";
}

// A quiet or signalling NaN with a random payload (never Inf).
template <typename T>
T nan_with_payload(Rng& r) {
  using U = typename Bits<T>::U;
  const int mant = std::numeric_limits<T>::digits - 1;
  const U exp_mask = ((U{1} << (sizeof(T) * 8 - 1 - mant)) - 1) << mant;
  U payload = static_cast<U>(r.next()) & ((U{1} << mant) - 1);
  if (payload == 0) payload = 1;
  U sign = r.coin() ? U{1} << (sizeof(T) * 8 - 1) : 0;
  return from_bits<T>(sign | exp_mask | payload);
}

template <typename T>
T random_bits(Rng& r) {
  return from_bits<T>(static_cast<typename Bits<T>::U>(r.next()));
}

template <typename T>
T denormal(Rng& r) {
  using U = typename Bits<T>::U;
  const int mant = std::numeric_limits<T>::digits - 1;
  U m = static_cast<U>(r.next()) & ((U{1} << mant) - 1);
  U sign = r.coin() ? U{1} << (sizeof(T) * 8 - 1) : 0;
  return from_bits<T>(sign | m);
}

// Value k*step rounded to T plus `ulps` steps of nextafter.
template <typename T>
T nudge(double v, int ulps) {
  T t = static_cast<T>(v);
  const T dir = ulps > 0 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
  for (int i = 0; i < (ulps > 0 ? ulps : -ulps); ++i) t = std::nextafter(t, dir);
  return t;
}

// Quantum of a stream compressed from `probe` with the given settings.
template <typename T>
double probe_quantum(const std::vector<T>& probe, zcoll_eb_mode mode, double eb) {
  std::vector<uint8_t> z = compress(probe, mode, eb, 1024, 1);
  if (z.empty()) return 0;
  return inspect(z).quantum;
}

// kStraddle (escape = false): values at and near the middle of quantization
// bins of several code sizes; kEscape: codes around the escape threshold
// 2^30 - 1. Both nudged by up to 3 ulps.
template <typename T>
void fill_quantization_bins(bool escape, std::vector<T>& x, Rng& r, zcoll_eb_mode mode, double eb,
                            double amp) {
  const size_t n = x.size();
  double R = 0, quantum = 0;
  if (mode == ZCOLL_EB_ABS) {
    quantum = probe_quantum<T>({T(0)}, mode, eb);
  } else {
    R = amp;
    quantum = probe_quantum<T>({static_cast<T>(-R), static_cast<T>(R)}, mode, eb);
  }
  if (quantum == 0) return;
  for (auto& v : x) {
    double k;
    if (escape) {
      k = std::ldexp(1.0, 30) - static_cast<double>(r.below(5)) + (r.coin() ? 0.5 : 0.0);
    } else {
      switch (r.below(4)) {
        case 0: k = static_cast<double>(r.below(64)); break;
        case 1: k = static_cast<double>(r.below(1u << 20)); break;
        case 2: k = std::ldexp(1.0, 23) + static_cast<double>(r.below(64)) - 32; break;
        default: k = static_cast<double>(r.below(1u << 30)); break;
      }
      k += 0.5;
    }
    if (r.coin()) k = -k;
    double val = k * quantum;
    if (R > 0 && std::fabs(val) > R) val = std::fmod(val, R);
    v = nudge<T>(val, static_cast<int>(r.below(7)) - 3);
  }
  if (R > 0 && n >= 2) {
    x[0] = static_cast<T>(-R);
    x[n - 1] = static_cast<T>(R);
  }
}

// A smooth signal with 2 % special values: NaNs, infinities, extremes,
// denormals, -0.
template <typename T>
void fill_specials(std::vector<T>& x, Rng& r, double amp) {
  const T tmax = std::numeric_limits<T>::max();
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = static_cast<T>(amp * std::sin(0.01 * i));
    if (r.coin(0.02)) {
      switch (r.below(8)) {
        case 0: x[i] = nan_with_payload<T>(r); break;
        case 1: x[i] = std::numeric_limits<T>::quiet_NaN(); break;
        case 2: x[i] = std::numeric_limits<T>::infinity(); break;
        case 3: x[i] = -std::numeric_limits<T>::infinity(); break;
        case 4: x[i] = r.coin() ? tmax : -tmax; break;
        case 5: x[i] = denormal<T>(r); break;
        case 6: x[i] = -T(0); break;
        default: x[i] = std::numeric_limits<T>::denorm_min(); break;
      }
    }
  }
}

// A smooth signal with three NaNs in one chunk (of chunk_size values).
template <typename T>
void fill_one_bad_chunk(std::vector<T>& x, Rng& r, double amp, uint32_t chunk_size) {
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<T>(amp * std::cos(0.003 * i));
  uint32_t cs = chunk_size ? chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  if (n) {
    size_t chunks = (n + cs - 1) / cs;
    size_t c = r.below(chunks);
    size_t lo = c * cs, hi = std::min(n, lo + cs);
    for (int j = 0; j < 3; ++j) x[lo + r.below(hi - lo)] = nan_with_payload<T>(r);
  }
}

// Build an input of the given kind. `mode`/`eb` are the settings it will be
// compressed with; kinds that target quantization bins read the quantum from a
// first compression (for REL the range is pinned to [-R, R] first).
template <typename T>
std::vector<T> make_case(int kind, size_t n, Rng& r, zcoll_eb_mode mode, double eb,
                         uint32_t chunk_size) {
  std::vector<T> x(n);
  const double amp = std::pow(10.0, static_cast<double>(r.below(13)) - 6.0);  // 1e-6 .. 1e6
  const T tmax = std::numeric_limits<T>::max();
  switch (kind) {
    case kWhiteNoise:
      for (auto& v : x) v = static_cast<T>(r.uniform(-amp, amp));
      break;
    case kGaussian: {
      double mean = r.coin() ? 0 : r.uniform(-10, 10) * amp;
      for (auto& v : x) v = static_cast<T>(mean + amp * r.normal());
      break;
    }
    case kSmoothSine: {
      double f = r.uniform(1e-4, 0.1), ph = r.uniform(0, 6.28), noise = r.coin() ? 0 : 1e-4;
      for (size_t i = 0; i < n; ++i)
        x[i] = static_cast<T>(
            amp * (std::sin(f * i + ph) + 0.3 * std::sin(7.1 * f * i) + noise * r.uniform(-1, 1)));
      break;
    }
    case kConstant: {
      T c = r.coin(0.2) ? T(0) : static_cast<T>(r.uniform(-amp, amp));
      for (auto& v : x) v = c;
      break;
    }
    case kZeros:
      for (auto& v : x) v = r.coin() ? T(0) : -T(0);
      break;
    case kRandomWalk: {
      double acc = r.uniform(-amp, amp);
      for (auto& v : x) {
        acc += amp * 1e-2 * r.uniform(-1, 1);
        v = static_cast<T>(acc);
      }
      break;
    }
    case kDynamicRange: {
      const int decades = std::is_same<T, float>::value ? 37 : 300;
      for (auto& v : x) {
        double m = std::pow(10.0, r.uniform(-decades, decades));
        v = static_cast<T>(r.coin() ? m : -m);
      }
      break;
    }
    case kStraddle:
    case kEscape: fill_quantization_bins<T>(kind == kEscape, x, r, mode, eb, amp); break;
    case kSpecials: fill_specials<T>(x, r, amp); break;
    case kRandomBits:
      for (auto& v : x) v = random_bits<T>(r);
      break;
    case kDenormals:
      for (auto& v : x) v = denormal<T>(r);
      break;
    case kHuge:
      for (auto& v : x) v = static_cast<T>(tmax * r.uniform(-1, 1));
      break;
    case kSpikes:
      for (auto& v : x) v = r.coin(0.01) ? static_cast<T>(tmax * r.uniform(-0.5, 0.5)) : T(0);
      break;
    case kOneBadChunk: fill_one_bad_chunk<T>(x, r, amp, chunk_size); break;
    case kSteps: {
      double level = 0;
      for (auto& v : x) {
        if (r.coin(0.01)) level = static_cast<double>(static_cast<int64_t>(r.below(2001)) - 1000);
        v = static_cast<T>(level);
      }
      break;
    }
    default: break;
  }
  return x;
}

}  // namespace zt
