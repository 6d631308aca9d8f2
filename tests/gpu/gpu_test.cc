// gpu_test.cc — libzcoll_cuda against the CPU library: the GPU must write and read
// exactly the bytes and values of zcoll.h (format v1). Every test skips, with the
// reason printed, when cudaGetDeviceCount reports no device. The same program
// runs on zcoll's CUDA emulation (zcoll_gpu_tests_emu, label gpu_emu).
//
// Data: every .f32 file of data/, and every .f32 / .f64 file (the type from the
// suffix) of the directories listed in ZCOLL_GPU_TEST_DATA (colon-separated).
// ZCOLL_GPU_TEST_SAMPLE=N takes N values from the middle of each file (0: the
// whole file); the default is the whole file on a GPU and 32768 values on the
// emulation, whose kernels run about a million times slower (still several chunks
// at each chunk size the tests use below the sample: 2 of 16384 values, 32 of 1024).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "zcoll.h"
#include "zcoll_cuda.h"
#if defined(ZCOLL_CUDA_EMU)
#include <functional>

#include "cuda_emu/emu.h"
#endif

namespace {

#define REQUIRE_GPU()                                                                       \
  do {                                                                                      \
    if (zcoll_cuda_device_count() == 0)                                                     \
      GTEST_SKIP() << "no CUDA device (cudaGetDeviceCount reports none): GPU test skipped"; \
  } while (0)

#define CUDA_OK(x) ASSERT_EQ((x), cudaSuccess) << #x

// A device buffer.
struct Dev {
  void* p = nullptr;
  size_t bytes = 0;
  explicit Dev(size_t n) : bytes(n) {
    if (cudaMalloc(&p, n ? n : 1) != cudaSuccess) p = nullptr;
  }
  ~Dev() {
    if (p) cudaFree(p);
  }
  Dev(const Dev&) = delete;
  Dev& operator=(const Dev&) = delete;
  template <typename T = void>
  T* get() const {
    return static_cast<T*>(p);
  }
  uint8_t* u8() const { return static_cast<uint8_t*>(p); }
};

void upload(void* d, const void* h, size_t n) {
  ASSERT_EQ(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice), cudaSuccess);
}
std::vector<uint8_t> download(const void* d, size_t n) {
  std::vector<uint8_t> h(n);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n, cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

struct Gpu {
  Dev result{sizeof(zcoll_cuda_result)};
  zcoll_cuda_result* r() const { return result.get<zcoll_cuda_result>(); }
  // the status of the last operation, as the device reported it
  zcoll_status finish(zcoll_status launched, size_t* size) {
    if (launched != ZCOLL_SUCCESS) return launched;
    return zcoll_cuda_result_get(r(), size, nullptr);
  }
};

std::string data_dir() { return ZCOLL_GPU_TEST_DATA_DIR; }

// The directories named by ZCOLL_GPU_TEST_DATA (colon-separated).
std::vector<std::filesystem::path> extra_dirs() {
  std::vector<std::filesystem::path> v;
  const char* e = std::getenv("ZCOLL_GPU_TEST_DATA");
  std::string list = e ? e : "";
  size_t i = 0;
  while (i <= list.size()) {
    size_t j = list.find(':', i);
    if (j == std::string::npos) j = list.size();
    if (j > i) v.emplace_back(list.substr(i, j - i));
    i = j + 1;
  }
  return v;
}

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir, bool f64_too) {
  std::vector<std::filesystem::path> v;
  for (auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".f32" || (f64_too && e.path().extension() == ".f64"))
      v.push_back(e.path());
  std::sort(v.begin(), v.end());
  return v;
}

std::vector<std::filesystem::path> data_files() { return files_in(data_dir(), false); }

// Values per file the data tests take (0: all), from the middle of the file.
size_t sample_values() {
  if (const char* e = std::getenv("ZCOLL_GPU_TEST_SAMPLE")) return std::strtoull(e, nullptr, 10);
#if defined(ZCOLL_CUDA_EMU)
  return size_t{1} << 15;
#else
  return 0;
#endif
}

template <typename T>
std::vector<T> read_values(const std::filesystem::path& p, size_t sample) {
  const size_t all = std::filesystem::file_size(p) / sizeof(T);
  const size_t n = sample && sample < all ? sample : all;
  std::ifstream f(p, std::ios::binary);
  f.seekg(static_cast<std::streamoff>((all - n) / 2 * sizeof(T)));
  std::vector<T> v(n);
  f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(n * sizeof(T)));
  EXPECT_TRUE(f.good()) << "cannot read " << p;
  return v;
}
std::vector<float> read_f32(const std::filesystem::path& p) {
  return read_values<float>(p, sample_values());
}

template <typename T>
constexpr zcoll_dtype dtype_of() {
  return sizeof(T) == 4 ? ZCOLL_FLOAT32 : ZCOLL_FLOAT64;
}

template <typename T>
std::vector<uint8_t> cpu_compress(const std::vector<T>& x, size_t n, const zcoll_params& p) {
  std::vector<uint8_t> out(zcoll_compress_bound(n, dtype_of<T>()));
  size_t size = 0;
  EXPECT_EQ(zcoll_compress(&p, dtype_of<T>(), x.data(), n, out.data(), out.size(), &size, 1),
            ZCOLL_SUCCESS)
      << zcoll_last_error();
  out.resize(size);
  return out;
}

template <typename T>
std::vector<uint8_t> gpu_compress(const std::vector<T>& x, size_t n, const zcoll_params& p,
                                  zcoll_status* status = nullptr) {
  Gpu g;
  Dev src(n * sizeof(T));
  upload(src.p, x.data(), n * sizeof(T));
  const size_t cap = zcoll_compress_bound(n, dtype_of<T>());
  Dev dst(cap);
  size_t size = 0;
  const zcoll_status s =
      g.finish(zcoll_cuda_compress(&p, dtype_of<T>(), src.p, n, dst.p, cap, g.r(), nullptr), &size);
  if (status)
    *status = s;
  else
    EXPECT_EQ(s, ZCOLL_SUCCESS) << zcoll_last_error();
  if (s != ZCOLL_SUCCESS) return {};
  return download(dst.p, size);
}

// Decompress a stream on the GPU (the stream placed `shift` bytes into its buffer).
template <typename T>
zcoll_status gpu_decompress(const std::vector<uint8_t>& s, std::vector<T>* out, size_t n,
                            bool accumulate = false, size_t shift = 0) {
  Gpu g;
  Dev src(s.size() + shift);
  upload(src.u8() + shift, s.data(), s.size());
  Dev dst(n * sizeof(T));
  if (accumulate) upload(dst.p, out->data(), n * sizeof(T));
  size_t got = 0;
  const zcoll_status st = g.finish(
      accumulate
          ? zcoll_cuda_decompress_accumulate(src.u8() + shift, s.size(), dst.p, n, g.r(), nullptr)
          : zcoll_cuda_decompress(src.u8() + shift, s.size(), dst.p, n, g.r(), nullptr),
      &got);
  if (st != ZCOLL_SUCCESS) return st;
  EXPECT_EQ(got, n);
  out->resize(n);
  auto h = download(dst.p, n * sizeof(T));
  if (n) std::memcpy(out->data(), h.data(), h.size());
  return st;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

zcoll_params params(zcoll_eb_mode mode, double eb, uint32_t cs) {
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = mode;
  p.error_bound = eb;
  p.chunk_size = cs;
  return p;
}

template <typename T, typename U>
std::vector<T> as(const std::vector<U>& x) {
  return std::vector<T>(x.begin(), x.end());
}

// Compress with both, compare bytes; decompress both ways and compare values.
template <typename T>
void check_identical(const std::vector<T>& x, size_t n, const zcoll_params& p,
                     const std::string& what) {
  SCOPED_TRACE(what);
  const auto cpu = cpu_compress(x, n, p);
  const auto gpu = gpu_compress(x, n, p);
  ASSERT_EQ(gpu.size(), cpu.size());
  ASSERT_TRUE(gpu == cpu) << "GPU stream differs from the CPU stream";
  // CPU stream decoded on the GPU == CPU decode, bit for bit
  std::vector<T> ref(n), got;
  ASSERT_EQ(zcoll_decompress(cpu.data(), cpu.size(), ref.data(), n, 1), ZCOLL_SUCCESS);
  ASSERT_EQ(gpu_decompress<T>(cpu, &got, n), ZCOLL_SUCCESS) << zcoll_last_error();
  ASSERT_TRUE(same_bits(got, ref)) << "GPU decode differs from the CPU decode";
}

class GpuCodec : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_GPU(); }
};

// Every bound, chunk size and length of one file's values (f32 and f64: both;
// else the file's own type).
template <typename T>
void check_file(const std::string& name, const std::vector<T>& x, bool f64_too) {
  for (zcoll_eb_mode mode : {ZCOLL_EB_ABS, ZCOLL_EB_REL})
    for (double eb : {1e-2, 1e-3, 1e-4})
      for (uint32_t cs : {1024u, 16384u, 262144u})
        for (size_t n : {x.size(), x.size() - 1, size_t{1025}}) {
          if (n > x.size()) continue;
          const auto p = params(mode, eb, cs);
          const std::string what = name + (mode == ZCOLL_EB_ABS ? " abs " : " rel ") +
                                   std::to_string(eb) + " cs " + std::to_string(cs) + " n " +
                                   std::to_string(n);
          check_identical<T>(x, n, p, what + (sizeof(T) == 4 ? " f32" : " f64"));
          if (f64_too) check_identical<double>(as<double>(x), n, p, what + " f64");
          if (::testing::Test::HasFatalFailure()) return;
        }
}

TEST_F(GpuCodec, BytesIdenticalOnEveryDataFile) {
  const auto files = data_files();
  ASSERT_FALSE(files.empty()) << "no .f32 files in " << data_dir();
  const size_t sample = sample_values();
  for (const auto& f : files) {
    check_file<float>(f.filename().string(), read_values<float>(f, sample), true);
    if (HasFatalFailure()) return;
  }
  // ZCOLL_GPU_TEST_DATA: .f32 as f32 and f64, .f64 as f64
  for (const auto& dir : extra_dirs()) {
    const auto more = files_in(dir, true);
    EXPECT_FALSE(more.empty()) << "ZCOLL_GPU_TEST_DATA: no .f32 or .f64 files in " << dir;
    for (const auto& f : more) {
      const std::string name = f.string();
      std::printf("[ data     ] %s\n", name.c_str());
      if (f.extension() == ".f64")
        check_file<double>(name, read_values<double>(f, sample), false);
      else
        check_file<float>(name, read_values<float>(f, sample), true);
      if (HasFatalFailure()) return;
    }
  }
}

// Smooth data with specials: a NaN chunk, +-Inf, a huge value (code too large),
// denormals, -0.0; tiny and odd lengths, the empty stream.
template <typename T>
std::vector<T> special_data(size_t n, uint32_t seed) {
  std::mt19937 r(seed);
  std::normal_distribution<double> g(0, 0.01);
  std::vector<T> x(n);
  double v = 0;
  for (size_t i = 0; i < n; ++i)
    x[i] = static_cast<T>(v += g(r)) + static_cast<T>(std::sin(i * 1e-3));
  if (n > 5000) {
    x[1500] = std::numeric_limits<T>::quiet_NaN();
    x[2100] = std::numeric_limits<T>::infinity();
    x[3000] = -std::numeric_limits<T>::infinity();
    x[4000] = std::numeric_limits<T>::max() / 2;
    x[4500] = std::numeric_limits<T>::denorm_min();
    x[4600] = static_cast<T>(-0.0);
  }
  return x;
}

TEST_F(GpuCodec, SpecialValuesAndLengths) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{31}, size_t{33}, size_t{1023},
                   size_t{1024}, size_t{1025}, size_t{70001}})
    for (uint32_t cs : {1024u, 4096u})
      for (double eb : {1e-1, 1e-4, 1e-9}) {
        const std::string what = "n " + std::to_string(n) + " cs " + std::to_string(cs);
        check_identical<float>(special_data<float>(n, 1), n, params(ZCOLL_EB_ABS, eb, cs), what);
        check_identical<double>(special_data<double>(n, 2), n, params(ZCOLL_EB_ABS, eb, cs), what);
        check_identical<float>(special_data<float>(n, 3), n, params(ZCOLL_EB_REL, eb, cs), what);
        check_identical<double>(special_data<double>(n, 4), n, params(ZCOLL_EB_REL, eb, cs), what);
      }
}

TEST_F(GpuCodec, RoundTripsBothWays) {
  const auto x = read_f32(data_files().front());
  const size_t n = x.size();
  const auto p = params(ZCOLL_EB_REL, 1e-3, 0);
  // GPU-compressed, CPU-decompressed: within the bound
  const auto gs = gpu_compress(x, n, p);
  std::vector<float> y(n);
  ASSERT_EQ(zcoll_decompress(gs.data(), gs.size(), y.data(), n, 1), ZCOLL_SUCCESS);
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ASSERT_EQ(zcoll_inspect(gs.data(), gs.size(), &info), ZCOLL_SUCCESS);
  for (size_t i = 0; i < n; ++i)
    ASSERT_LE(std::fabs(double(x[i]) - double(y[i])), info.error_bound);
  // CPU-compressed, GPU-decompressed with accumulate: same values as the CPU's
  const auto cs = cpu_compress(x, n, p);
  std::vector<float> acc_cpu(x), acc_gpu(x);
  ASSERT_EQ(zcoll_decompress_accumulate(cs.data(), cs.size(), acc_cpu.data(), n, 1), ZCOLL_SUCCESS);
  ASSERT_EQ(gpu_decompress<float>(cs, &acc_gpu, n, true), ZCOLL_SUCCESS);
  ASSERT_TRUE(same_bits(acc_cpu, acc_gpu));
}

TEST_F(GpuCodec, MisalignedStreamStarts) {
  const auto x = special_data<double>(50000, 7);
  const auto s = cpu_compress(x, x.size(), params(ZCOLL_EB_ABS, 1e-3, 1024));
  std::vector<double> ref(x.size());
  ASSERT_EQ(zcoll_decompress(s.data(), s.size(), ref.data(), ref.size(), 1), ZCOLL_SUCCESS);
  for (size_t shift : {1, 3, 4, 5}) {
    std::vector<double> got;
    ASSERT_EQ(gpu_decompress<double>(s, &got, x.size(), false, shift), ZCOLL_SUCCESS)
        << "shift " << shift << ": " << zcoll_last_error();
    ASSERT_TRUE(same_bits(got, ref)) << "shift " << shift;
  }
}

// ---- homomorphic operations ---------------------------------------------------

enum class Op { kAdd, kSub, kNegate, kAccumulate, kDocSum, kDocProd, kDocMax, kDocMin };

// Run one operation on the GPU; returns the resulting stream.
zcoll_status gpu_op(Op op, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t n,
                    zcoll_dtype dt, std::vector<uint8_t>* out, size_t acc_cap = 0) {
  Gpu g;
  const size_t cap = zcoll_compress_bound(n, dt);
  Dev da(std::max(a.size(), acc_cap)), db(b.size()), dout(cap);
  upload(da.p, a.data(), a.size());
  if (!b.empty()) upload(db.p, b.data(), b.size());
  size_t size = 0;
  zcoll_status s;
  switch (op) {
    case Op::kAdd:
      s = zcoll_cuda_hom_add(da.p, a.size(), db.p, b.size(), dout.p, cap, g.r(), nullptr);
      break;
    case Op::kSub:
      s = zcoll_cuda_hom_sub(da.p, a.size(), db.p, b.size(), dout.p, cap, g.r(), nullptr);
      break;
    case Op::kNegate: s = zcoll_cuda_hom_negate(da.p, a.size(), dout.p, cap, g.r(), nullptr); break;
    case Op::kAccumulate:
      s = zcoll_cuda_hom_accumulate(da.p, a.size(), acc_cap, db.p, b.size(), dout.p, cap, g.r(),
                                    nullptr);
      break;
    default: {
      const zcoll_op o = op == Op::kDocSum    ? ZCOLL_OP_SUM
                         : op == Op::kDocProd ? ZCOLL_OP_PROD
                         : op == Op::kDocMax  ? ZCOLL_OP_MAX
                                              : ZCOLL_OP_MIN;
      s = zcoll_cuda_doc_combine(da.p, a.size(), db.p, b.size(), o, dout.p, cap, g.r(), nullptr);
    }
  }
  s = g.finish(s, &size);
  if (s != ZCOLL_SUCCESS) return s;
  *out = download(op == Op::kAccumulate ? da.p : dout.p, size);
  return s;
}

zcoll_status cpu_op(Op op, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t n,
                    zcoll_dtype dt, std::vector<uint8_t>* out, size_t acc_cap = 0) {
  const size_t cap = zcoll_compress_bound(n, dt);
  out->assign(std::max(cap, std::max(acc_cap, a.size())), 0);
  size_t size = 0;
  zcoll_status s;
  switch (op) {
    case Op::kAdd:
      s = zcoll_hom_add(a.data(), a.size(), b.data(), b.size(), out->data(), cap, &size, nullptr,
                        1);
      break;
    case Op::kSub:
      s = zcoll_hom_sub(a.data(), a.size(), b.data(), b.size(), out->data(), cap, &size, nullptr,
                        1);
      break;
    case Op::kNegate: s = zcoll_hom_negate(a.data(), a.size(), out->data(), cap, &size, 1); break;
    case Op::kAccumulate:
      std::memcpy(out->data(), a.data(), a.size());
      s = zcoll_hom_accumulate(out->data(), a.size(), acc_cap, &size, b.data(), b.size(), nullptr,
                               1);
      break;
    default: {
      const zcoll_op o = op == Op::kDocSum    ? ZCOLL_OP_SUM
                         : op == Op::kDocProd ? ZCOLL_OP_PROD
                         : op == Op::kDocMax  ? ZCOLL_OP_MAX
                                              : ZCOLL_OP_MIN;
      s = zcoll_doc_combine(a.data(), a.size(), b.data(), b.size(), o, out->data(), cap, &size, 1);
    }
  }
  if (s == ZCOLL_SUCCESS) out->resize(size);
  return s;
}

template <typename T>
void check_hom(const std::vector<T>& x, const std::vector<T>& y, const zcoll_params& p,
               const std::string& what) {
  SCOPED_TRACE(what);
  const size_t n = x.size();
  const auto a = cpu_compress(x, n, p), b = cpu_compress(y, n, p);
  for (Op op : {Op::kAdd, Op::kSub, Op::kNegate, Op::kAccumulate, Op::kDocSum, Op::kDocProd,
                Op::kDocMax, Op::kDocMin}) {
    SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)));
    const size_t acc_cap = zcoll_compress_bound(n, dtype_of<T>());
    std::vector<uint8_t> c, g;
    ASSERT_EQ(cpu_op(op, a, b, n, dtype_of<T>(), &c, acc_cap), ZCOLL_SUCCESS) << zcoll_last_error();
    ASSERT_EQ(gpu_op(op, a, b, n, dtype_of<T>(), &g, acc_cap), ZCOLL_SUCCESS) << zcoll_last_error();
    ASSERT_EQ(g.size(), c.size());
    ASSERT_TRUE(g == c) << "GPU result differs from the CPU's";
  }
  // set divisor in place
  std::vector<uint8_t> c = a;
  ASSERT_EQ(zcoll_hom_set_divisor(c.data(), c.size(), 3), ZCOLL_SUCCESS);
  Gpu gg;
  Dev d(a.size());
  upload(d.p, a.data(), a.size());
  size_t size = 0;
  ASSERT_EQ(gg.finish(zcoll_cuda_hom_set_divisor(d.p, a.size(), 3, gg.r(), nullptr), &size),
            ZCOLL_SUCCESS);
  EXPECT_EQ(size, a.size());
  ASSERT_TRUE(download(d.p, a.size()) == c);
  // and a stream with a divisor decodes the same on both (raw chunks divided too)
  std::vector<T> ref(n), got;
  ASSERT_EQ(zcoll_decompress(c.data(), c.size(), ref.data(), n, 1), ZCOLL_SUCCESS);
  ASSERT_EQ(gpu_decompress<T>(c, &got, n), ZCOLL_SUCCESS);
  ASSERT_TRUE(same_bits(got, ref));
}

TEST_F(GpuCodec, HomResultsIdenticalToCpu) {
  const auto x = read_f32(data_files().front());
  const size_t half = x.size() / 2;
  std::vector<float> a(x.begin(), x.begin() + half), b(x.begin() + half, x.begin() + 2 * half);
  for (double eb : {1e-1, 1e-3})
    for (uint32_t cs : {1024u, 16384u}) {
      check_hom<float>(a, b, params(ZCOLL_EB_ABS, eb, cs), "data f32");
      check_hom<double>(as<double>(a), as<double>(b), params(ZCOLL_EB_ABS, eb, cs), "data f64");
    }
  // raw chunks (NaN, Inf, escapes) next to quantized ones
  check_hom<float>(special_data<float>(70001, 5), special_data<float>(70001, 6),
                   params(ZCOLL_EB_ABS, 1e-3, 1024), "specials f32");
  check_hom<double>(special_data<double>(70001, 5), special_data<double>(70001, 6),
                    params(ZCOLL_EB_ABS, 1e-3, 1024), "specials f64");
}

TEST_F(GpuCodec, HomOverflowGoesThroughFloats) {
  // codes near 2^30 - 1: x + x still fits int32, (x + x) + x does not (the qmax
  // guard sends those chunks through floats); small values in every other chunk
  const double eb = 0.5;
  std::vector<double> x(8192);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = (i / 1024) % 2 ? std::sin(i * 0.01) * 100
                          : 0.999 * 1073741824.0 + std::sin(i * 0.01) * 1000;
  const auto p = params(ZCOLL_EB_ABS, eb, 1024);
  const auto s = cpu_compress(x, x.size(), p);
  std::vector<uint8_t> twice, c, g;
  ASSERT_EQ(cpu_op(Op::kAdd, s, s, x.size(), ZCOLL_FLOAT64, &twice), ZCOLL_SUCCESS);
  for (Op op : {Op::kAdd, Op::kSub, Op::kAccumulate, Op::kDocSum}) {
    SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)));
    const size_t acc_cap = zcoll_compress_bound(x.size(), ZCOLL_FLOAT64);
    ASSERT_EQ(cpu_op(op, twice, s, x.size(), ZCOLL_FLOAT64, &c, acc_cap), ZCOLL_SUCCESS);
    ASSERT_EQ(gpu_op(op, twice, s, x.size(), ZCOLL_FLOAT64, &g, acc_cap), ZCOLL_SUCCESS)
        << zcoll_last_error();
    ASSERT_TRUE(g == c) << "GPU result differs from the CPU's";
  }
  zcoll_hom_stats st = ZCOLL_HOM_STATS_INITIALIZER;
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), ZCOLL_FLOAT64));
  size_t size = 0;
  ASSERT_EQ(zcoll_hom_add(twice.data(), twice.size(), s.data(), s.size(), out.data(), out.size(),
                          &size, &st, 1),
            ZCOLL_SUCCESS);
  EXPECT_GT(st.widened_chunks, 0u) << "the test data no longer reaches the overflow guard";
}

// The dense codec (format 1.3) is the CPU codec's: the device decoder refuses
// its streams, and the device compressor the codec, with UNSUPPORTED and a
// message that says so.
TEST_F(GpuCodec, DenseStreamsAreUnsupported) {
  const auto x = special_data<float>(20000, 5);
  auto p = params(ZCOLL_EB_ABS, 1e-3, 1024);
  p.codec = ZCOLL_CODEC_DENSE;
  const auto s = cpu_compress(x, x.size(), p);
  std::vector<float> out;
  EXPECT_EQ(gpu_decompress<float>(s, &out, x.size()), ZCOLL_ERR_UNSUPPORTED);
  EXPECT_NE(std::strstr(zcoll_last_error(), "dense"), nullptr) << zcoll_last_error();
  Gpu g;
  Dev src(x.size() * sizeof(float)), dst(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  EXPECT_EQ(
      zcoll_cuda_compress(&p, ZCOLL_FLOAT32, src.p, x.size(), dst.p, dst.bytes, g.r(), nullptr),
      ZCOLL_ERR_UNSUPPORTED);
  EXPECT_NE(std::strstr(zcoll_last_error(), "dense"), nullptr) << zcoll_last_error();
}

TEST_F(GpuCodec, CorruptStreamsAreErrors) {
  const auto x = special_data<float>(20000, 9);
  const auto s = cpu_compress(x, x.size(), params(ZCOLL_EB_ABS, 1e-3, 1024));
  std::vector<float> out;
  auto bad = s;
  bad[0] = 'X';
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_CORRUPT);
  bad = s;
  bad[4] = 9;
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_UNSUPPORTED);
  bad = s;
  bad[50] ^= 0x08;  // index entry: checksum no longer matches
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_CORRUPT);
  bad.assign(s.begin(), s.begin() + 40);
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_TRUNCATED);
  bad.assign(s.begin(), s.end() - 8);
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_TRUNCATED);
  // a code length of 40 in the first quantized chunk (chunk data is not checksummed)
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  ASSERT_EQ(zcoll_inspect(s.data(), s.size(), &info), ZCOLL_SUCCESS);
  bad = s;
  const size_t first = info.header_size;
  if (bad[first] == 0) {
    bad[first + 12] = 40;
    EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_CORRUPT);
  }
  // cut after the index and one chunk: more chunks than the bytes can hold
  bad.assign(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(first + 8));
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_TRUNCATED);
  EXPECT_EQ(zcoll_decompress(bad.data(), bad.size(), out.data(), x.size(), 1), ZCOLL_ERR_TRUNCATED);
  bad = s;
  bad[first] = 7;  // unknown chunk kind
  EXPECT_EQ(gpu_decompress<float>(bad, &out, x.size()), ZCOLL_ERR_CORRUPT);
  // too small an output
  EXPECT_EQ(gpu_decompress<float>(s, &out, x.size() - 1), ZCOLL_ERR_BUFFER_TOO_SMALL);
  // the same on the homomorphic path
  std::vector<uint8_t> r;
  bad = s;
  bad[first] = 7;
  EXPECT_EQ(gpu_op(Op::kAdd, s, bad, x.size(), ZCOLL_FLOAT32, &r), ZCOLL_ERR_CORRUPT);
  const auto other = cpu_compress(x, x.size(), params(ZCOLL_EB_ABS, 1e-2, 1024));
  EXPECT_EQ(gpu_op(Op::kAdd, s, other, x.size(), ZCOLL_FLOAT32, &r), ZCOLL_ERR_MISMATCH);
  // accumulator too small: left unchanged
  EXPECT_EQ(gpu_op(Op::kAccumulate, s, s, x.size(), ZCOLL_FLOAT32, &r, 64),
            ZCOLL_ERR_BUFFER_TOO_SMALL);
}

TEST_F(GpuCodec, HostSideArgumentErrors) {
  Gpu g;
  std::vector<float> host(1000, 1.0f);
  Dev dst(zcoll_compress_bound(1000, ZCOLL_FLOAT32));
  const auto p = params(ZCOLL_EB_ABS, 1e-3, 0);
  // a host pointer is not device memory
  EXPECT_EQ(
      zcoll_cuda_compress(&p, ZCOLL_FLOAT32, host.data(), 1000, dst.p, dst.bytes, g.r(), nullptr),
      ZCOLL_ERR_INVALID_ARG);
  Dev src(4000);
  EXPECT_EQ(
      zcoll_cuda_compress(&p, ZCOLL_FLOAT32, src.p, 1000, dst.p, dst.bytes - 1, g.r(), nullptr),
      ZCOLL_ERR_BUFFER_TOO_SMALL);
  EXPECT_EQ(zcoll_cuda_compress(&p, ZCOLL_FLOAT32, src.p, 1000, dst.p, dst.bytes, nullptr, nullptr),
            ZCOLL_ERR_INVALID_ARG);
  auto bad = params(ZCOLL_EB_ABS, -1, 0);
  EXPECT_EQ(zcoll_cuda_compress(&bad, ZCOLL_FLOAT32, src.p, 1000, dst.p, dst.bytes, g.r(), nullptr),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_cuda_hom_set_divisor(dst.p, 100, 0, g.r(), nullptr), ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_cuda_doc_combine(dst.p, 100, dst.p, 100, static_cast<zcoll_op>(42), dst.p,
                                   dst.bytes, g.r(), nullptr),
            ZCOLL_ERR_UNSUPPORTED);
  // the result is written with 8-byte stores: a result not aligned to 8 bytes
  // is an argument error, not a misaligned store on the device
  Dev results(4 * sizeof(zcoll_cuda_result));
  auto* odd = reinterpret_cast<zcoll_cuda_result*>(results.u8() + 4);
  const auto s = cpu_compress(host, host.size(), p);
  Dev z(s.size());
  upload(z.p, s.data(), s.size());
  EXPECT_EQ(zcoll_cuda_compress(&p, ZCOLL_FLOAT32, src.p, 1000, dst.p, dst.bytes, odd, nullptr),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_cuda_decompress(z.p, s.size(), src.p, 1000, odd, nullptr), ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_cuda_hom_add(z.p, s.size(), z.p, s.size(), dst.p, dst.bytes, odd, nullptr),
            ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_cuda_hom_set_divisor(z.p, s.size(), 2, odd, nullptr), ZCOLL_ERR_INVALID_ARG);
  EXPECT_EQ(zcoll_cuda_result_get(odd, nullptr, nullptr), ZCOLL_ERR_INVALID_ARG);
  EXPECT_NE(std::strstr(zcoll_last_error(), "aligned"), nullptr) << zcoll_last_error();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Capacities and sizes near SIZE_MAX: the homomorphic operations only need
// what the streams can produce (an output buffer may be larger than needed);
// a size that would need more temporary memory than exists is an error, not a
// wrapped size and writes past the temporary memory (issue 25, defect 3).
TEST_F(GpuCodec, HugeCapacitiesAndSizes) {
  const auto x = special_data<float>(20000, 11), y = special_data<float>(20000, 12);
  const auto p = params(ZCOLL_EB_ABS, 1e-3, 1024);
  const auto a = cpu_compress(x, x.size(), p), b = cpu_compress(y, y.size(), p);
  const size_t need = zcoll_compress_bound(x.size(), ZCOLL_FLOAT32);
  Gpu g;
  Dev da(a.size()), db(b.size()), out(need), acc(need);
  upload(da.p, a.data(), a.size());
  upload(db.p, b.data(), b.size());
  for (size_t cap : {SIZE_MAX, SIZE_MAX - 100, SIZE_MAX / 2 + 1}) {
    SCOPED_TRACE("capacity " + std::to_string(cap));
    for (Op op : {Op::kAdd, Op::kSub, Op::kNegate, Op::kDocSum, Op::kAccumulate}) {
      SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)));
      std::vector<uint8_t> want;
      ASSERT_EQ(cpu_op(op, a, b, x.size(), ZCOLL_FLOAT32, &want, need), ZCOLL_SUCCESS);
      zcoll_status st;
      size_t size = 0;
      if (op == Op::kAccumulate) {
        upload(acc.p, a.data(), a.size());
        st = zcoll_cuda_hom_accumulate(acc.p, a.size(), need, db.p, b.size(), out.p, cap, g.r(),
                                       nullptr);
      } else if (op == Op::kNegate) {
        st = zcoll_cuda_hom_negate(da.p, a.size(), out.p, cap, g.r(), nullptr);
      } else if (op == Op::kDocSum) {
        st = zcoll_cuda_doc_combine(da.p, a.size(), db.p, b.size(), ZCOLL_OP_SUM, out.p, cap, g.r(),
                                    nullptr);
      } else {
        st = op == Op::kAdd
                 ? zcoll_cuda_hom_add(da.p, a.size(), db.p, b.size(), out.p, cap, g.r(), nullptr)
                 : zcoll_cuda_hom_sub(da.p, a.size(), db.p, b.size(), out.p, cap, g.r(), nullptr);
      }
      ASSERT_EQ(g.finish(st, &size), ZCOLL_SUCCESS) << zcoll_last_error();
      ASSERT_TRUE(download(op == Op::kAccumulate ? acc.p : out.p, size) == want);
    }
  }
  // sizes whose offset tables do not fit in memory
  Dev vals(x.size() * 4);
  EXPECT_EQ(zcoll_cuda_decompress(da.p, SIZE_MAX, vals.p, x.size(), g.r(), nullptr),
            ZCOLL_ERR_NO_MEMORY);
  EXPECT_EQ(zcoll_cuda_hom_set_divisor(da.p, SIZE_MAX - 7, 3, g.r(), nullptr), ZCOLL_ERR_NO_MEMORY);
  EXPECT_EQ(zcoll_cuda_hom_add(da.p, SIZE_MAX, db.p, b.size(), out.p, need, g.r(), nullptr),
            ZCOLL_ERR_NO_MEMORY);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

// Without a device every call is an error status, never an abort (runs in CI).
TEST(GpuNoDevice, CallsReturnStatuses) {
  if (zcoll_cuda_device_count() != 0) GTEST_SKIP() << "a CUDA device is present";
  zcoll_cuda_result* r = nullptr;
  const auto p = params(ZCOLL_EB_ABS, 1e-3, 0);
  float x[4] = {1, 2, 3, 4};
  uint8_t out[256];
  EXPECT_NE(zcoll_cuda_compress(&p, ZCOLL_FLOAT32, x, 4, out, sizeof out, r, nullptr),
            ZCOLL_SUCCESS);
  EXPECT_NE(zcoll_cuda_decompress(out, sizeof out, x, 4, r, nullptr), ZCOLL_SUCCESS);
  EXPECT_NE(zcoll_cuda_result_get(r, nullptr, nullptr), ZCOLL_SUCCESS);
  EXPECT_NE(zcoll_last_error()[0], '\0');
}

#if defined(ZCOLL_CUDA_EMU)
// ---- on the CUDA emulation only: injected faults and allocation counts ---------
// (tests/support/cuda_emu/emu.h: zcoll::emu::fail_*_after, zcoll::emu::stats)

// Each operation of zcoll_cuda.h on small valid inputs; returns the status of
// the call (what the device reports is waited for only when it succeeded).
struct Operations {
  Gpu g;
  std::vector<float> x = special_data<float>(5000, 3);
  zcoll_params p = params(ZCOLL_EB_ABS, 1e-3, 1024);
  std::vector<uint8_t> s = cpu_compress(x, x.size(), p);
  size_t cap = zcoll_compress_bound(x.size(), ZCOLL_FLOAT32);
  Dev src{x.size() * 4}, a{s.size()}, out{cap}, vals{x.size() * 4}, div{s.size()};
  Operations() {
    upload(src.p, x.data(), x.size() * 4);
    upload(a.p, s.data(), s.size());
  }
  std::vector<std::pair<std::string, std::function<zcoll_status()>>> all() {
    return {
        {"compress",
         [&] {
           return zcoll_cuda_compress(&p, ZCOLL_FLOAT32, src.p, x.size(), out.p, cap, g.r(),
                                      nullptr);
         }},
        {"decompress",
         [&] { return zcoll_cuda_decompress(a.p, s.size(), vals.p, x.size(), g.r(), nullptr); }},
        {"hom_add",
         [&] {
           return zcoll_cuda_hom_add(a.p, s.size(), a.p, s.size(), out.p, cap, g.r(), nullptr);
         }},
        {"doc_combine",
         [&] {
           return zcoll_cuda_doc_combine(a.p, s.size(), a.p, s.size(), ZCOLL_OP_MAX, out.p, cap,
                                         g.r(), nullptr);
         }},
        {"hom_set_divisor", [&] {
           upload(div.p, s.data(), s.size());
           return zcoll_cuda_hom_set_divisor(div.p, s.size(), 3, g.r(), nullptr);
         }}};
  }
};

// A launch that fails ends the operation: a kernel launched after it would read
// the state the failed one never wrote (issue 25, defect 8).
TEST_F(GpuCodec, ALaunchFailureEndsTheKernelSequence) {
  Operations ops;
  for (auto& [name, run] : ops.all()) {
    SCOPED_TRACE(name);
    const uint64_t l0 = zcoll::emu::stats().launches;
    ASSERT_EQ(ops.g.finish(run(), nullptr), ZCOLL_SUCCESS) << zcoll_last_error();
    const uint64_t launches = zcoll::emu::stats().launches - l0;
    ASSERT_GT(launches, 2u);
    for (uint64_t k = 1; k <= launches; ++k) {
      zcoll::emu::fail_launch_after(static_cast<int>(k));
      const uint64_t before = zcoll::emu::stats().launches;
      EXPECT_EQ(run(), ZCOLL_ERR_INTERNAL) << "launch " << k << " failed";
      EXPECT_EQ(zcoll::emu::stats().launches - before, k - 1)
          << "kernels were launched after launch " << k << " failed";
      zcoll::emu::fail_launch_after(0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
  }
}

// The temporary memory of a homomorphic operation follows its streams, not the
// capacity of its output (issue 25, defect 3).
TEST_F(GpuCodec, TemporaryMemoryFollowsTheStreams) {
  Operations ops;
  const size_t huge = size_t{1} << 34;
  for (int doc = 0; doc < 2; ++doc) {
    const zcoll_status st = doc ? zcoll_cuda_doc_combine(ops.a.p, ops.s.size(), ops.a.p,
                                                         ops.s.size(), ZCOLL_OP_SUM, ops.out.p,
                                                         huge, ops.g.r(), nullptr)
                                : zcoll_cuda_hom_add(ops.a.p, ops.s.size(), ops.a.p, ops.s.size(),
                                                     ops.out.p, huge, ops.g.r(), nullptr);
    ASSERT_EQ(ops.g.finish(st, nullptr), ZCOLL_SUCCESS) << zcoll_last_error();
    EXPECT_LT(zcoll::emu::stats().last_async_request, size_t{64} << 20)
        << (doc ? "doc_combine" : "hom_add") << " of " << ops.s.size() << "-byte streams";
  }
}

// A stream's offset table has an entry per chunk (+1) and each chunk takes at
// least 12 bytes of the stream (a 4-byte index entry and 8 bytes or more):
// the temporary memory of an operation is about 8/12 of its streams' bytes per
// table, not 2x (issue 25, defect 7).
TEST_F(GpuCodec, OffsetTablesFollowTheChunkCount) {
  Operations ops;
  const size_t S = ops.s.size();
  ASSERT_EQ(
      ops.g.finish(zcoll_cuda_decompress(ops.a.p, S, ops.vals.p, ops.x.size(), ops.g.r(), nullptr),
                   nullptr),
      ZCOLL_SUCCESS);
  EXPECT_LE(zcoll::emu::stats().last_async_request, 1024 + S * 8 / 12) << S << "-byte stream";
  // hom_add: two tables in, one out, the sizes, and the scratch (the output's bound)
  ASSERT_EQ(ops.g.finish(
                zcoll_cuda_hom_add(ops.a.p, S, ops.a.p, S, ops.out.p, ops.cap, ops.g.r(), nullptr),
                nullptr),
            ZCOLL_SUCCESS);
  EXPECT_LE(zcoll::emu::stats().last_async_request, 2048 + ops.cap + S * 28 / 12);
}

// The launch shapes follow the call's chunks: a chunk kernel starts no more
// blocks than the stream has chunks (blocks loop over chunks; the rest would
// start only to exit), and the one-block kernels over the index no more threads
// than a power of two above the chunk count, not 1024. Operations' streams have
// 5 chunks: every grid of 5 blocks or fewer, every block of 256 threads or fewer
// (before: 8 x SMs blocks and 1024-thread index kernels).
TEST_F(GpuCodec, LaunchShapesFollowTheChunkCount) {
  Operations ops;
  const uint64_t chunks = (ops.x.size() + 1023) / 1024;
  ASSERT_EQ(chunks, 5u);
  for (auto& [name, run] : ops.all()) {
    SCOPED_TRACE(name);
    const auto before = zcoll::emu::stats();
    ASSERT_EQ(ops.g.finish(run(), nullptr), ZCOLL_SUCCESS) << zcoll_last_error();
    const auto after = zcoll::emu::stats();
    const uint64_t grids = after.grids_run - before.grids_run;
    const uint64_t blocks = after.blocks_run - before.blocks_run;
    const uint64_t threads = after.threads_run - before.threads_run;
    ASSERT_GT(grids, 0u);
    EXPECT_LE(blocks, chunks * grids) << grids << " grids";
    EXPECT_LE(threads, 256 * blocks) << blocks << " blocks";
  }
}

// The temporary memory of each call comes from a pool that keeps it for the
// next call (zcoll_cuda.h), also across the synchronization of
// zcoll_cuda_result_get: CUDA's default pool gives everything back there
// (release threshold 0), so every call went to the driver (issue 25, defect 6).
TEST_F(GpuCodec, TemporaryMemoryIsReusedAcrossCalls) {
  Operations ops;
  for (auto& [name, run] : ops.all()) {
    SCOPED_TRACE(name);
    ASSERT_EQ(ops.g.finish(run(), nullptr), ZCOLL_SUCCESS) << zcoll_last_error();
    const auto before = zcoll::emu::stats();
    for (int k = 0; k < 3; ++k) ASSERT_EQ(ops.g.finish(run(), nullptr), ZCOLL_SUCCESS);
    const auto after = zcoll::emu::stats();
    EXPECT_EQ(after.driver_allocations, before.driver_allocations) << "allocations from the driver";
    EXPECT_EQ(after.pool_reuses - before.pool_reuses, 3u);
  }
}
#endif

}  // namespace
