// emu_test.cc — zcoll's CUDA emulation (tests/support/cuda_emu) itself: the warp and
// block operations against their CUDA definitions, shared memory and atomics,
// the stream ordering of the lazy schedule, memory pools and pointer kinds, and
// the aborts it promises (emu.h) where CUDA leaves the outcome undefined or a
// GPU would hang: a barrier in divergent code, a warp operation with a partial
// mask or in divergent code, a wait on another block. Label gpu_emu.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cuda_emu/emu.h"
#include "cuda/launch.cuh"

namespace {

constexpr unsigned kFull = 0xFFFFFFFFu;

template <typename T>
struct DevBuf {
  T* p = nullptr;
  size_t n = 0;
  explicit DevBuf(size_t count) : n(count) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&p), count * sizeof(T)), cudaSuccess);
  }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  std::vector<T> get() const {
    std::vector<T> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

// ---- kernels -------------------------------------------------------------------
// out[8 * t + k]: shuffle k of thread t's value (t * 3 + 1) in warp width w
__global__ void k_shuffles(int* out, int width) {
  const int t = static_cast<int>(threadIdx.x), v = t * 3 + 1;
  int* o = out + 8 * t;
  o[0] = __shfl_sync(kFull, v, (t * 7) % 32, width);
  o[1] = __shfl_up_sync(kFull, v, 3, width);
  o[2] = __shfl_down_sync(kFull, v, 5, width);
  o[3] = __shfl_xor_sync(kFull, v, 6 % width, width);
  o[4] = static_cast<int>(__ballot_sync(kFull, t % 3 == 0));
  o[5] = __any_sync(kFull, t == 37);
  o[6] = __all_sync(kFull, t < 40);
  o[7] = static_cast<int>(__shfl_sync(kFull, 1.5 * t, 31 - (t & 31)) * 2);  // a double
}

__global__ void k_barriers(int* out) {
  const unsigned t = threadIdx.x;
  out[4 * t + 0] = __syncthreads_or(t == 200);
  out[4 * t + 1] = __syncthreads_and(t != 5);
  out[4 * t + 2] = __syncthreads_count(t % 4 == 0);
  out[4 * t + 3] = __syncthreads_and(1);
}

// per block: the sum of its 256 threads' values through static shared memory
__global__ void k_block_sums(const int* x, int* sums, int* total) {
  __shared__ int part[8];
  const unsigned t = threadIdx.x, b = blockIdx.x;
  int v = x[b * blockDim.x + t];
  for (int s = 16; s > 0; s >>= 1) v += __shfl_xor_sync(kFull, v, s);
  if ((t & 31) == 0) part[t >> 5] = v;
  __syncthreads();
  if (t == 0) {
    int s = 0;
    for (int k = 0; k < 8; ++k) s += part[k];
    sums[b] = s;
  }
  atomicAdd(total, x[b * blockDim.x + t]);
  __syncthreads();  // part is read by thread 0 before another block's threads write it
}

__global__ void k_indices(uint32_t* out) {
  const unsigned tl = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned bl = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  out[bl * blockDim.x * blockDim.y * blockDim.z + tl] = bl * 1000 + tl;
}

__global__ void k_copy(const float* x, float* y, int n) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(gridDim.x * blockDim.x))
    y[i] = x[i];
}

__global__ void k_count(int* c) {
  if (threadIdx.x == 0) atomicAdd(c, 1);
}

// ---- what the aborts are about ---------------------------------------------------
__global__ void k_divergent_barrier(int* out) {
  if (threadIdx.x < 16) __syncthreads();  // half the block never reaches it
  out[threadIdx.x] = 1;
}
__global__ void k_two_barriers(int* out) {
  // NOLINTNEXTLINE(bugprone-branch-clone): the same barrier at two sites is the point
  if (threadIdx.x & 1)
    __syncthreads();
  else
    __syncthreads();  // another barrier: undefined in CUDA
  out[threadIdx.x] = 1;
}
__global__ void k_partial_mask(int* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = __shfl_xor_sync(0x0000FFFFu, 1, 1);
}
__global__ void k_divergent_shuffle(int* out) {
  int v = static_cast<int>(threadIdx.x);
  if (threadIdx.x & 1)
    v = __shfl_xor_sync(kFull, v, 2);
  else
    v = __shfl_xor_sync(kFull, v, 4);
  out[threadIdx.x] = v;
}
__global__ void k_lane_exits(int* out) {
  if (threadIdx.x == 3) return;
  out[threadIdx.x] = __shfl_xor_sync(kFull, 1, 1);
}
// block 0 waits for block 1, which a GPU may run at the same time; the
// emulation runs block 1 only after block 0
__global__ void k_wait_for_block(int* flag) {
  if (blockIdx.x == 1 && threadIdx.x == 0) atomicExch(flag, 1);
  if (blockIdx.x == 0 && threadIdx.x == 0)
    while (atomicAdd(flag, 0) == 0) {
    }
}
__global__ void k_volatile_wait(int* flag) {
  if (blockIdx.x == 1 && threadIdx.x == 0) *flag = 1;
  if (blockIdx.x == 0 && threadIdx.x == 0)
    while (*static_cast<volatile int*>(flag) == 0) {
    }
}

class Emu : public ::testing::Test {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    zcoll::emu::set_schedule(zcoll::emu::Schedule::kLazy);
  }
};

// ---- the operations against their definitions --------------------------------------
TEST_F(Emu, ShufflesVotesAndBallots) {
  for (int width : {32, 16, 8}) {
    SCOPED_TRACE("width " + std::to_string(width));
    DevBuf<int> out(8 * 64);
    ASSERT_EQ(ZCOLL_LAUNCH(k_shuffles, 1, 64, nullptr, out.p, width), cudaSuccess);
    const auto o = out.get();
    for (int t = 0; t < 64; ++t) {
      const int seg = t & ~(width - 1), warp = t & ~31;
      auto v = [](int l) { return l * 3 + 1; };
      EXPECT_EQ(o[8 * t + 0], v(seg + ((t * 7) % 32) % width)) << t;
      EXPECT_EQ(o[8 * t + 1], t - 3 >= seg ? v(t - 3) : v(t)) << t;
      EXPECT_EQ(o[8 * t + 2], t + 5 < seg + width ? v(t + 5) : v(t)) << t;
      EXPECT_EQ(o[8 * t + 3], v(t ^ (6 % width))) << t;
      uint32_t ballot = 0;
      for (int l = 0; l < 32; ++l) ballot |= ((warp + l) % 3 == 0 ? 1u : 0u) << l;
      EXPECT_EQ(static_cast<uint32_t>(o[8 * t + 4]), ballot) << t;
      EXPECT_EQ(o[8 * t + 5], warp == 32 ? 1 : 0) << t;
      EXPECT_EQ(o[8 * t + 6], warp == 0 ? 1 : 0) << t;
      EXPECT_EQ(o[8 * t + 7], static_cast<int>(1.5 * (warp + 31 - (t & 31)) * 2)) << t;
    }
  }
}

TEST_F(Emu, BlockBarriersWithPredicates) {
  DevBuf<int> out(4 * 256);
  ASSERT_EQ(ZCOLL_LAUNCH(k_barriers, 1, 256, nullptr, out.p), cudaSuccess);
  const auto o = out.get();
  for (int t = 0; t < 256; ++t) {
    EXPECT_EQ(o[4 * t + 0], 1);
    EXPECT_EQ(o[4 * t + 1], 0);
    EXPECT_EQ(o[4 * t + 2], 64);
    EXPECT_EQ(o[4 * t + 3], 1);
  }
}

TEST_F(Emu, SharedMemoryPerBlockAndAtomics) {
  const int blocks = 9;
  std::vector<int> x(256 * blocks);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int>(i % 1000) - 300;
  DevBuf<int> dx(x.size()), sums(blocks), total(1);
  ASSERT_EQ(cudaMemcpy(dx.p, x.data(), x.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(total.p, 0, 4), cudaSuccess);
  ASSERT_EQ(ZCOLL_LAUNCH(k_block_sums, blocks, 256, nullptr, dx.p, sums.p, total.p), cudaSuccess);
  const auto s = sums.get();
  long all = 0;
  for (int b = 0; b < blocks; ++b) {
    long want = 0;
    for (int t = 0; t < 256; ++t) want += x[b * 256 + t];
    EXPECT_EQ(s[b], want) << "block " << b;
    all += want;
  }
  EXPECT_EQ(total.get()[0], all);
}

TEST_F(Emu, ThreeDimensionalIndices) {
  const dim3 grid(3, 2, 2), block(4, 3, 5);
  const size_t n = 12 * 60;
  DevBuf<uint32_t> out(n);
  ASSERT_EQ(ZCOLL_LAUNCH(k_indices, grid, block, nullptr, out.p), cudaSuccess);
  const auto o = out.get();
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(o[i], (i / 60) * 1000 + i % 60);
}

TEST_F(Emu, LaunchConfigurationAndInjectedFailures) {
  DevBuf<int> c(1);
  ASSERT_EQ(cudaMemset(c.p, 0, 4), cudaSuccess);
  EXPECT_EQ(ZCOLL_LAUNCH(k_count, 1, 2048, nullptr, c.p), cudaErrorInvalidConfiguration);
  EXPECT_EQ(ZCOLL_LAUNCH(k_count, 0, 32, nullptr, c.p), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // read by the launch helper
  zcoll::emu::fail_launch_after(2);
  EXPECT_EQ(ZCOLL_LAUNCH(k_count, 1, 32, nullptr, c.p), cudaSuccess);
  EXPECT_EQ(ZCOLL_LAUNCH(k_count, 1, 32, nullptr, c.p), cudaErrorLaunchOutOfResources);
  EXPECT_EQ(ZCOLL_LAUNCH(k_count, 1, 32, nullptr, c.p), cudaSuccess);
  EXPECT_EQ(c.get()[0], 2);  // the failed launch did not run
  zcoll::emu::fail_malloc_after(1);
  void* p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 64), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation);
  EXPECT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  cudaFree(p);
  // of one kind only: the second pinned allocation
  zcoll::emu::fail_malloc_after(2, zcoll::emu::Alloc::kHost);
  void *d1 = nullptr, *a1 = nullptr, *h1 = nullptr, *h2 = nullptr;
  EXPECT_EQ(cudaMalloc(&d1, 64), cudaSuccess);
  EXPECT_EQ(cudaMallocHost(&h1, 64), cudaSuccess);
  EXPECT_EQ(cudaMallocAsync(&a1, 64, nullptr), cudaSuccess);
  EXPECT_EQ(cudaMallocHost(&h2, 64), cudaErrorMemoryAllocation);
  cudaGetLastError();
  cudaFreeAsync(a1, nullptr);
  cudaFree(d1);
  cudaFreeHost(h1);
}

TEST_F(Emu, PointerKinds) {
  void *d = nullptr, *h = nullptr, *m = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1000), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&h, 1000), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&m, 1000), cudaSuccess);
  std::vector<char> pageable(1000);
  cudaPointerAttributes a;
  ASSERT_EQ(cudaPointerGetAttributes(&a, static_cast<char*>(d) + 999), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
  ASSERT_EQ(cudaPointerGetAttributes(&a, h), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  ASSERT_EQ(cudaPointerGetAttributes(&a, m), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  ASSERT_EQ(cudaPointerGetAttributes(&a, pageable.data()), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
  // a copy past the allocation, and a device direction that names host memory
  EXPECT_EQ(cudaMemcpy(pageable.data(), static_cast<char*>(d) + 1, 1000, cudaMemcpyDeviceToHost),
            cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(pageable.data(), h, 10, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  cudaGetLastError();
  EXPECT_EQ(cudaFree(h), cudaErrorInvalidValue);  // pinned memory goes with cudaFreeHost
  cudaGetLastError();
  EXPECT_EQ(cudaFreeHost(h), cudaSuccess);
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(cudaFree(m), cudaSuccess);
}

// ---- stream ordering (the lazy schedule) ---------------------------------------------
TEST_F(Emu, LegacyStreamUploadIsNotOrderedBeforeANonBlockingStream) {
  const int n = 1000;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i);
  DevBuf<float> dx(n), dy(n);
  cudaStream_t nb, blocking;
  ASSERT_EQ(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  std::vector<float> y(n);
  // cudaMemcpy from pageable memory returns before the device has the data; a
  // non-blocking stream does not wait for the legacy stream: the copy kernel
  // reads what was there before (0xFF bytes: NaN)
  ASSERT_EQ(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(ZCOLL_LAUNCH(k_copy, 2, 128, nb, dx.p, dy.p, n), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(y.data(), dy.p, n * 4, cudaMemcpyDeviceToHost, nb), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nb), cudaSuccess);
  EXPECT_TRUE(std::isnan(y[10]))
      << "the emulation ran the upload before work it is not ordered with";
  // a blocking stream waits for the legacy stream
  ASSERT_EQ(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(ZCOLL_LAUNCH(k_copy, 2, 128, blocking, dx.p, dy.p, n), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(y.data(), dy.p, n * 4, cudaMemcpyDeviceToHost, blocking), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(blocking), cudaSuccess);
  EXPECT_EQ(y[10], 10.0f);
  // an event orders the non-blocking stream after the legacy one
  ASSERT_EQ(cudaMemset(dy.p, 0, n * 4), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dx.p, y.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  cudaEvent_t up;
  ASSERT_EQ(cudaEventCreate(&up), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(up, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(nb, up, 0), cudaSuccess);
  ASSERT_EQ(ZCOLL_LAUNCH(k_copy, 2, 128, nb, dx.p, dy.p, n), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nb), cudaSuccess);
  EXPECT_EQ(dy.get()[999], 999.0f);
  // the sync schedule runs everything at once
  zcoll::emu::set_schedule(zcoll::emu::Schedule::kSync);
  ASSERT_EQ(cudaMemcpy(dx.p, x.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(ZCOLL_LAUNCH(k_copy, 2, 128, nb, dx.p, dy.p, n), cudaSuccess);
  EXPECT_EQ(dy.get()[7], 7.0f);
  cudaEventDestroy(up);
  cudaStreamDestroy(nb);
  cudaStreamDestroy(blocking);
}

TEST_F(Emu, AsyncCopyFromPinnedMemoryReadsItWhenItRuns) {
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void**>(&pinned), 64), cudaSuccess);
  DevBuf<float> d(16);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  pinned[0] = 1;
  ASSERT_EQ(cudaMemcpyAsync(d.p, pinned, 64, cudaMemcpyHostToDevice, s), cudaSuccess);
  pinned[0] = 2;  // reusing the buffer before the copy ran: the device sees 2
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(d.get()[0], 2.0f);
  cudaStreamDestroy(s);
  cudaFreeHost(pinned);
}

TEST_F(Emu, PoolsKeepMemoryUpToTheirReleaseThreshold) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  auto round = [&](cudaMemPool_t pool) {
    void* p = nullptr;
    EXPECT_EQ(pool ? cudaMallocFromPoolAsync(&p, 5000, pool, s) : cudaMallocAsync(&p, 5000, s),
              cudaSuccess);
    EXPECT_EQ(cudaFreeAsync(p, s), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  };
  // the default pool (release threshold 0): each synchronization gives it back
  round(nullptr);
  const auto a = zcoll::emu::stats();
  round(nullptr);
  const auto b = zcoll::emu::stats();
  EXPECT_EQ(b.driver_allocations - a.driver_allocations, 1u);
  EXPECT_EQ(b.driver_releases - a.driver_releases, 1u);
  // a pool that keeps what it had
  cudaMemPool_t pool;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  ASSERT_EQ(cudaMemPoolCreate(&pool, &props), cudaSuccess);
  uint64_t keep = UINT64_MAX;
  ASSERT_EQ(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep), cudaSuccess);
  round(pool);
  const auto c = zcoll::emu::stats();
  round(pool);
  round(pool);
  const auto d = zcoll::emu::stats();
  EXPECT_EQ(d.driver_allocations, c.driver_allocations);
  EXPECT_EQ(d.pool_reuses - c.pool_reuses, 2u);
  EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
  cudaStreamDestroy(s);
}

// ---- the aborts ---------------------------------------------------------------------
TEST_F(Emu, AbortsOnABarrierInDivergentCode) {
  DevBuf<int> out(64);
  EXPECT_DEATH((ZCOLL_LAUNCH(k_divergent_barrier, 1, 64, nullptr, out.p), cudaDeviceSynchronize()),
               "barrier in divergent code");
  EXPECT_DEATH((ZCOLL_LAUNCH(k_two_barriers, 1, 64, nullptr, out.p), cudaDeviceSynchronize()),
               "__syncthreads at .*emu_test.cc:[0-9]+ reached while .*wait at __syncthreads at "
               ".*emu_test.cc:[0-9]+: a barrier in divergent code");
}

TEST_F(Emu, AbortsOnAShuffleWithAPartialMask) {
  DevBuf<int> out(32);
  EXPECT_DEATH((ZCOLL_LAUNCH(k_partial_mask, 1, 32, nullptr, out.p), cudaDeviceSynchronize()),
               "__shfl_xor_sync at .*emu_test.cc:[0-9]+ with mask 0x0000ffff.*partial mask");
}

TEST_F(Emu, AbortsOnDivergentWarpOperations) {
  DevBuf<int> out(32);
  EXPECT_DEATH((ZCOLL_LAUNCH(k_divergent_shuffle, 1, 32, nullptr, out.p), cudaDeviceSynchronize()),
               "divergent warp operation");
  EXPECT_DEATH((ZCOLL_LAUNCH(k_lane_exits, 1, 32, nullptr, out.p), cudaDeviceSynchronize()),
               "exited");
}

TEST_F(Emu, AbortsOnAWaitForAnotherBlock) {
  DevBuf<int> flag(1);
  ASSERT_EQ(cudaMemset(flag.p, 0, 4), cudaSuccess);
  EXPECT_DEATH((ZCOLL_LAUNCH(k_wait_for_block, 2, 32, nullptr, flag.p), cudaDeviceSynchronize()),
               "a wait for another block.*in kernel k_wait_for_block launched at .*emu_test.cc.*"
               "block \\(0,0,0\\), thread \\(0,0,0\\)");
}

TEST_F(Emu, AbortsOnAWaitItCannotSee) {
  // a wait on a volatile load (no emulated operation at all): the stall watchdog
  DevBuf<int> flag(1);
  ASSERT_EQ(cudaMemset(flag.p, 0, 4), cudaSuccess);
  EXPECT_DEATH(
      {
        setenv("ZCOLL_EMU_STALL_SECONDS", "2", 1);
        ZCOLL_LAUNCH(k_volatile_wait, 2, 32, nullptr, flag.p);
        cudaDeviceSynchronize();
      },
      "no progress for 2 s in kernel k_volatile_wait \\(block 0, thread 0\\)");
}

TEST_F(Emu, AbortsOnOverlappingCopies) {
  DevBuf<char> d(100);
  EXPECT_DEATH((cudaMemcpy(d.p + 10, d.p, 50, cudaMemcpyDeviceToDevice), cudaDeviceSynchronize()),
               "overlap");
}

TEST_F(Emu, DeviceMemoryEndsAtAGuard) {
  char* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), 4096), cudaSuccess);
  d[4095] = 1;  // the last byte is there
  EXPECT_DEATH(d[4096 + 300] = 1, "");
  cudaFree(d);
}

}  // namespace
