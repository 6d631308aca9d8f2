// synthetic.h — deterministic synthetic inputs for the benchmarks: a smooth 2-D
// field (a few low-frequency sines), white noise, and NaN sprinkling (which forces
// raw chunks). The same generator feeds zcoll-codec-bench and zcoll_micro_bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zcoll_bench {

// rows x cols (C order) sum of four separable low-frequency sine products, values in
// about [-2, 2]. `snapshot` shifts the phases a little: snapshot 1 is a plausible
// "next time step" of snapshot 0 (different values, same smoothness).
std::vector<float> smooth_field(size_t rows, size_t cols, int snapshot = 0);

// n values uniform in [-1, 1) from a fixed-seed generator: nothing to predict, so
// every value costs about log2(2 / quantum) bits (the worst case short of raw).
std::vector<float> white_noise(size_t n, uint64_t seed);

// Set x[offset + k*every] = NaN for every k: each such chunk must be stored raw.
void sprinkle_nans(std::vector<float>& x, size_t every, size_t offset);

}  // namespace zcoll_bench
