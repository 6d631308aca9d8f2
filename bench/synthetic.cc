// synthetic.cc — see synthetic.h.
#include "synthetic.h"

#include <cmath>
#include <limits>

namespace zcoll_bench {

namespace {

struct Mode {
  double amplitude, fy, fx, phase_y, phase_x;  // cycles over the whole grid
};
constexpr Mode kModes[] = {
    {1.00, 1.0, 2.0, 0.3, 1.1},
    {0.50, 3.0, 1.0, 2.0, 0.4},
    {0.30, 2.0, 5.0, 1.3, 2.7},
    {0.15, 7.0, 4.0, 0.9, 0.2},
};

uint64_t splitmix64(uint64_t& s) {
  uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<float> smooth_field(size_t rows, size_t cols, int snapshot) {
  constexpr double kTwoPi = 6.283185307179586;
  constexpr size_t kModeCount = sizeof kModes / sizeof kModes[0];
  // separable: f(i, j) = sum_k A_k sin(2 pi fy_k i/rows + py_k) cos(2 pi fx_k j/cols + px_k)
  std::vector<double> ry(kModeCount * rows), cx(kModeCount * cols);
  for (size_t k = 0; k < kModeCount; ++k) {
    const Mode& m = kModes[k];
    const double shift = 0.05 * snapshot * static_cast<double>(k + 1);
    for (size_t i = 0; i < rows; ++i)
      ry[k * rows + i] = m.amplitude * std::sin(kTwoPi * m.fy * i / rows + m.phase_y + shift);
    for (size_t j = 0; j < cols; ++j)
      cx[k * cols + j] = std::cos(kTwoPi * m.fx * j / cols + m.phase_x - shift);
  }
  std::vector<float> out(rows * cols);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < static_cast<int64_t>(rows); ++i) {
    float* row = out.data() + static_cast<size_t>(i) * cols;
    for (size_t j = 0; j < cols; ++j) {
      double v = 0;
      for (size_t k = 0; k < kModeCount; ++k) v += ry[k * rows + i] * cx[k * cols + j];
      row[j] = static_cast<float>(v);
    }
  }
  return out;
}

std::vector<float> white_noise(size_t n, uint64_t seed) {
  std::vector<float> out(n);
  uint64_t s = seed;
  for (size_t i = 0; i < n; ++i) {
    // top 24 bits -> [0, 1) exactly representable in float, then [-1, 1)
    float u = static_cast<float>(splitmix64(s) >> 40) * (1.0f / 16777216.0f);
    out[i] = 2.0f * u - 1.0f;
  }
  return out;
}

void sprinkle_nans(std::vector<float>& x, size_t every, size_t offset) {
  if (every == 0) return;
  for (size_t i = offset; i < x.size(); i += every) x[i] = std::numeric_limits<float>::quiet_NaN();
}

}  // namespace zcoll_bench
