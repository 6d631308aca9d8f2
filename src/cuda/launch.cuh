// launch.cuh — the one way this project launches a kernel:
//
//   cudaError_t e = ZCOLL_LAUNCH(kernel, grid, block, stream, args...);
//
// Under nvcc it is kernel<<<grid, block, 0, stream>>>(args...); in the host
// build against zcoll's CUDA emulation (ZCOLL_CUDA_EMU, tests/support/cuda_emu) the
// emulator runs the grid, and knows the kernel's name and launch site for its
// diagnostics. It evaluates to the launch's status (cudaGetLastError() after the
// launch), so that a sequence of kernels can stop at the first launch that
// failed: a later kernel would read state the failed one never wrote. A kernel
// name with a comma goes in parentheses: ZCOLL_LAUNCH((k<T, OP>), ...).
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace zcoll::cuda {

template <typename... P, typename... A>
inline cudaError_t launch(const char* name, const char* file, int line, void (*kernel)(P...),
                          dim3 grid, dim3 block, cudaStream_t stream, A&&... args) {
#if defined(ZCOLL_CUDA_EMU)
  ::zcoll::emu::launch(kernel, grid, block, 0, stream, name, file, line, std::forward<A>(args)...);
#else
  (void)name, (void)file, (void)line;
  // (clang-format would split the chevrons)
  // clang-format off
  kernel<<<grid, block, 0, stream>>>(std::forward<A>(args)...);
  // clang-format on
#endif
  return cudaGetLastError();
}

}  // namespace zcoll::cuda

#define ZCOLL_LAUNCH(kernel, grid, block, stream, ...) \
  ::zcoll::cuda::launch(#kernel, __FILE__, __LINE__, kernel, grid, block, stream, __VA_ARGS__)
