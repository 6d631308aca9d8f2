// emu.h — zcoll's emulation of the CUDA runtime and of the execution of
// kernels, for running the CUDA code of src/cuda on a CPU (CI has no GPU).
// docs/gpu.md ("The CUDA code on the CPU") says what it proves and what not.
//
// Execution. A launch (src/cuda/launch.cuh, the one way this project launches
// a kernel) enqueues the grid on its stream. When the grid runs, its blocks run
// one after another on the calling thread, in order (ZCOLL_EMU_BLOCK_ORDER=
// reverse: last first); the threads of a block are fibers that switch only
// at __syncthreads*, __syncwarp and the warp shuffles, votes and ballots, which
// are rendezvous of the block or of the warp. __shared__ variables are static:
// one instance, used by one block at a time. Atomics are plain operations
// (nothing runs concurrently).
//
// The emulation aborts the process, with the kernel, its launch site, the block
// and the threads involved, where CUDA leaves the outcome undefined or a GPU
// would hang:
//  - a block barrier (__syncthreads, _or/_and/_count) not reached by every
//    thread of the block at the same place (divergent code, or threads that
//    exited before it);
//  - a warp operation whose mask is not the whole warp (this project uses
//    full-warp masks only), or that the lanes of a warp reach at different
//    places or with lanes missing;
//  - a wait on another block (which never runs meanwhile): the same atomic
//    read without change 2^20 times in a row, __nanosleep 2^16 times, or no
//    progress at all for ZCOLL_EMU_STALL_SECONDS (default 120) seconds.
//
// Streams. ZCOLL_EMU_SCHEDULE=lazy (the default) runs enqueued work at the
// latest point the CUDA rules allow: when the host waits for it (stream, event
// or device synchronization, a synchronous copy to the host, cudaFree) or when
// work ordered after it must run. The legacy default stream (0) orders against
// blocking streams and not against cudaStreamNonBlocking ones. A copy from
// pageable host memory reads its source at once; a synchronous copy from
// pageable memory to the device returns before the device has the data
// (cudaMemcpy's documented behaviour). So a missing synchronization shows as
// stale data. ZCOLL_EMU_SCHEDULE=sync runs everything at once.
//
// Memory. Device allocations are host memory ending at a guard page (under
// AddressSanitizer: heap blocks with redzones), filled with 0xFF bytes (NaN) on
// allocation. cudaMallocAsync takes memory from a pool that keeps freed blocks
// of the same size up to its release threshold (CUDA's default: 0, so every
// synchronization gives them back) — the stats below count what went to the
// "driver".
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

namespace zcoll::emu {

// ---- launching ---------------------------------------------------------------
// The body runs once per thread of the grid (it calls the kernel with the
// parameters copied at launch). Records and returns the launch status
// (cudaGetLastError() then returns it too, as after <<<>>>).
// name, file, line: the kernel and its launch site, for diagnostics.
ZCOLL_EMU_API cudaError_t launch_body(dim3 grid, dim3 block, size_t shared_bytes,
                                      cudaStream_t stream, std::function<void()> body,
                                      const char* name, const char* file, int line);

template <typename... P, typename... A>
cudaError_t launch(void (*kernel)(P...), dim3 grid, dim3 block, size_t shared_bytes,
                   cudaStream_t stream, const char* name, const char* file, int line, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "kernel launched with a wrong argument count");
  // the arguments converted to the parameter types at the launch, as <<<>>> does
  auto params = std::make_shared<std::tuple<std::decay_t<P>...>>(std::forward<A>(args)...);
  return launch_body(
      grid, block, shared_bytes, stream, [kernel, params] { std::apply(kernel, *params); }, name,
      file, line);
}

// ---- what tests look at and inject ------------------------------------------
struct Stats {
  uint64_t launches = 0;   // kernel launches accepted
  uint64_t grids_run = 0;  // of them, grids that ran
  uint64_t blocks_run = 0;
  uint64_t threads_run = 0;            // threads of those blocks
  uint64_t driver_allocations = 0;     // device memory taken from the "driver" (not a pool's cache)
  uint64_t driver_releases = 0;        // device memory given back to it
  uint64_t pool_reuses = 0;            // cudaMalloc*Async served from a pool's cache
  uint64_t async_bytes_requested = 0;  // sum of cudaMalloc*Async sizes
  size_t last_async_request = 0;       // size of the latest cudaMalloc*Async
  size_t device_bytes_live = 0;  // device memory allocated and not freed (pool caches excluded)
  size_t pinned_bytes_live = 0;  // cudaMallocHost memory not freed
};
ZCOLL_EMU_API Stats stats();

enum class Schedule { kLazy, kSync };
ZCOLL_EMU_API void set_schedule(Schedule s);  // default: ZCOLL_EMU_SCHEDULE, else lazy
ZCOLL_EMU_API Schedule schedule();

// Fault injection: the k-th call from now (k >= 1) of the kind fails; 0 disarms.
//   allocations: of `kind` (any: cudaMalloc, cudaMallocAsync,
//             cudaMallocFromPoolAsync, cudaMallocHost) fail with
//             cudaErrorMemoryAllocation
//   launches: a kernel launch fails with cudaErrorLaunchOutOfResources (the grid
//             does not run)
enum class Alloc { kAny, kDevice /* cudaMalloc */, kPool /* cudaMalloc*Async */, kHost };
ZCOLL_EMU_API void fail_malloc_after(int k, Alloc kind = Alloc::kAny);
ZCOLL_EMU_API void fail_launch_after(int k);

// ---- device side (called by the intrinsics of cuda_runtime.h) ----------------
namespace detail {

struct ThreadView {  // first member of the emulator's per-thread state
  uint3 thread_idx;
};
struct GridView {
  uint3 block_idx;
  dim3 block_dim;
  dim3 grid_dim;
};
extern ZCOLL_EMU_API ThreadView* g_thread;  // the running thread (kernels run one at a time)
extern ZCOLL_EMU_API GridView g_grid;

enum BarrierKind : int { kSync = 0, kSyncOr, kSyncAnd, kSyncCount };
enum WarpKind : int { kShfl = 0, kShflUp, kShflDown, kShflXor, kBallot, kAny, kAll, kSyncWarp };

ZCOLL_EMU_API int barrier(int kind, int predicate, const char* file, int line);
ZCOLL_EMU_API uint64_t warp(int kind, unsigned mask, uint64_t value, int arg, int width,
                            const char* file, int line);
// An atomic on addr that left memory unchanged (changed = false) or not: the
// watchdog of waits on other blocks.
ZCOLL_EMU_API void atomic_done(const void* addr, bool changed);
ZCOLL_EMU_API void nanosleep_done();
[[noreturn]] ZCOLL_EMU_API void device_abort(const char* what, const char* file, int line);

}  // namespace detail
}  // namespace zcoll::emu
