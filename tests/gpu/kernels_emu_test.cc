// kernels_emu_test.cc — single kernels of src/cuda/kernels.cuh on zcoll's CUDA
// emulation, on device states no zcoll_cuda_* call can produce (label gpu_emu).
// Built with -ftrivial-auto-var-init=pattern where the compiler has it, so that
// a value read before it is written is a recognizable pattern, not a lucky 0.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

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

// CRC-32C bit by bit, the reference of docs/format.md §3.
uint32_t crc32c_bitwise(const std::vector<uint8_t>& bytes) {
  uint32_t crc = 0xFFFFFFFFu;
  for (uint8_t b : bytes) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// k_write_header's checksum, computed by the whole block in pieces joined by
// powers of x, is the CRC-32C of header bytes [0,44) and the padded index, for
// index sizes below, at and above one byte per thread (the pieces are 1, 2, 4...
// bytes; a string shorter than the block is padded in front) and both block
// sizes the kernels use.
TEST(GpuKernels, HeaderChecksumOfEveryIndexSize) {
  const zcoll::cuda::CrcPowers pw = zcoll::cuda::crc_powers();
  uint32_t seed = 12345;
  for (int threads : {256, 1024})
    for (uint64_t chunks : {0, 1, 2, 3, 7, 245, 246, 247, 1000, 1013, 4097, 20000}) {
      SCOPED_TRACE("threads " + std::to_string(threads) + " chunks " + std::to_string(chunks));
      DevState s{};
      s.out.dtype = ZCOLL_FLOAT32;
      s.out.chunk_size = 1024;
      s.out.divisor = s.out.terms = 1;
      s.out.n = chunks * 1024;
      s.out.chunks = chunks;
      s.out.eb = 1e-3;
      s.out.quantum = 2e-3;
      s.out.data_begin = 48 + (4 * chunks + 7) / 8 * 8;
      std::vector<uint8_t> bytes(s.out.data_begin);
      for (auto& b : bytes) b = static_cast<uint8_t>((seed = seed * 1103515245u + 12345u) >> 24);
      DevState* d = nullptr;
      uint8_t* dst = nullptr;
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), sizeof s), cudaSuccess);
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), bytes.size()), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(d, &s, sizeof s, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(cudaMemcpy(dst, bytes.data(), bytes.size(), cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_EQ(ZCOLL_LAUNCH(zcoll::cuda::k_write_header, 1, threads, nullptr, d, dst, pw),
                cudaSuccess);
      ASSERT_EQ(cudaMemcpy(bytes.data(), dst, bytes.size(), cudaMemcpyDeviceToHost), cudaSuccess);
      cudaFree(dst);
      cudaFree(d);
      std::vector<uint8_t> covered(bytes.begin(), bytes.begin() + 44);
      covered.insert(covered.end(), bytes.begin() + 48, bytes.end());
      const uint32_t want = crc32c_bitwise(covered);
      uint32_t got;
      std::memcpy(&got, bytes.data() + 44, 4);
      EXPECT_EQ(got, want);
    }
}

}  // namespace
