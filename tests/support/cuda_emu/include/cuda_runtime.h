// cuda_runtime.h — zcoll's CUDA emulation (see cuda_runtime_api.h and
// ../emu.h): the host API plus what device code uses — the execution-space
// keywords, threadIdx & co., barriers, warp shuffles / votes / ballots,
// atomics and the bit and math intrinsics of src/cuda. A barrier or warp
// operation records its call site (file:line) so that the emulation can tell
// divergent code from a rendezvous.
#pragma once

#include <math.h>  // ::fmin, ::isnan, ... in the global namespace, as device code sees them
#include <string.h>

#include <cstdint>
#include <cstring>

#include "cuda_runtime_api.h"
#include "cuda_emu/emu.h"

// The names below are CUDA's own (__syncthreads, __shfl_sync, __host__, ...):
// reserved identifiers by the C++ standard, defined here because the emulated
// device code calls them by those names.
// NOLINTBEGIN(bugprone-reserved-identifier)
#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __restrict__ __restrict
// One static instance per variable: blocks run one at a time.
#define __shared__ static

#define threadIdx (::zcoll::emu::detail::g_thread->thread_idx)
#define blockIdx (::zcoll::emu::detail::g_grid.block_idx)
#define blockDim (::zcoll::emu::detail::g_grid.block_dim)
#define gridDim (::zcoll::emu::detail::g_grid.grid_dim)
constexpr int warpSize = 32;

// ---- barriers -------------------------------------------------------------------
inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  ::zcoll::emu::detail::barrier(::zcoll::emu::detail::kSync, 0, file, line);
}
inline int __syncthreads_or(int p, const char* file = __builtin_FILE(),
                            int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::barrier(::zcoll::emu::detail::kSyncOr, p, file, line);
}
inline int __syncthreads_and(int p, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::barrier(::zcoll::emu::detail::kSyncAnd, p, file, line);
}
inline int __syncthreads_count(int p, const char* file = __builtin_FILE(),
                               int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::barrier(::zcoll::emu::detail::kSyncCount, p, file, line);
}
inline void __syncwarp(unsigned mask = 0xFFFFFFFFu, const char* file = __builtin_FILE(),
                       int line = __builtin_LINE()) {
  ::zcoll::emu::detail::warp(::zcoll::emu::detail::kSyncWarp, mask, 0, 0, 32, file, line);
}
inline void __threadfence() {}  // the memory model is not emulated (docs/gpu.md)
inline void __threadfence_block() {}
inline void __nanosleep(unsigned) { ::zcoll::emu::detail::nanosleep_done(); }

// ---- warp shuffles, votes, ballots ----------------------------------------------
namespace zcoll::emu::detail {
template <typename T>
inline T shuffle(int kind, unsigned mask, T v, int arg, int width, const char* file, int line) {
  static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "shuffle of this type");
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  bits = warp(kind, mask, bits, arg, width, file, line);
  T r;
  std::memcpy(&r, &bits, sizeof(T));
  return r;
}
}  // namespace zcoll::emu::detail

template <typename T>
inline T __shfl_sync(unsigned mask, T v, int src_lane, int width = 32,
                     const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::shuffle(::zcoll::emu::detail::kShfl, mask, v, src_lane, width, file,
                                       line);
}
template <typename T>
inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32,
                        const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::shuffle(::zcoll::emu::detail::kShflUp, mask, v,
                                       static_cast<int>(delta), width, file, line);
}
template <typename T>
inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32,
                          const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::shuffle(::zcoll::emu::detail::kShflDown, mask, v,
                                       static_cast<int>(delta), width, file, line);
}
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32,
                         const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
  return ::zcoll::emu::detail::shuffle(::zcoll::emu::detail::kShflXor, mask, v, lane_mask, width,
                                       file, line);
}
inline unsigned __ballot_sync(unsigned mask, int p, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE()) {
  return static_cast<unsigned>(
      ::zcoll::emu::detail::warp(::zcoll::emu::detail::kBallot, mask, p != 0, 0, 32, file, line));
}
inline int __any_sync(unsigned mask, int p, const char* file = __builtin_FILE(),
                      int line = __builtin_LINE()) {
  return static_cast<int>(
      ::zcoll::emu::detail::warp(::zcoll::emu::detail::kAny, mask, p != 0, 0, 32, file, line));
}
inline int __all_sync(unsigned mask, int p, const char* file = __builtin_FILE(),
                      int line = __builtin_LINE()) {
  return static_cast<int>(
      ::zcoll::emu::detail::warp(::zcoll::emu::detail::kAll, mask, p != 0, 0, 32, file, line));
}

// ---- atomics (device memory or shared; integer and floating types as in CUDA) ----
namespace zcoll::emu::detail {
template <typename T>
struct Same {
  using type = T;
};
template <typename T>
using same_t = typename Same<T>::type;
}  // namespace zcoll::emu::detail

template <typename T>
inline T atomicAdd(T* p, ::zcoll::emu::detail::same_t<T> v) {
  const T old = *p;
  *p = static_cast<T>(old + v);
  ::zcoll::emu::detail::atomic_done(p, *p != old);
  return old;
}
template <typename T>
inline T atomicSub(T* p, ::zcoll::emu::detail::same_t<T> v) {
  const T old = *p;
  *p = static_cast<T>(old - v);
  ::zcoll::emu::detail::atomic_done(p, *p != old);
  return old;
}
template <typename T>
inline T atomicExch(T* p, ::zcoll::emu::detail::same_t<T> v) {
  const T old = *p;
  *p = v;
  ::zcoll::emu::detail::atomic_done(p, v != old);
  return old;
}
template <typename T>
inline T atomicMax(T* p, ::zcoll::emu::detail::same_t<T> v) {
  const T old = *p;
  if (v > old) *p = v;
  ::zcoll::emu::detail::atomic_done(p, v > old);
  return old;
}
template <typename T>
inline T atomicMin(T* p, ::zcoll::emu::detail::same_t<T> v) {
  const T old = *p;
  if (v < old) *p = v;
  ::zcoll::emu::detail::atomic_done(p, v < old);
  return old;
}
template <typename T>
inline T atomicCAS(T* p, ::zcoll::emu::detail::same_t<T> compare,
                   ::zcoll::emu::detail::same_t<T> v) {
  static_assert(std::is_integral<T>::value, "atomicCAS takes integers");
  const T old = *p;
  if (old == compare) *p = v;
  ::zcoll::emu::detail::atomic_done(p, old == compare && v != old);
  return old;
}
template <typename T>
inline T atomicOr(T* p, ::zcoll::emu::detail::same_t<T> v) {
  static_assert(std::is_integral<T>::value, "atomicOr takes integers");
  const T old = *p;
  *p = static_cast<T>(old | v);
  ::zcoll::emu::detail::atomic_done(p, *p != old);
  return old;
}
template <typename T>
inline T atomicAnd(T* p, ::zcoll::emu::detail::same_t<T> v) {
  static_assert(std::is_integral<T>::value, "atomicAnd takes integers");
  const T old = *p;
  *p = static_cast<T>(old & v);
  ::zcoll::emu::detail::atomic_done(p, *p != old);
  return old;
}

// ---- bit and type-punning intrinsics ---------------------------------------------
inline int __clz(int x) { return x ? __builtin_clz(static_cast<unsigned>(x)) : 32; }
inline int __clzll(long long x) {
  return x ? __builtin_clzll(static_cast<unsigned long long>(x)) : 64;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline double __longlong_as_double(long long x) {
  double d;
  std::memcpy(&d, &x, sizeof d);
  return d;
}
inline long long __double_as_longlong(double d) {
  long long x;
  std::memcpy(&x, &d, sizeof x);
  return x;
}
inline float __int_as_float(int x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}
inline int __float_as_int(float f) {
  int x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}
inline unsigned __float_as_uint(float f) {
  unsigned x;
  std::memcpy(&x, &f, sizeof x);
  return x;
}
inline float __uint_as_float(unsigned x) {
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

// NOLINTEND(bugprone-reserved-identifier)

// CUDA's integer min / max overloads
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
