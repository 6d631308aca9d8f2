// dense_nd_test.cc — the dense codec with dims (zcoll_params.dims; predictors 3,
// 4 and 5 of docs/format.md §5.3): round trips on every data file with its
// shape (the bound, the 1-D codec's codes where a chunk predicts codes,
// thread-count independence), the predictor passes on their own, edge shapes,
// corrupt strides and modes, API errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "codec/chunk_codec.h"
#include "codec/dense.h"
#include "codec/dense_interp.h"
#include "codec/dense_predict.h"
#include "codec/format.h"
#include "codec/value_types.h"
#include "data_files.h"
#include "dense_streams.h"
#include "test_util.h"
#include "zcoll.h"

namespace {

std::vector<uint64_t> no_dims() { return {}; }

// The row (or plane) index i / w as a double (an integer division, on purpose).
double index_of(size_t i, size_t w) {
  const size_t k = i / w;
  return static_cast<double>(k);
}

// Compress float32 values with the dense codec (ABS eb) and the given dims.
std::vector<uint8_t> dense(const std::vector<float>& x, double eb,
                           const std::vector<uint64_t>& dims, uint32_t cs = 0, int threads = 1,
                           zcoll_codec codec = ZCOLL_CODEC_DENSE) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  p.chunk_size = cs;
  p.codec = codec;
  p.ndims = static_cast<uint32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) p.dims[d] = dims[d];
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t size = 0;
  const zcoll_status s =
      zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), out.size(), &size, threads);
  EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  out.resize(s == ZCOLL_SUCCESS ? size : 0);
  return out;
}

// The shape in a data file's name ("..._17x96x192.f32"), slowest first.
std::vector<uint64_t> dims_of(const std::string& path) {
  const std::string stem = std::filesystem::path(path).stem().string();
  const std::string tail = stem.substr(stem.rfind('_') + 1);
  std::vector<uint64_t> dims;
  size_t at = 0;
  while (at <= tail.size()) {
    const size_t x = std::min(tail.find('x', at), tail.size());
    dims.push_back(std::stoull(tail.substr(at, x - at)));
    at = x + 1;
  }
  return dims;
}

using zt::data_files;
using zt::read_f32;

double range_of(const std::vector<float>& x) {
  double lo = 0, hi = 0;
  EXPECT_EQ(zcoll_value_range(ZCOLL_FLOAT32, x.data(), x.size(), &lo, &hi, 1), ZCOLL_SUCCESS);
  return hi - lo;
}

// y (the values of the stream z) decodes to the values of the 1-D dense stream
// f of the same chunk size (the same codes), except where a chunk of either is
// raw (there: x bit for bit) and in z's chunks of predictor 5 (fine codes, not
// the codes: only the bound, which the callers check, holds there).
void expect_same_codes(const std::vector<float>& x, const std::vector<float>& y,
                       const std::vector<float>& f, const std::string& what,
                       const std::vector<uint8_t>& z) {
  const std::vector<int> ids = zt::dense_predictors(z);
  const uint64_t cs = zt::inspect(z).chunk_size;
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (ids[i / cs] != zcoll::kDenseInterp && zt::bits_of(y[i]) != zt::bits_of(f[i]) &&
        zt::bits_of(y[i]) != zt::bits_of(x[i]) && ++bad <= 3)
      ADD_FAILURE() << what << ": value " << i << " differs from the 1-D codec's";
  EXPECT_EQ(bad, 0u) << what;
}

int count_ids(const std::vector<uint8_t>& z, int lo, int hi) {
  const std::vector<int> ids = zt::dense_predictors(z);
  return static_cast<int>(
      std::count_if(ids.begin(), ids.end(), [&](int id) { return id >= lo && id <= hi; }));
}

TEST(DenseNd, DataFilesRoundTripWithDims) {
  const std::vector<std::string> files = data_files();
  ASSERT_FALSE(files.empty()) << "no data files found";
  size_t nd_chunks = 0, interp_chunks = 0;
  for (const std::string& path : files) {
    const std::vector<float> x = read_f32(path);
    const std::vector<uint64_t> dims = dims_of(path);
    const double range = range_of(x);
    for (double rel : {1e-2, 1e-3, 1e-4}) {
      const double eb = rel * range;
      const std::string what = path + " REL " + std::to_string(rel);
      const auto z = dense(x, eb, dims);
      const zcoll_info info = zt::inspect(z);
      const std::vector<float> y = zt::decompress<float>(z, x.size());
      EXPECT_EQ(zt::count_violations(x, y, info.error_bound, what), 0u);
      const auto flat = dense(x, eb, no_dims(), info.chunk_size);
      expect_same_codes(x, y, zt::decompress<float>(flat, x.size()), what, z);
      EXPECT_EQ(dense(x, eb, dims, 0, 3), z) << what << ": 3 threads";
      nd_chunks += static_cast<size_t>(count_ids(z, 3, 4));
      interp_chunks += static_cast<size_t>(count_ids(z, 5, 5));
      if (dims.size() >= 2) {
        EXPECT_EQ(info.chunk_size, 262144u) << what;
      }
    }
  }
  // both kinds win on real fields: the n-D Lorenzo predictors on the 3-D fields,
  // interpolation on the images and on the seismogram (docs/design.md)
  EXPECT_GT(nd_chunks, 10u);
  EXPECT_GT(interp_chunks, 30u);
}

// The band between the trial's verdicts (choose_interp, src/codec/dense.cc) on
// two fields of shared/data where the whole-chunk estimates are clear: the FNOC
// east wind at REL 1e-4, whose chunks all fall in the band and need 3-7% fewer
// bits in the code domain (the cross trial decides all but one; any predictor of
// the codes, 1-4), and the
// large chunk of rect3d-t at REL 1e-2, which the first trial puts in the band
// for the code domain (1.21) and which needs 17% fewer bits interpolated: the
// cross trial (0.93) leaves it to the estimates, which must still interpolate.
TEST(DenseNd, BandChunksTakeTheWholeChunkChoice) {
  auto find = [](const std::string& name) {
    for (const std::string& path : data_files())
      if (path.find(name) != std::string::npos) return path;
    return std::string();
  };
  const std::string uwnd = find("fnoc-uwnd_132x73x144"), t = find("rect3d-t_17x96x192");
  if (uwnd.empty() || t.empty()) GTEST_SKIP() << "shared/data not found";
  auto ids_of = [](const std::string& path, double rel) {
    const std::vector<float> x = read_f32(path);
    return zt::dense_predictors(dense(x, rel * range_of(x), dims_of(path)));
  };
  const std::vector<int> u = ids_of(uwnd, 1e-4);
  ASSERT_EQ(u.size(), 6u);
  for (int id : u) EXPECT_TRUE(id >= 1 && id <= 4) << "fnoc-uwnd 1e-4: predictor " << id;
  const std::vector<int> r = ids_of(t, 1e-2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], 5) << "rect3d-t 1e-2: its large chunk interpolates";
}

// Random codes, any strides: the decoder's pass inverts the encoder's, and the
// sampled estimate of the residuals is theirs.
TEST(DenseNd, ResidualsInvertForAnyStrides) {
  zt::Rng r(34);
  for (int t = 0; t < 200; ++t) {
    const uint32_t len = 1 + r.below(5000);
    std::vector<int32_t> q(len);
    for (auto& v : q) v = static_cast<int32_t>(r.below(1u << 31)) - (1 << 30);
    zcoll::DensePredictor p;
    p.id = static_cast<uint8_t>(1 + r.below(4));
    p.row = 1 + r.below(2 * len);
    p.plane = p.row + 1 + r.below(3 * len);
    std::vector<uint32_t> res(len);
    zcoll::dense_residuals(q.data(), len, p, res.data());
    // the encoder's estimate of them without them, to the bit
    for (uint32_t every : {1u, 2u, 3u, 4u}) {
      ASSERT_EQ(zcoll::dense_code_bits(q.data(), len, p, every),
                zcoll::dense_residual_bits(res.data(), len, every))
          << "id " << int(p.id) << " every " << every;
    }
    // the decoder's way too: in pieces of random length (its tiles), in order
    std::vector<uint32_t> tiled = res;
    for (uint32_t from = 0; from < len;) {
      const uint32_t to = std::min<uint32_t>(len, from + 1 + r.below(700));
      zcoll::dense_unpredict_range(tiled.data(), from, to, p);
      from = to;
    }
    zcoll::dense_unpredict(res.data(), len, p);
    for (uint32_t i = 0; i < len; ++i) {
      ASSERT_EQ(res[i], static_cast<uint32_t>(q[i]))
          << "id " << int(p.id) << " row " << p.row << " plane " << p.plane << " i " << i;
      ASSERT_EQ(tiled[i], res[i]) << "pieces: id " << int(p.id) << " i " << i;
    }
  }
}

// A separable field q = f(y) + g(x) has 2-D Lorenzo residuals 0 off the first
// row (and the row starts), so the estimate must take it; in 3-D likewise.
// Codes whose differences are small (loose bounds), spread (tight ones) or
// anything at all (wrapping differences, the widest bins), in runs.
std::vector<int32_t> estimate_codes(zt::Rng& r, uint32_t len) {
  std::vector<int32_t> q(len);
  int32_t v = static_cast<int32_t>(r.below(1000));
  for (uint32_t i = 0; i < len;) {
    const uint32_t run = 1 + static_cast<uint32_t>(r.below(300)), kind = r.below(3);
    for (uint32_t k = 0; k < run && i < len; ++k, ++i) {
      if (kind == 0) v += static_cast<int32_t>(r.below(5)) - 2;
      if (kind == 1) v += static_cast<int32_t>(r.below(1u << 14)) - (1 << 13);
      if (kind == 2) v = static_cast<int32_t>(static_cast<uint32_t>(r.next()));
      q[i] = v;
    }
  }
  return q;
}

// The predictors' kernels (ChunkKernels::dense_lorenzo_residuals and the
// estimates' histograms): the AVX2 ones give the residuals and count what the
// scalar ones give and count, for any length, strides (rows and planes longer
// than the chunk too), sampling step and residuals up to the widest bins.
TEST(DenseNd, PredictKernelsScalarVsAvx2) {
  const zcoll::ChunkKernels& sc = zcoll::scalar_kernels();
  const zcoll::ChunkKernels* k = zcoll::avx2_kernels();
#if defined(__x86_64__) || defined(__i386__)
  if (k && !__builtin_cpu_supports("avx2")) k = nullptr;
#endif
  if (!k) GTEST_SKIP() << "no AVX2 kernels here";
  constexpr uint32_t kB = zcoll::kDenseEstSymbols;
  zt::Rng r(97);
  for (int t = 0; t < 300; ++t) {
    const uint32_t len = t < 40 ? static_cast<uint32_t>(t) : 1 + r.below(t % 10 ? 4000 : 140000);
    const std::vector<int32_t> q = estimate_codes(r, len);
    const uint32_t row = 1 + r.below(t % 3 ? 300 : 2 * len + 2);
    const uint32_t plane = r.coin() ? 0 : row * (2 + r.below(20));
    if (len >= 3 && row < len) {
      uint32_t hs[4][kB] = {}, hv[4][kB] = {};
      sc.dense_sample_histograms(q.data(), len, row, plane, hs);
      k->dense_sample_histograms(q.data(), len, row, plane, hv);
      for (int c = 0; c < 4; ++c)
        for (uint32_t b = 0; b < kB; ++b)
          ASSERT_EQ(hs[c][b], hv[c][b]) << "len " << len << " row " << row << " plane " << plane
                                        << " candidate " << c << " bin " << b;
      // every candidate counts each position of the sample once
      const zcoll::DenseSample sample = zcoll::dense_sample_of(len);
      uint32_t in_sample = 0;
      for (uint32_t i = 0; i < len; ++i) in_sample += sample.has(i);
      ASSERT_EQ(sample.count(len), in_sample) << "len " << len;
      for (int c = 0; c < (plane ? 4 : 3); ++c) {
        uint32_t sum = 0;
        for (uint32_t b = 0; b < kB; ++b) sum += hs[c][b];
        ASSERT_EQ(sum, in_sample) << "len " << len << " row " << row << " candidate " << c;
      }
    }
    for (uint32_t every : {1u, 2u, 3u, 4u}) {
      zcoll::DensePredictor p;
      p.id = static_cast<uint8_t>(1 + r.below(4));
      p.row = row, p.plane = std::max(plane, row + 1);
      std::vector<uint32_t> ress(len, 7), resv(len, 7);
      sc.dense_lorenzo_residuals(q.data(), len, p, ress.data());
      k->dense_lorenzo_residuals(q.data(), len, p, resv.data());
      ASSERT_EQ(ress, resv) << "len " << len << " id " << int(p.id) << " row " << p.row;
      // and back, in tiles of random length (the decoder's), to the codes
      std::vector<uint32_t> back_s = ress, back_v = ress;
      for (uint32_t from = 0; from < len;) {
        const uint32_t to = std::min<uint32_t>(len, from + 1 + r.below(3000));
        sc.dense_unpredict_range(back_s.data(), from, to, p);
        k->dense_unpredict_range(back_v.data(), from, to, p);
        from = to;
      }
      ASSERT_EQ(back_s, back_v) << "len " << len << " id " << int(p.id) << " row " << p.row;
      ASSERT_EQ(0, len ? std::memcmp(back_v.data(), q.data(), 4 * size_t{len}) : 0);
      uint32_t cs[kB] = {}, cv[kB] = {};
      ASSERT_EQ(sc.dense_code_histogram(q.data(), len, p, every, cs),
                k->dense_code_histogram(q.data(), len, p, every, cv));
      ASSERT_EQ(0, std::memcmp(cs, cv, sizeof cs)) << "len " << len << " id " << int(p.id);
      const auto* res = reinterpret_cast<const uint32_t*>(q.data());
      uint32_t rs[kB] = {}, rv[kB] = {};
      ASSERT_EQ(sc.dense_residual_histogram(res, len, every, rs),
                k->dense_residual_histogram(res, len, every, rv));
      ASSERT_EQ(0, std::memcmp(rs, rv, sizeof rs)) << "len " << len << " every " << every;
    }
  }
}

TEST(DenseNd, ChooserTakesTheNdPredictorWhereItIsExact) {
  const uint32_t nx = 100, ny = 50, nz = 6;
  std::vector<int32_t> q(nx * ny * nz);
  for (uint32_t z = 0; z < nz; ++z)
    for (uint32_t y = 0; y < ny; ++y)
      for (uint32_t x = 0; x < nx; ++x)
        q[(z * ny + y) * nx + x] = static_cast<int32_t>(7 * x * x % 101 + 13 * y * y % 89 + z * z);
  const uint64_t d2[] = {ny * nz, nx}, d3[] = {nz, ny, nx};
  const zcoll::DenseShape s2 = zcoll::dense_shape_of(d2, 2), s3 = zcoll::dense_shape_of(d3, 3);
  EXPECT_EQ(s2.row, nx);
  EXPECT_EQ(s2.plane, 0u);
  EXPECT_EQ(s3.plane, nx * ny);
  EXPECT_EQ(zcoll::choose_dense_predictor(q.data(), nx * ny, s2).id, zcoll::kDenseLorenzo2D);
  const zcoll::DensePredictor p3 = zcoll::choose_dense_predictor(q.data(), nx * ny * nz, s3);
  EXPECT_GE(p3.id, zcoll::kDenseLorenzo2D);
  // no shape, or a row as long as the chunk: 1-D only
  EXPECT_LE(zcoll::choose_dense_predictor(q.data(), nx * ny, zcoll::DenseShape{}).id, 2);
  EXPECT_LE(zcoll::choose_dense_predictor(q.data(), nx, s2).id, 2);
}

TEST(DenseNd, ShapeSqueezesOnesAndDropsLongStrides) {
  auto shape = [](std::vector<uint64_t> d) {
    return zcoll::dense_shape_of(d.data(), static_cast<uint32_t>(d.size()));
  };
  EXPECT_EQ(shape({1, 96, 192}).row, 192u);
  EXPECT_EQ(shape({1, 96, 192}).plane, 0u);
  EXPECT_EQ(shape({17, 1, 192}).row, 192u);
  EXPECT_EQ(shape({17, 1, 192}).plane, 0u);
  EXPECT_EQ(shape({17, 96, 1}).row, 96u);
  EXPECT_EQ(shape({5, 1}).row, 0u);  // flat
  EXPECT_EQ(shape({1000}).row, 0u);
  EXPECT_EQ(shape({}).row, 0u);
  EXPECT_EQ(shape({2, 3, 4, 5}).plane, 20u);         // the fastest two
  EXPECT_EQ(shape({3, uint64_t{1} << 21}).row, 0u);  // longer than any chunk
  EXPECT_EQ(shape({3, 2048, 1024}).plane, 0u);
  EXPECT_EQ(shape({3, 2048, 1024}).row, 1024u);
}

// Edge shapes through the API: a dim of 1, a row longer than a chunk, n not a
// multiple of the chunk, a plane longer than a chunk. The bound holds and the
// codes are the 1-D codec's.
TEST(DenseNd, EdgeShapes) {
  zt::Rng r(17);
  const std::vector<std::vector<uint64_t>> shapes = {
      {1, 40, 333},  {7, 1, 999}, {13, 333, 1},    {2, 5000}, {7, 333},
      {3, 100, 100}, {1, 1, 77},  {5, 4, 3, 2, 9}, {1},       {3000, 2}};
  for (const auto& dims : shapes) {
    size_t n = 1;
    for (uint64_t d : dims) n *= d;
    std::vector<float> x(n);
    const uint64_t row = dims.back();
    for (size_t i = 0; i < n; ++i)
      x[i] = static_cast<float>(std::sin(0.05 * static_cast<double>(i % row)) +
                                0.3 * std::cos(0.02 * index_of(i, row)) + r.uniform(-1e-3, 1e-3));
    for (uint32_t cs : {1024u, 0u}) {
      std::string what = "dims";
      for (uint64_t d : dims) what += " " + std::to_string(d);
      what += " cs " + std::to_string(cs);
      const auto z = dense(x, 1e-3, dims, cs);
      const zcoll_info info = zt::inspect(z);
      if (cs) {
        EXPECT_EQ(info.chunk_size, cs) << what;  // the caller's chunk size wins
      }
      const std::vector<float> y = zt::decompress<float>(z, n);
      EXPECT_EQ(zt::count_violations(x, y, info.error_bound, what), 0u);
      expect_same_codes(x, y, zt::decompress<float>(dense(x, 1e-3, no_dims(), info.chunk_size), n),
                        what, z);
      EXPECT_EQ(dense(x, 1e-3, dims, cs, 4), z) << what << ": 4 threads";
    }
  }
}

// float64 and float16 with dims, and the accumulating decoder: the same values
// as the 1-D codec's (x' added in T).
TEST(DenseNd, OtherTypesAndAccumulate) {
  const uint64_t dims[3] = {6, 20, 50};
  const size_t n = 6 * 20 * 50;
  std::vector<double> xd(n);
  std::vector<uint16_t> xh(n);
  for (size_t i = 0; i < n; ++i) {
    xd[i] = std::sin(0.3 * static_cast<double>(i % 50)) +  // separable: n-D Lorenzo pays
            std::cos(0.4 * index_of(i % 1000, 50)) + 0.2 * index_of(i, 1000);
    xh[i] = zcoll::hd::float_to_f16(static_cast<float>(xd[i]));
  }
  auto run = [&](zcoll_dtype dt, const void* x, bool with_dims, uint32_t cs) {
    zcoll_params p;
    zcoll_params_init(&p);
    p.eb_mode = ZCOLL_EB_ABS, p.error_bound = 1e-3, p.codec = ZCOLL_CODEC_DENSE, p.chunk_size = cs;
    if (with_dims) p.ndims = 3, std::memcpy(p.dims, dims, sizeof dims);
    std::vector<uint8_t> z(zcoll_compress_bound(n, dt));
    size_t size = 0;
    EXPECT_EQ(zcoll_compress(&p, dt, x, n, z.data(), z.size(), &size, 2), ZCOLL_SUCCESS)
        << zcoll_last_error();
    z.resize(size);
    return z;
  };
  for (zcoll_dtype dt : {ZCOLL_FLOAT64, ZCOLL_FLOAT16}) {
    const void* x = dt == ZCOLL_FLOAT64 ? static_cast<const void*>(xd.data()) : xh.data();
    const size_t vb = zcoll_dtype_size(dt);
    const auto nd = run(dt, x, true, 1024), flat = run(dt, x, false, 1024);
    EXPECT_LT(nd.size(), flat.size()) << dt;
    const std::vector<int> ids = zt::dense_predictors(nd);
    EXPECT_GT(std::count_if(ids.begin(), ids.end(), [](int id) { return id >= 3; }), 0) << dt;
    std::vector<uint8_t> a(n * vb), b(n * vb), acc(n * vb, 0);
    ASSERT_EQ(zcoll_decompress(nd.data(), nd.size(), a.data(), n, 1), ZCOLL_SUCCESS);
    ASSERT_EQ(zcoll_decompress(flat.data(), flat.size(), b.data(), n, 1), ZCOLL_SUCCESS);
    EXPECT_EQ(a, b) << dt;
    ASSERT_EQ(zcoll_decompress_accumulate(nd.data(), nd.size(), acc.data(), n, 1), ZCOLL_SUCCESS);
    EXPECT_EQ(acc, a) << dt << ": accumulate onto +0";
  }
}

// A stream whose first chunk uses the 3-D predictor (and its offset).
std::vector<uint8_t> nd_stream(size_t* at, std::vector<float>* xs) {
  const std::vector<uint64_t> dims = {8, 20, 30};
  std::vector<float> x(8 * 20 * 30);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(0.01 * static_cast<double>((i % 30) * (i % 30)) +
                              0.02 * static_cast<double>((i / 30 % 20) * (i / 30 % 20)) +
                              0.5 * index_of(i, 600));
  auto z = dense(x, 1e-3, dims, 4800);
  *at = zcoll_header_size(x.size(), 4800);
  *xs = x;
  return z;
}

TEST(DenseNd, CorruptStridesAreCorruptOrDecodeInBounds) {
  size_t at = 0;
  std::vector<float> x;
  const std::vector<uint8_t> z = nd_stream(&at, &x);
  ASSERT_EQ(z[at], zcoll::kChunkDense);
  ASSERT_EQ(z[at + 1], zcoll::kDenseLorenzo3D);
  EXPECT_EQ(zcoll::load_u32(&z[at + 8]), 30u);
  EXPECT_EQ(zcoll::load_u32(&z[at + 12]), 600u);
  std::vector<float> y(x.size());
  auto decode = [&](const std::vector<uint8_t>& c) {
    return zcoll_decompress(c.data(), c.size(), y.data(), y.size(), 1);
  };
  ASSERT_EQ(decode(z), ZCOLL_SUCCESS);
  auto strides = [&](uint32_t row, uint32_t plane) {
    std::vector<uint8_t> c = z;
    zcoll::store_u32(&c[at + 8], row);
    zcoll::store_u32(&c[at + 12], plane);
    return decode(c);
  };
  EXPECT_EQ(strides(0, 600), ZCOLL_ERR_CORRUPT);               // row 0
  EXPECT_EQ(strides((1u << 20) + 1, 600), ZCOLL_ERR_CORRUPT);  // row above any chunk
  EXPECT_EQ(strides(0xFFFFFFFFu, 600), ZCOLL_ERR_CORRUPT);     // row + 1 would wrap
  EXPECT_EQ(strides(30, 30), ZCOLL_ERR_CORRUPT);               // plane <= row
  EXPECT_EQ(strides(30, (1u << 20) + 1), ZCOLL_ERR_CORRUPT);   // plane above any chunk
  EXPECT_EQ(strides(30, 0xFFFFFFFFu), ZCOLL_ERR_CORRUPT);
  // in range but wrong (and longer than the chunk): other values, never a read outside it
  for (uint32_t row : {1u, 29u, 4799u, 4800u, 100000u, 1u << 20})
    for (uint32_t plane : {row + 1, 4800u, 4801u, 1u << 20})
      if (plane > row && plane <= (1u << 20)) {
        EXPECT_EQ(strides(row, plane), ZCOLL_SUCCESS) << row << " " << plane;
      }
  // unknown predictor ids; an id changed to another valid one shifts the layout:
  // CORRUPT or a decode, never a crash
  for (uint8_t id : {0, 5, 255}) {
    std::vector<uint8_t> c = z;
    c[at + 1] = id;
    EXPECT_EQ(decode(c), ZCOLL_ERR_CORRUPT) << int(id);
  }
  for (uint8_t id : {1, 2, 3}) {
    std::vector<uint8_t> c = z;
    c[at + 1] = id;
    const zcoll_status s = decode(c);
    EXPECT_TRUE(s == ZCOLL_SUCCESS || s == ZCOLL_ERR_CORRUPT) << int(id);
  }
  // a chunk cut short of its strides
  EXPECT_FALSE(zcoll::validate_dense_chunk(&z[at], 12));  // the row, not the plane
  // every byte of the chunk flipped: a status, no read outside (sanitizer build)
  const size_t end = at + zcoll::load_u32(&z[48]);
  for (size_t i = at; i < end; ++i) {
    std::vector<uint8_t> c = z;
    c[i] ^= 0xA5;
    const zcoll_status s = decode(c);
    EXPECT_TRUE(s == ZCOLL_SUCCESS || s == ZCOLL_ERR_CORRUPT) << i;
  }
}

TEST(DenseNd, ApiErrors) {
  std::vector<float> x(600, 1.0f);
  zcoll_params p;
  zcoll_params_init(&p);
  p.codec = ZCOLL_CODEC_DENSE;
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t size = 0;
  auto run = [&]() {
    return zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), out.size(), &size, 1);
  };
  p.ndims = 2, p.dims[0] = 20, p.dims[1] = 31;  // 620 != 600
  EXPECT_EQ(run(), ZCOLL_ERR_INVALID_ARG);
  EXPECT_NE(std::strstr(zcoll_last_error(), "dims 20x31 hold 620 values, not n = 600"), nullptr)
      << zcoll_last_error();
  p.codec = ZCOLL_CODEC_FAST;  // the fast codec checks them too
  EXPECT_EQ(run(), ZCOLL_ERR_INVALID_ARG);
  p.codec = ZCOLL_CODEC_DENSE;
  p.dims[1] = 0;
  EXPECT_EQ(run(), ZCOLL_ERR_INVALID_ARG);
  p.ndims = 2, p.dims[0] = uint64_t{1} << 40, p.dims[1] = uint64_t{1} << 40;  // overflows
  EXPECT_EQ(run(), ZCOLL_ERR_INVALID_ARG);
  p.ndims = ZCOLL_MAX_DIMS + 1;
  EXPECT_EQ(run(), ZCOLL_ERR_INVALID_ARG);
  p.ndims = 2, p.dims[0] = 20, p.dims[1] = 30;
  EXPECT_EQ(run(), ZCOLL_SUCCESS) << zcoll_last_error();
  // the chunk-range API checks them as well
  size_t w = 0;
  std::vector<uint32_t> sizes(1);
  p.eb_mode = ZCOLL_EB_ABS;
  p.chunk_size = 1024;
  p.dims[1] = 31;
  EXPECT_EQ(zcoll_compress_chunks(&p, ZCOLL_FLOAT32, x.data(), x.size(), 0, 1, out.data(),
                                  out.size(), &w, sizes.data(), 1),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(
      zcoll_compress_finish(&p, ZCOLL_FLOAT32, x.size(), sizes.data(), out.data(), out.size()),
      ZCOLL_ERR_INVALID_ARG);
}

// The fast codec takes dims and ignores them (the same bytes); a 1.2 caller's
// struct (up to codec) gets 1-D prediction; the chunk-size policy applies to
// the dense codec only.
TEST(DenseNd, FastCodecAndOlderStructs) {
  std::vector<float> x(300 * 400);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(std::sin(0.01 * static_cast<double>(i % 400)) +
                              std::cos(0.03 * index_of(i, 400)));
  const std::vector<uint64_t> dims = {300, 400};
  const auto fast = dense(x, 1e-3, dims, 0, 1, ZCOLL_CODEC_FAST);
  EXPECT_EQ(fast, dense(x, 1e-3, no_dims(), 0, 1, ZCOLL_CODEC_FAST));
  EXPECT_EQ(zt::inspect(fast).chunk_size, ZCOLL_DEFAULT_CHUNK_SIZE);
  const auto nd = dense(x, 1e-3, dims);
  EXPECT_EQ(zt::inspect(nd).chunk_size, 262144u);
  EXPECT_LT(nd.size(), dense(x, 1e-3, no_dims(), 262144).size());

  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS, p.error_bound = 1e-3, p.codec = ZCOLL_CODEC_DENSE;
  p.ndims = 2, p.dims[0] = 300, p.dims[1] = 400;
  p.struct_size = offsetof(zcoll_params, dims);  // a 1.2 struct: no dims
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t size = 0;
  ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), out.size(), &size, 1),
            ZCOLL_SUCCESS);
  out.resize(size);
  EXPECT_EQ(out, dense(x, 1e-3, no_dims()));
}

// With dims and an explicit chunk size, the chunk-range API writes the stream
// zcoll_compress writes.
TEST(DenseNd, ChunkRangeApiSameStream) {
  size_t at = 0;
  std::vector<float> x;
  nd_stream(&at, &x);
  const std::vector<uint64_t> dims = {8, 20, 30};
  const uint32_t cs = 1024;
  const auto z = dense(x, 1e-3, dims, cs);
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_ABS, p.error_bound = 1e-3, p.chunk_size = cs, p.codec = ZCOLL_CODEC_DENSE;
  p.ndims = 3, p.dims[0] = 8, p.dims[1] = 20, p.dims[2] = 30;
  EXPECT_EQ(zt::compress_in_ranges(p, x, 1), z);
}

}  // namespace
