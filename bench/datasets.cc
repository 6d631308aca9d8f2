// datasets.cc — see datasets.h.
#include "datasets.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "synthetic.h"

namespace fs = std::filesystem;

namespace zcoll_bench {

size_t DatasetSpec::count() const {
  size_t n = 1;
  for (size_t d : dims) n *= d;
  return dims.empty() ? 0 : n;
}

std::string DatasetSpec::shape() const {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
  return s;
}

namespace {

// "<anything>_<d0>x<d1>...": the dims after the last '_', or empty if not a shape.
std::vector<size_t> dims_from_stem(const std::string& stem) {
  size_t us = stem.rfind('_');
  if (us == std::string::npos || us + 1 >= stem.size()) return {};
  std::vector<size_t> dims;
  size_t pos = us + 1;
  while (pos <= stem.size()) {
    size_t x = stem.find('x', pos);
    std::string part = stem.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return {};
    size_t v = std::stoull(part);
    if (v == 0) return {};
    dims.push_back(v);
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return dims;
}

DatasetSpec synthetic(const char* kind, Source s, size_t side) {
  DatasetSpec d;
  d.source = s;
  d.dims = {side, side};
  d.name = std::string("synthetic-") + kind + "_" + d.shape();
  return d;
}

}  // namespace

std::vector<DatasetSpec> discover_datasets(const std::string& data_dir, size_t side,
                                           std::vector<std::string>* warnings) {
  std::vector<DatasetSpec> out;
  std::error_code ec;
  if (!data_dir.empty() && fs::is_directory(data_dir, ec)) {
    for (const auto& e : fs::directory_iterator(data_dir, ec)) {
      if (!e.is_regular_file(ec) || e.path().extension() != ".f32") continue;
      DatasetSpec d;
      d.source = Source::kFile;
      d.path = e.path().string();
      d.name = e.path().stem().string();
      const uintmax_t bytes = e.file_size(ec);
      d.dims = dims_from_stem(d.name);
      if (bytes % 4 != 0) {
        warnings->push_back(d.path + ": size " + std::to_string(bytes) +
                            " is not a multiple of 4, skipped");
        continue;
      }
      if (d.count() * 4 != bytes) {
        warnings->push_back(d.path + ": shape '" + d.shape() + "' in the name does not match " +
                            std::to_string(bytes) + " bytes; read as 1-D");
        d.dims = {static_cast<size_t>(bytes / 4)};
      }
      if (d.count() == 0) continue;
      out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(),
              [](const DatasetSpec& x, const DatasetSpec& y) { return x.name < y.name; });
  } else if (!data_dir.empty()) {
    warnings->push_back("data directory '" + data_dir + "' not found: synthetic fields only");
  }
  out.push_back(synthetic("smooth", Source::kSmooth, side));
  out.push_back(synthetic("noise", Source::kNoise, side));
  out.push_back(synthetic("smooth-nan", Source::kSmoothNan, side));
  return out;
}

std::vector<DatasetSpec> select_datasets(const std::vector<DatasetSpec>& all,
                                         const std::vector<std::string>& patterns) {
  if (patterns.empty()) return all;
  std::vector<DatasetSpec> out;
  for (const auto& d : all)
    for (const auto& p : patterns)
      if (d.name.find(p) != std::string::npos) {
        out.push_back(d);
        break;
      }
  return out;
}

std::vector<float> load_dataset(const DatasetSpec& d) {
  switch (d.source) {
    case Source::kSmooth: return smooth_field(d.dims[0], d.dims[1], 0);
    case Source::kNoise: return white_noise(d.count(), 0x5eed0001);
    case Source::kSmoothNan: {
      std::vector<float> x = smooth_field(d.dims[0], d.dims[1], 0);
      sprinkle_nans(x, kNanSpacing, 1000);
      return x;
    }
    case Source::kFile: break;
  }
  // raw little-endian float32 (every supported host is little-endian)
  std::vector<float> x(d.count());
  std::ifstream in(d.path, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(x.data()), static_cast<std::streamsize>(x.size() * 4)))
    throw std::runtime_error("cannot read " + d.path);
  return x;
}

InputPair make_input_pair(const DatasetSpec& d) {
  InputPair p;
  const size_t n = d.count();
  switch (d.source) {
    case Source::kSmooth:
      p.a = smooth_field(d.dims[0], d.dims[1], 0);
      p.b = smooth_field(d.dims[0], d.dims[1], 1);
      p.how = "snapshots 0 and 1 (phase-shifted sines)";
      return p;
    case Source::kNoise:
      p.a = white_noise(n, 0x5eed0001);
      p.b = white_noise(n, 0x5eed0002);
      p.how = "two independent noise fields";
      return p;
    case Source::kSmoothNan:
      p.a = smooth_field(d.dims[0], d.dims[1], 0);
      p.b = smooth_field(d.dims[0], d.dims[1], 1);
      sprinkle_nans(p.a, kNanSpacing, 1000);
      sprinkle_nans(p.b, kNanSpacing, kNanSpacing / 2 + 1000);
      p.how = "smooth snapshots 0 and 1, NaNs in different chunks of a and b";
      return p;
    case Source::kFile: break;
  }
  std::vector<float> x = load_dataset(d);
  if (d.dims.size() >= 3 && d.dims[0] >= 2) {
    const size_t slab = n / d.dims[0], half = d.dims[0] / 2;
    p.a.assign(x.begin(), x.begin() + half * slab);
    p.b.assign(x.begin() + half * slab, x.begin() + 2 * half * slab);
    p.how = "slices [0," + std::to_string(half) + ") and [" + std::to_string(half) + "," +
            std::to_string(2 * half) + ") of the slowest axis";
  } else if (d.dims.size() == 2 && d.dims[0] >= 2) {
    const size_t cols = d.dims[1];
    p.a.assign(x.begin(), x.end() - cols);
    p.b.assign(x.begin() + cols, x.end());
    p.how = "the field and the field shifted by one row (" + std::to_string(d.dims[0] - 1) +
            " rows each)";
  } else {
    const size_t half = n / 2;
    p.a.assign(x.begin(), x.begin() + half);
    p.b.assign(x.begin() + half, x.begin() + 2 * half);
    p.how = "first and second half";
  }
  return p;
}

}  // namespace zcoll_bench
