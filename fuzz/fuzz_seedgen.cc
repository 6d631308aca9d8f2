// fuzz_seedgen.cc — writes the seed corpora of the fuzz targets, so that
// fuzzing starts from valid streams and meaningful round-trip inputs:
//   fuzz_seedgen DIR   ->  DIR/fuzz_decompress/*, DIR/fuzz_header/*, DIR/fuzz_roundtrip/*
// (the directories must exist). Deterministic: the same files on every run.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "codec/value_types.h"  // internal: float -> bf16/f16 narrowing
#include "zcoll.h"

namespace {

std::string g_dir;
int g_count = 0;

void write_file(const std::string& target, const std::string& name, const std::vector<uint8_t>& b) {
  const std::string path = g_dir + "/" + target + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::exit(1);
  }
  if (!b.empty() && std::fwrite(b.data(), 1, b.size(), f) != b.size()) std::exit(1);
  std::fclose(f);
  ++g_count;
}

std::vector<uint8_t> compress_values(zcoll_dtype dt, const void* x, size_t n, zcoll_eb_mode mode,
                                     double eb, uint32_t cs, zcoll_codec codec = ZCOLL_CODEC_FAST,
                                     const std::vector<uint64_t>& dims = {}) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.codec = codec;
  p.ndims = static_cast<uint32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) p.dims[d] = dims[d];
  p.eb_mode = mode;
  p.error_bound = eb;
  p.chunk_size = cs;
  std::vector<uint8_t> z(zcoll_compress_bound(n, dt));
  size_t zs = 0;
  if (zcoll_compress(&p, dt, x, n, z.data(), z.size(), &zs, 1) != ZCOLL_SUCCESS) {
    std::fprintf(stderr, "seedgen: compression failed: %s\n", zcoll_last_error());
    std::exit(1);
  }
  z.resize(zs);
  return z;
}

template <typename T>
std::vector<uint8_t> compress(const std::vector<T>& x, zcoll_eb_mode mode, double eb, uint32_t cs,
                              zcoll_codec codec = ZCOLL_CODEC_FAST,
                              const std::vector<uint64_t>& dims = {}) {
  const zcoll_dtype dt = sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
  return compress_values(dt, x.data(), x.size(), mode, eb, cs, codec, dims);
}

// the float values narrowed to a 16-bit type (bfloat16 or IEEE half), then compressed
std::vector<uint8_t> compress16(zcoll_dtype dt, const std::vector<float>& x, zcoll_eb_mode mode,
                                double eb, uint32_t cs) {
  std::vector<uint16_t> h(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    h[i] = dt == ZCOLL_BFLOAT16 ? zcoll::hd::float_to_bf16(x[i]) : zcoll::hd::float_to_f16(x[i]);
  return compress_values(dt, h.data(), h.size(), mode, eb, cs);
}

// a stream seed for the decoder targets: control byte + stream
void stream_seed(const std::string& name, const std::vector<uint8_t>& z) {
  for (uint8_t ctl : {uint8_t{0}, uint8_t{0x2B}}) {
    std::vector<uint8_t> b;
    b.push_back(ctl);
    b.insert(b.end(), z.begin(), z.end());
    write_file("fuzz_decompress", name + "_" + std::to_string(ctl), b);
    write_file("fuzz_header", name + "_" + std::to_string(ctl), b);
  }
}

template <typename T>
void roundtrip_seed(const std::string& name, const std::vector<T>& x, uint8_t prm, uint8_t rep) {
  std::vector<uint8_t> b = {static_cast<uint8_t>(prm | (sizeof(T) == 8 ? 1 : 0)), rep};
  const size_t at = b.size();
  b.resize(at + x.size() * sizeof(T));
  std::memcpy(b.data() + at, x.data(), x.size() * sizeof(T));
  write_file("fuzz_roundtrip", name, b);
}

void roundtrip_seed16(const std::string& name, const std::vector<uint16_t>& x, uint8_t prm,
                      uint8_t rep) {
  std::vector<uint8_t> b = {prm, rep};
  const size_t at = b.size();
  b.resize(at + x.size() * 2);
  std::memcpy(b.data() + at, x.data(), x.size() * 2);
  write_file("fuzz_roundtrip", name, b);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  g_dir = argv[1];
  const float fnan = std::numeric_limits<float>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();

  // ---- streams -------------------------------------------------------------
  std::vector<float> smooth(2100), five = {1.0f, 1.2f, 2.0f, 2.9f, 2.1f};
  for (size_t i = 0; i < smooth.size(); ++i) smooth[i] = static_cast<float>(std::sin(0.01 * i));
  std::vector<float> mixed = smooth;
  mixed[1500] = fnan;  // chunk 1 of 3 raw
  std::vector<double> dsmooth(1100), noisy(300);
  for (size_t i = 0; i < dsmooth.size(); ++i)
    dsmooth[i] = 100 * std::cos(0.003 * i) + 1e-3 * (i % 7);
  uint32_t s = 12345;
  for (auto& v : noisy) {
    s = s * 1664525u + 1013904223u;
    v = static_cast<double>(s >> 8) * 1e-3;
  }
  noisy[7] = inf;
  stream_seed("empty_f32", compress(std::vector<float>{}, ZCOLL_EB_ABS, 0.1, 1024));
  stream_seed("five_f32", compress(five, ZCOLL_EB_ABS, 0.5, 1024));
  stream_seed("raw3_f32", compress(std::vector<float>{1.0f, fnan, 2.0f}, ZCOLL_EB_ABS, 0.5, 1024));
  stream_seed("smooth_f32", compress(smooth, ZCOLL_EB_ABS, 1e-3, 1024));
  stream_seed("mixed_f32", compress(mixed, ZCOLL_EB_REL, 1e-4, 1024));
  stream_seed("smooth_f64", compress(dsmooth, ZCOLL_EB_ABS, 1e-6, 1056));
  stream_seed("noisy_f64_raw", compress(noisy, ZCOLL_EB_ABS, 1e-9, 1024));
  stream_seed("wide_codes_f32", compress(smooth, ZCOLL_EB_ABS, 1e-7, 1024));
  stream_seed("smooth_bf16", compress16(ZCOLL_BFLOAT16, smooth, ZCOLL_EB_ABS, 1e-2, 1024));
  stream_seed("mixed_f16", compress16(ZCOLL_FLOAT16, mixed, ZCOLL_EB_REL, 1e-3, 1024));
  // the dense codec (format 1.3: kind 2 chunks; raw ones among them; extra bits)
  const zcoll_codec dense = ZCOLL_CODEC_DENSE;
  stream_seed("smooth_f32_dense", compress(smooth, ZCOLL_EB_ABS, 1e-3, 1024, dense));
  stream_seed("mixed_f32_dense", compress(mixed, ZCOLL_EB_REL, 1e-4, 1024, dense));
  stream_seed("smooth_f64_dense", compress(dsmooth, ZCOLL_EB_ABS, 1e-6, 1056, dense));
  stream_seed("wide_codes_f32_dense", compress(smooth, ZCOLL_EB_ABS, 1e-7, 1024, dense));
  {
    // with dims: 2-D and 3-D Lorenzo chunks (predictors 3 and 4, their strides); a
    // separable field, where they beat order 1 and 2
    std::vector<float> field(2 * 6 * 7 * 30);
    for (size_t i = 0; i < field.size(); ++i) {
      const size_t x = i % 30, y = i / 30 % 7, z = i / 210;
      field[i] = static_cast<float>(std::sin(0.2 * static_cast<double>(x)) +
                                    std::cos(1.3 * static_cast<double>(y)) +
                                    0.5 * static_cast<double>(z));
    }
    stream_seed("field2d_f32_dense", compress(field, ZCOLL_EB_ABS, 1e-3, 1024, dense, {84, 30}));
    stream_seed("field3d_f32_dense", compress(field, ZCOLL_EB_ABS, 1e-3, 1024, dense, {12, 7, 30}));
  }
  {
    // with dims: interpolation chunks (predictor 5, its mode and strides) on a
    // smooth field that is not separable, in 2 dims (cubic), 3 dims (linear)
    // and along a 1-D shape (linear and cubic chunks)
    std::vector<float> wave(4 * 16 * 40);
    for (size_t i = 0; i < wave.size(); ++i) {
      const size_t x = i % 40, y = i / 40 % 16;
      const double xd = static_cast<double>(x), yd = static_cast<double>(y);
      wave[i] = static_cast<float>(std::sin(0.11 * xd + 0.07 * yd) * std::cos(0.05 * xd * yd / 9));
    }
    stream_seed("interp2d_f32_dense", compress(wave, ZCOLL_EB_ABS, 1e-2, 1024, dense, {64, 40}));
    stream_seed("interp3d_f32_dense", compress(wave, ZCOLL_EB_ABS, 1e-3, 2560, dense, {4, 16, 40}));
    stream_seed("interp1d_f32_dense", compress(wave, ZCOLL_EB_ABS, 1e-1, 1024, dense, {2560}));
  }
  {
    // a homomorphic sum (divisor and terms other than 1, wider blocks)
    std::vector<uint8_t> a = compress(smooth, ZCOLL_EB_ABS, 1e-3, 1024);
    std::vector<float> neg = smooth;
    for (auto& v : neg) v = -2.5f * v;
    std::vector<uint8_t> b = compress(neg, ZCOLL_EB_ABS, 1e-3, 1024);
    std::vector<uint8_t> sum(zcoll_compress_bound(smooth.size(), ZCOLL_FLOAT32));
    size_t ss = 0;
    if (zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), sum.data(), sum.size(), &ss, nullptr,
                      1) == ZCOLL_SUCCESS) {
      sum.resize(ss);
      zcoll_hom_set_divisor(sum.data(), sum.size(), 2);
      stream_seed("hom_sum_f32", sum);
    }
  }

  // ---- round-trip inputs ----------------------------------------------------
  std::vector<float> short_smooth(smooth.begin(), smooth.begin() + 600);
  roundtrip_seed("smooth_abs", short_smooth, 0x04, 0);
  roundtrip_seed("smooth_rel_rep", short_smooth, 0x02 | 0x08 | 0x20, 3);
  roundtrip_seed("five_abs", five, 0x0C, 0);
  roundtrip_seed("nan_inf", std::vector<float>{1, fnan, -INFINITY, 3e38f, 1e-40f, -0.0f}, 0x04, 1);
  roundtrip_seed("f64_noise", noisy, 0x08 | 0x40, 2);
  roundtrip_seed("f64_rel", std::vector<double>(dsmooth.begin(), dsmooth.begin() + 400),
                 0x02 | 0x10, 4);
  std::vector<float> steps(512);
  for (size_t i = 0; i < steps.size(); ++i) steps[i] = static_cast<float>((i / 37) % 5) * 0.75f;
  roundtrip_seed("steps_chunk1056", steps, 0x40 | 0x0C, 7);
  // the dense codec (byte 1 bit 5)
  roundtrip_seed("smooth_abs_dense", short_smooth, 0x04, 0x20);
  roundtrip_seed("smooth_abs_dense_2d", short_smooth, 0x04, 0x20 | 0x40 | 7);  // dims 8 x n
  roundtrip_seed("smooth_abs_dense_3d", short_smooth, 0x04, 0x20 | 0x80 | 3);
  roundtrip_seed("nan_inf_dense", std::vector<float>{1, fnan, -INFINITY, 3e38f, 1e-40f, -0.0f},
                 0x04, 0x21);
  roundtrip_seed("f64_rel_dense", std::vector<double>(dsmooth.begin(), dsmooth.begin() + 400),
                 0x02 | 0x10, 0x24);
  {
    // 16-bit round-trip inputs (byte 1 bit 3; bit 4: float16)
    std::vector<uint16_t> bf(600), hf(600);
    for (size_t i = 0; i < bf.size(); ++i) {
      bf[i] = zcoll::hd::float_to_bf16(smooth[i] * 30.0f);
      hf[i] = zcoll::hd::float_to_f16(smooth[i] * 30.0f);
    }
    hf[5] = 0x7C00;   // +Inf
    hf[9] = 0x8000;   // -0.0
    bf[11] = 0x7FC0;  // NaN
    roundtrip_seed16("smooth_bf16_abs", bf, 0x04, 8);
    roundtrip_seed16("smooth_f16_rel", hf, 0x02 | 0x08 | 0x20, 8 | 16 | 2);
  }
  std::printf("fuzz_seedgen: wrote %d seed files under %s\n", g_count, g_dir.c_str());
  return 0;
}
