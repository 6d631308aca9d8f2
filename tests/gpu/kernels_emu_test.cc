// kernels_emu_test.cc — single kernels of src/cuda/kernels.cuh on zcoll's CUDA
// emulation, on device states no zcoll_cuda_* call can produce (label gpu_emu).
// Built with -ftrivial-auto-var-init=pattern where the compiler has it, so that
// a value read before it is written is a recognizable pattern, not a lucky 0.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <limits>

#include "cuda/kernels.cuh"
#include "cuda/launch.cuh"

namespace {

using zcoll::cuda::DevState;

DevState run_pair(const zcoll::cuda::DevHeader& h, int doc, uint64_t scratch = uint64_t{1} << 30) {
  DevState s{};
  s.in[0] = s.in[1] = h;
  DevState* d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), sizeof s), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(d, &s, sizeof s, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(ZCOLL_LAUNCH(zcoll::cuda::k_pair, 1, 1, nullptr, d, zcoll::cuda::kHomAdd,
                         uint64_t{1} << 30, scratch, doc),
            cudaSuccess);
  EXPECT_EQ(cudaMemcpy(&s, d, sizeof s, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return s;
}

// k_pair for DOC makes the quantizer of the streams' quantum; when it cannot,
// it reports the stream as corrupt and stores nothing of the quantizer (issue
// 25, defect 8: it stored q.inv and q.eb_check uninitialized, or infinite).
TEST(GpuKernels, PairStoresNoQuantizerItCouldNotMake) {
  for (double quantum : {std::numeric_limits<double>::quiet_NaN(), -1.0, 4.9e-324}) {
    for (uint32_t dtype : {uint32_t{ZCOLL_FLOAT32}, uint32_t{ZCOLL_FLOAT64}}) {
      SCOPED_TRACE("quantum " + std::to_string(quantum) + " dtype " + std::to_string(dtype));
      zcoll::cuda::DevHeader h{};
      h.dtype = dtype;
      h.chunk_size = 1024;
      h.divisor = h.terms = 1;
      h.n = 100;
      h.chunks = 1;
      h.eb = 1e-3;
      h.quantum = quantum;
      const DevState s = run_pair(h, 1);
      EXPECT_EQ(s.status, ZCOLL_ERR_CORRUPT);
      EXPECT_EQ(s.inv, 0.0);
      EXPECT_EQ(s.eb_check, 0.0);
      EXPECT_EQ(s.quantum, 0.0);
    }
  }
  // and a usable quantum is stored
  zcoll::cuda::DevHeader h{};
  h.dtype = ZCOLL_FLOAT64;
  h.chunk_size = 1024;
  h.divisor = h.terms = 1;
  h.n = 100;
  h.chunks = 1;
  h.eb = 1e-3;
  h.quantum = 2e-3;
  const DevState s = run_pair(h, 1);
  EXPECT_EQ(s.status, 0);
  EXPECT_EQ(s.quantum, 2e-3);
  EXPECT_EQ(s.inv, 1.0 / 2e-3);
}

// A result larger than the temporary memory the host sized for it is an
// internal error before any kernel writes it (api.cu sizes that memory from the
// streams' sizes: issue 25, defect 3).
TEST(GpuKernels, PairChecksTheScratchSize) {
  zcoll::cuda::DevHeader h{};
  h.dtype = ZCOLL_FLOAT32;
  h.chunk_size = 1024;
  h.divisor = h.terms = 1;
  h.n = 5000;
  h.chunks = 5;
  h.eb = 1e-3;
  h.quantum = 2e-3;
  const uint64_t need = zcoll::compress_bound_hd(h.n, 4);
  EXPECT_EQ(run_pair(h, 0, need).status, 0);
  const DevState s = run_pair(h, 0, need - 1);
  EXPECT_EQ(s.status, ZCOLL_ERR_INTERNAL);
  EXPECT_EQ(s.reason, zcoll::cuda::kScratchTooSmall);
  EXPECT_EQ(s.detail, need);
}

}  // namespace
