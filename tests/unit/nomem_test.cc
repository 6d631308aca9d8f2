// nomem_test.cc — no exception crosses the C API: every allocation that a call
// makes is failed in turn (a replaced operator new that throws std::bad_alloc
// at the k-th allocation) and the call must return ZCOLL_ERR_NO_MEMORY, never
// terminate. Allocations inside OpenMP regions (the per-thread scratch of the
// homomorphic and DOC paths) are among them: the test checks that some failed
// allocation happened inside a parallel region.
#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include "test_util.h"
#include "zcoll.h"

namespace {
std::atomic<long> g_countdown{-1};  // < 0: never fail
std::atomic<bool> g_failed{false};
std::atomic<bool> g_failed_in_parallel{false};

void* allocate(size_t n) {
  if (g_countdown.load(std::memory_order_relaxed) >= 0 &&
      g_countdown.fetch_sub(1, std::memory_order_relaxed) == 0) {
    g_failed = true;
    if (omp_in_parallel()) g_failed_in_parallel = true;
    throw std::bad_alloc();
  }
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
}  // namespace

void* operator new(size_t n) { return allocate(n); }
void* operator new[](size_t n) { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace {

// Fail the 0th, 1st, ... allocation of call() until a run needs no more; every
// failed run must return ZCOLL_ERR_NO_MEMORY with a message.
void sweep(const char* what, const std::function<zcoll_status()>& call, int* failures) {
  for (long k = 0; k < 10000; ++k) {
    g_failed = false;
    g_countdown = k;
    const zcoll_status s = call();
    g_countdown = -1;
    if (!g_failed) {
      EXPECT_EQ(s, ZCOLL_SUCCESS) << what << ": " << zcoll_last_error();
      return;
    }
    ++*failures;
    EXPECT_EQ(s, ZCOLL_ERR_NO_MEMORY) << what << ", allocation " << k << ": " << zcoll_last_error();
    EXPECT_NE(std::string(zcoll_last_error()).find("out of memory"), std::string::npos) << what;
  }
  ADD_FAILURE() << what << ": never completed";
}

TEST(NoMemory, EveryAllocationFailureIsReported) {
  const size_t n = 4 * 1024 + 100;
  std::vector<float> a(n), b(n), y(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 101) * 0.5f;
    b[i] = static_cast<float>((i * 7) % 53) - 20.0f;
  }
  const int threads = 4;
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 0.01;
  p.chunk_size = 1024;
  const size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  std::vector<uint8_t> za(cap), zb(cap), out(cap), acc(cap);
  size_t sa = 0, sb = 0, so = 0;
  ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, a.data(), n, za.data(), cap, &sa, threads),
            ZCOLL_SUCCESS);
  ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, b.data(), n, zb.data(), cap, &sb, threads),
            ZCOLL_SUCCESS);
  int failures = 0;
  g_failed_in_parallel = false;
  sweep(
      "compress",
      [&] { return zcoll_compress(&p, ZCOLL_FLOAT32, a.data(), n, out.data(), cap, &so, threads); },
      &failures);
  sweep(
      "decompress", [&] { return zcoll_decompress(za.data(), sa, y.data(), n, threads); },
      &failures);
  sweep(
      "inspect",
      [&] {
        zcoll_info info = ZCOLL_INFO_INITIALIZER;
        return zcoll_inspect(za.data(), sa, &info);
      },
      &failures);
  sweep(
      "hom_add",
      [&] {
        return zcoll_hom_add(za.data(), sa, zb.data(), sb, out.data(), cap, &so, nullptr, threads);
      },
      &failures);
  sweep(
      "hom_accumulate",
      [&] {
        std::copy(za.begin(), za.begin() + static_cast<long>(sa), acc.begin());
        size_t ns = 0;
        return zcoll_hom_accumulate(acc.data(), sa, cap, &ns, zb.data(), sb, nullptr, threads);
      },
      &failures);
  sweep(
      "hom_negate", [&] { return zcoll_hom_negate(za.data(), sa, out.data(), cap, &so, threads); },
      &failures);
  sweep(
      "doc_combine",
      [&] {
        return zcoll_doc_combine(za.data(), sa, zb.data(), sb, ZCOLL_OP_MAX, out.data(), cap, &so,
                                 threads);
      },
      &failures);
  sweep(
      "quality_compare",
      [&] {
        zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
        return zcoll_quality_compare(ZCOLL_FLOAT32, a.data(), a.data(), n, 0, &q, threads);
      },
      &failures);
  EXPECT_GT(failures, 10);
  // the scratch buffers of the homomorphic / DOC paths are allocated inside the
  // OpenMP team: those failures went through the in-region catch
  EXPECT_TRUE(g_failed_in_parallel.load());
}

// The dense codec with dims: a chunk of predictor 3 or 4 decodes through a
// per-thread array, which the thread that checks the chunk allocates inside the
// team before any decode starts; its failure is NO_MEMORY too.
TEST(NoMemory, DenseNdDecoderArrayFailureIsReported) {
  const uint64_t d0 = 8, d1 = 40, d2 = 64;
  const size_t n = d0 * d1 * d2;
  std::vector<float> a(n), y(n);
  for (size_t i = 0; i < n; ++i) {  // separable: 2-D/3-D Lorenzo predict it, 1-D does not
    const size_t col = i % d2, row = i / d2 % d1, plane = i / (d1 * d2);
    a[i] = static_cast<float>(std::sin(0.3 * static_cast<double>(col)) +
                              0.5 * std::cos(0.2 * static_cast<double>(row)) +
                              0.1 * static_cast<double>(plane));
  }
  const int threads = 4;
  zcoll_params p = ZCOLL_PARAMS_INITIALIZER;
  p.codec = ZCOLL_CODEC_DENSE;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-3;
  p.chunk_size = 4096;
  p.ndims = 3;
  p.dims[0] = d0, p.dims[1] = d1, p.dims[2] = d2;
  const size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  std::vector<uint8_t> z(cap), out(cap);
  size_t sz = 0, so = 0;
  ASSERT_EQ(zcoll_compress(&p, ZCOLL_FLOAT32, a.data(), n, z.data(), cap, &sz, threads),
            ZCOLL_SUCCESS);
  const size_t first = zcoll_header_size(n, 4096);
  ASSERT_EQ(z[first], 2);      // a dense chunk
  ASSERT_GE(z[first + 1], 3);  // of an n-D predictor
  int failures = 0;
  g_failed_in_parallel = false;
  sweep(
      "dense n-D decompress", [&] { return zcoll_decompress(z.data(), sz, y.data(), n, threads); },
      &failures);
  EXPECT_TRUE(g_failed_in_parallel.load());  // the array, allocated in the team
  sweep(
      "dense n-D doc_combine",
      [&] {
        return zcoll_doc_combine(z.data(), sz, z.data(), sz, ZCOLL_OP_SUM, out.data(), cap, &so,
                                 threads);
      },
      &failures);
  EXPECT_GT(failures, 0);
  ASSERT_EQ(zcoll_decompress(z.data(), sz, y.data(), n, threads), ZCOLL_SUCCESS);
  for (size_t i = 0; i < n; ++i) ASSERT_LE(std::fabs(y[i] - a[i]), 1e-3) << i;
}

}  // namespace
