// datasets.h — the inputs of zcoll-codec-bench: every *.f32 file of a data
// directory (the shape is encoded in the name: <stem>_<d0>x<d1>[x<d2>].f32, slowest
// dimension first) plus synthetic fields, and the pairs of different inputs of the
// same field used by the homomorphic-addition mode.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace zcoll_bench {

enum class Source { kFile, kSmooth, kNoise, kSmoothNan };

struct DatasetSpec {
  std::string name;  // file stem, or "synthetic-smooth_4096x4096" etc.
  Source source = Source::kFile;
  std::string path;          // files only
  std::vector<size_t> dims;  // slowest first; product = values
  size_t count() const;
  std::string shape() const;  // "2161x4320"
};

// Values between NaNs in the NaN-sprinkled inputs: one NaN every 16 default chunks.
constexpr size_t kNanSpacing = 16 * 16384;

// *.f32 files of data_dir (sorted by name; a missing dir gives none) followed by
// the synthetic fields on a side x side grid. Problems (a name without a shape, a
// size that does not match it) are appended to *warnings; such a file is kept as
// a 1-D array of its size.
std::vector<DatasetSpec> discover_datasets(const std::string& data_dir, size_t side,
                                           std::vector<std::string>* warnings);

// Datasets whose name contains one of the patterns (all when patterns is empty).
std::vector<DatasetSpec> select_datasets(const std::vector<DatasetSpec>& all,
                                         const std::vector<std::string>& patterns);

// The values of a dataset (reads the file or generates the field). Throws
// std::runtime_error when a file cannot be read.
std::vector<float> load_dataset(const DatasetSpec& d);

// Two different inputs of the same field with the same length:
//  3-D files: the first and the second half along the slowest axis (time steps /
//             levels); 2-D files: the field without its last row and the field
//             shifted by one row; 1-D files: first and second half;
//  synthetic: two snapshots (smooth), two seeds (noise), NaNs at different
//             chunks of a and b (smooth-nan).
struct InputPair {
  std::vector<float> a, b;
  std::string how;  // one line saying how a and b were made
};
InputPair make_input_pair(const DatasetSpec& d);

}  // namespace zcoll_bench
