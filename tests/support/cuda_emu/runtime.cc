// runtime.cc — the host API of the CUDA emulation (cuda_runtime_api.h, emu.h):
// one device, its memory, streams and events, memory pools, launches. Work
// enqueued on a stream runs when the host needs it (lazy) or at once (sync).
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cuda_emu/internal.h"

#if defined(__SANITIZE_ADDRESS__)
#define ZCOLL_EMU_ASAN 1
#endif

struct CUstream_st {};
struct CUevent_st {};
struct CUmemPoolHandle_st {};

namespace zcoll::emu {
namespace internal {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// ---- memory blocks -----------------------------------------------------------
struct Pool;
struct Mem {
  char* ptr = nullptr;   // what the user sees
  size_t size = 0;       // as asked
  size_t usable = 0;     // rounded up to 256
  void* base = nullptr;  // the mapping / heap block
  size_t map_size = 0;
  cudaMemoryType type = cudaMemoryTypeDevice;
  Pool* pool = nullptr;  // cudaMalloc*Async memory
};

struct Pool : CUmemPoolHandle_st {
  uint64_t threshold = 0;             // CUDA's default release threshold
  std::multimap<size_t, Mem*> cache;  // freed blocks by usable size
  size_t cached = 0, used = 0, used_high = 0, reserved_high = 0;
  bool destroyed = false;
};

// ---- streams and events ------------------------------------------------------
struct Stream;
struct Op {
  uint64_t seq = 0;
  std::vector<std::pair<Stream*, uint64_t>> deps;  // run these streams up to seq first
  std::function<void()> fn;
};
struct Stream : CUstream_st {
  unsigned flags = 0;
  bool legacy = false;
  std::deque<Op> q;
  uint64_t last = 0;  // seq of the latest op enqueued
};
struct Event : CUevent_st {
  Stream* stream = nullptr;
  uint64_t seq = 0;
  bool recorded = false, done = false;
  double t = 0;
};

struct Device {
  int count = 1;  // ZCOLL_EMU_DEVICES
  int sms = 4;    // ZCOLL_EMU_SMS
  Schedule schedule = Schedule::kLazy;
  cudaError_t last_error = cudaSuccess;
  std::map<uintptr_t, Mem*> live;  // by ptr
  Pool default_pool;
  std::set<Pool*> pools;
  Stream legacy;
  std::vector<std::unique_ptr<Stream>> streams;  // every stream made (destroyed ones stay)
  std::set<Stream*> valid_streams;
  std::set<Event*> events;
  uint64_t seq = 0;
  int fail_malloc = 0, fail_launch = 0;
  Alloc fail_kind = Alloc::kAny;
  Stats stats;
  Device() {
    legacy.legacy = true;
    const char* d = std::getenv("ZCOLL_EMU_DEVICES");
    if (d) count = std::atoi(d);
    sms = static_cast<int>(env_unsigned("ZCOLL_EMU_SMS", 4));
    if (sms < 1) sms = 1;
    const char* s = std::getenv("ZCOLL_EMU_SCHEDULE");
    if (s && std::strcmp(s, "sync") == 0) schedule = Schedule::kSync;
    pools.insert(&default_pool);
  }
};
Device& dev() {
  static Device* d = new Device;  // never destroyed: other static destructors may still call in
  return *d;
}

cudaError_t ret(cudaError_t e) {
  if (e != cudaSuccess) dev().last_error = e;
  return e;
}

// ---- allocation ----------------------------------------------------------------
size_t round256(size_t n) { return ((n ? n : 1) + 255) / 256 * 256; }

// The emulated device's memory (cudaGetDeviceProperties' totalGlobalMem): no
// single allocation may be larger.
constexpr size_t kDeviceBytes = size_t{16} << 30;

Mem* driver_alloc(size_t size, cudaMemoryType type) {
  if (size > kDeviceBytes) return nullptr;
  auto m = std::make_unique<Mem>();
  m->size = size;
  m->usable = round256(size);
  m->type = type;
#if defined(ZCOLL_EMU_ASAN)
  // heap blocks: AddressSanitizer's redzones catch the first byte past `size`
  void* p = nullptr;
  if (posix_memalign(&p, 256, size ? size : 1) != 0) return nullptr;
  m->base = p;
  m->ptr = static_cast<char*>(p);
#else
  // the block ends where a guard page begins: an access past the rounded size faults
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t map = (m->usable + page - 1) / page * page + page;
  void* b = mmap(nullptr, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (b == MAP_FAILED) return nullptr;
  char* guard = static_cast<char*>(b) + map - page;
  mprotect(guard, page, PROT_NONE);
  m->base = b;
  m->map_size = map;
  m->ptr = guard - m->usable;
#endif
  if (type != cudaMemoryTypeHost) ++dev().stats.driver_allocations;
  return m.release();
}

void driver_release(Mem* m) {
#if defined(ZCOLL_EMU_ASAN)
  std::free(m->base);
#else
  munmap(m->base, m->map_size);
#endif
  if (m->type != cudaMemoryTypeHost) ++dev().stats.driver_releases;
  delete m;
}

void poison(Mem* m) { std::memset(m->ptr, 0xFF, m->size); }

void track(Mem* m) {
  Device& d = dev();
  d.live[reinterpret_cast<uintptr_t>(m->ptr)] = m;
  if (m->type == cudaMemoryTypeHost)
    d.stats.pinned_bytes_live += m->size;
  else
    d.stats.device_bytes_live += m->size;
}
void untrack(Mem* m) {
  Device& d = dev();
  d.live.erase(reinterpret_cast<uintptr_t>(m->ptr));
  if (m->type == cudaMemoryTypeHost)
    d.stats.pinned_bytes_live -= m->size;
  else
    d.stats.device_bytes_live -= m->size;
}

// The block holding p (nullptr: host memory the emulation does not know).
Mem* find(const void* p) {
  Device& d = dev();
  const auto a = reinterpret_cast<uintptr_t>(p);
  auto it = d.live.upper_bound(a);
  if (it == d.live.begin()) return nullptr;
  --it;
  Mem* m = it->second;
  return a < it->first + (m->size ? m->size : 1) ? m : nullptr;
}

bool injected_malloc_failure(Alloc kind) {
  Device& d = dev();
  if (d.fail_kind != Alloc::kAny && d.fail_kind != kind) return false;
  return d.fail_malloc > 0 && --d.fail_malloc == 0;
}

// ---- stream work -----------------------------------------------------------------
cudaError_t resolve(cudaStream_t h, Stream** s) {
  Device& d = dev();
  if (h == nullptr || h == cudaStreamLegacy || h == cudaStreamPerThread) {
    *s = &d.legacy;
    return cudaSuccess;
  }
  auto* p = static_cast<Stream*>(h);
  if (!d.valid_streams.count(p)) return cudaErrorInvalidResourceHandle;
  *s = p;
  return cudaSuccess;
}

void run_until(Stream* s, uint64_t seq) {
  while (!s->q.empty() && s->q.front().seq <= seq) {
    Op op = std::move(s->q.front());
    s->q.pop_front();
    for (auto& dep : op.deps) run_until(dep.first, dep.second);
    op.fn();
  }
}

// Enqueue fn on s with the legacy default stream's ordering: work on the legacy
// stream waits for every blocking stream, work on a blocking stream for the
// legacy stream; cudaStreamNonBlocking streams order only among themselves.
uint64_t enqueue(Stream* s, std::function<void()> fn,
                 std::vector<std::pair<Stream*, uint64_t>> deps = {}) {
  Device& d = dev();
  Op op;
  op.seq = ++d.seq;
  op.deps = std::move(deps);
  if (s->legacy) {
    for (auto& u : d.streams)
      if (!(u->flags & cudaStreamNonBlocking) && !u->q.empty())
        op.deps.emplace_back(u.get(), u->last);
  } else if (!(s->flags & cudaStreamNonBlocking) && !d.legacy.q.empty()) {
    op.deps.emplace_back(&d.legacy, d.legacy.last);
  }
  op.fn = std::move(fn);
  s->last = op.seq;
  const uint64_t seq = op.seq;
  s->q.push_back(std::move(op));
  if (d.schedule == Schedule::kSync) run_until(s, seq);
  return seq;
}

void trim(Pool* p, size_t keep) {
  while (p->cached > keep && !p->cache.empty()) {
    auto it = std::prev(p->cache.end());
    p->cached -= it->second->usable;
    driver_release(it->second);
    p->cache.erase(it);
  }
}
// Synchronization points release pool memory above each pool's threshold.
void trim_pools() {
  for (Pool* p : dev().pools) trim(p, p->threshold);
}

void run_all() {
  Device& d = dev();
  for (;;) {
    Stream* first = d.legacy.q.empty() ? nullptr : &d.legacy;
    for (auto& u : d.streams)
      if (!u->q.empty() && (!first || u->q.front().seq < first->q.front().seq)) first = u.get();
    if (!first) return;
    run_until(first, first->q.front().seq);
  }
}

bool no_device() { return dev().count < 1; }

// ---- copies ------------------------------------------------------------------------
enum Where { kPageable, kPinned, kOnDevice };

cudaError_t where(const void* p, size_t n, Where* w) {
  Mem* m = find(p);
  if (!m) {
    *w = kPageable;
    return cudaSuccess;
  }
  const auto off = static_cast<size_t>(static_cast<const char*>(p) - m->ptr);
  if (n > m->size - off) return cudaErrorInvalidValue;  // past the allocation
  *w = m->type == cudaMemoryTypeHost ? kPinned : kOnDevice;
  return cudaSuccess;
}

void copy_now(void* dst, const void* src, size_t n) {
  const auto d = reinterpret_cast<uintptr_t>(dst), s = reinterpret_cast<uintptr_t>(src);
  if (d < s + n && s < d + n && d != s)
    die("cudaMemcpy*: source and destination overlap (%p, %p, %zu bytes): undefined in CUDA", src,
        dst, n);
  std::memcpy(dst, src, n);
}

cudaError_t memcpy_impl(void* dst, const void* src, size_t n, cudaMemcpyKind kind, cudaStream_t h,
                        bool async) {
  if (no_device()) return ret(cudaErrorNoDevice);
  if (n == 0) return cudaSuccess;
  if (!dst || !src) return ret(cudaErrorInvalidValue);
  Stream* s = nullptr;
  if (cudaError_t e = resolve(async ? h : nullptr, &s)) return ret(e);
  Where wd, ws;
  if (cudaError_t e = where(dst, n, &wd)) return ret(e);
  if (cudaError_t e = where(src, n, &ws)) return ret(e);
  // an explicit direction must name device memory where it says device
  const bool dev_dst = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool dev_src = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind > cudaMemcpyDefault) return ret(cudaErrorInvalidMemcpyDirection);
  if ((dev_dst && wd != kOnDevice) || (dev_src && ws != kOnDevice))
    return ret(cudaErrorInvalidValue);
  Device& d = dev();
  if (ws == kPageable && wd != kPageable) {
    // pageable source: read at the call (staged), written to the device later
    if (!async) run_until(&d.legacy, d.legacy.last);  // "a stream sync before the copy"
    auto copy = std::make_shared<std::vector<char>>(static_cast<const char*>(src),
                                                    static_cast<const char*>(src) + n);
    enqueue(s, [dst, copy] { std::memcpy(dst, copy->data(), copy->size()); });
    return cudaSuccess;
  }
  const uint64_t seq = enqueue(s, [dst, src, n] { copy_now(dst, src, n); });
  // cudaMemcpy returns when a copy to the host or from pinned memory is done
  if (!async && (wd != kOnDevice || ws == kPinned)) run_until(s, seq);
  return cudaSuccess;
}

cudaError_t alloc_async(void** ptr, size_t size, Pool* pool, cudaStream_t h) {
  if (no_device()) return ret(cudaErrorNoDevice);
  if (!ptr) return ret(cudaErrorInvalidValue);
  Stream* s = nullptr;
  if (cudaError_t e = resolve(h, &s)) return ret(e);
  (void)s;  // the memory is usable by work enqueued after this call, on any stream
  Device& d = dev();
  d.stats.async_bytes_requested += size;
  d.stats.last_async_request = size;
  if (injected_malloc_failure(Alloc::kPool)) return ret(cudaErrorMemoryAllocation);
  Mem* m = nullptr;
  auto it = pool->cache.find(round256(size));
  if (it != pool->cache.end()) {
    m = it->second;
    pool->cache.erase(it);
    pool->cached -= m->usable;
    m->size = size;
    ++d.stats.pool_reuses;
  } else {
    m = driver_alloc(size, cudaMemoryTypeDevice);
    if (!m) return ret(cudaErrorMemoryAllocation);
  }
  m->pool = pool;
  poison(m);
  track(m);
  pool->used += m->usable;
  pool->used_high = std::max(pool->used_high, pool->used);
  pool->reserved_high = std::max(pool->reserved_high, pool->used + pool->cached);
  *ptr = m->ptr;
  return cudaSuccess;
}

Pool* as_pool(cudaMemPool_t h) {
  auto* p = static_cast<Pool*>(h);
  return p && dev().pools.count(p) ? p : nullptr;
}
Event* as_event(cudaEvent_t h) {
  auto* e = static_cast<Event*>(h);
  return e && dev().events.count(e) ? e : nullptr;
}

}  // namespace

std::recursive_mutex& device_mutex() {
  static std::recursive_mutex* m = new std::recursive_mutex;
  return *m;
}
Stats& counters() { return dev().stats; }

unsigned env_unsigned(const char* name, unsigned fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  return static_cast<unsigned>(std::strtoul(v, nullptr, 10));
}

}  // namespace internal

using Lock = std::lock_guard<std::recursive_mutex>;
#define ZCOLL_EMU_LOCKED Lock lock_(internal::device_mutex())

Stats stats() {
  ZCOLL_EMU_LOCKED;
  return internal::dev().stats;
}
void set_schedule(Schedule s) {
  ZCOLL_EMU_LOCKED;
  internal::dev().schedule = s;
}
Schedule schedule() {
  ZCOLL_EMU_LOCKED;
  return internal::dev().schedule;
}
void fail_malloc_after(int k, Alloc kind) {
  ZCOLL_EMU_LOCKED;
  internal::dev().fail_malloc = k;
  internal::dev().fail_kind = kind;
}
void fail_launch_after(int k) {
  ZCOLL_EMU_LOCKED;
  internal::dev().fail_launch = k;
}

cudaError_t launch_body(dim3 grid, dim3 block, size_t shared_bytes, cudaStream_t stream,
                        std::function<void()> body, const char* name, const char* file, int line) {
  ZCOLL_EMU_LOCKED;
  using internal::ret;
  internal::Device& d = internal::dev();
  if (d.count < 1) return ret(cudaErrorNoDevice);
  const unsigned long long threads = 1ull * block.x * block.y * block.z;
  if (grid.x < 1 || grid.y < 1 || grid.z < 1 || grid.y > 65535 || grid.z > 65535 || block.x < 1 ||
      block.y < 1 || block.z < 1 || block.x > 1024 || block.y > 1024 || block.z > 64 ||
      threads > 1024)
    return ret(cudaErrorInvalidConfiguration);
  if (shared_bytes) {
    std::fprintf(stderr,
                 "zcoll CUDA emulation: %s at %s:%d asks for dynamic shared memory, "
                 "which is not emulated\n",
                 name, file, line);
    return ret(cudaErrorInvalidValue);
  }
  if (d.fail_launch > 0 && --d.fail_launch == 0) return ret(cudaErrorLaunchOutOfResources);
  internal::Stream* s = nullptr;
  if (cudaError_t e = internal::resolve(stream, &s)) return ret(e);
  ++d.stats.launches;
  auto g = std::make_shared<internal::Grid>();
  g->grid = grid;
  g->block = block;
  g->body = std::move(body);
  g->name = name;
  g->file = file;
  g->line = line;
  internal::enqueue(s, [g] { internal::run_grid(*g); });
  return cudaSuccess;
}

}  // namespace zcoll::emu

using namespace zcoll::emu;
using internal::dev;
using internal::ret;

// ---- errors and devices ------------------------------------------------------------
cudaError_t cudaGetLastError(void) {
  ZCOLL_EMU_LOCKED;
  const cudaError_t e = dev().last_error;
  dev().last_error = cudaSuccess;
  return e;
}
cudaError_t cudaPeekAtLastError(void) {
  ZCOLL_EMU_LOCKED;
  return dev().last_error;
}
const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidDevicePointer: return "cudaErrorInvalidDevicePointer";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    default: return "cudaErrorUnknown";
  }
}
const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorNotSupported: return "operation not supported";
    default: return "unknown error";
  }
}
cudaError_t cudaGetDeviceCount(int* count) {
  ZCOLL_EMU_LOCKED;
  if (!count) return ret(cudaErrorInvalidValue);
  *count = dev().count > 0 ? dev().count : 0;
  return dev().count > 0 ? cudaSuccess : ret(cudaErrorNoDevice);
}
cudaError_t cudaGetDevice(int* device) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!device) return ret(cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  return device == 0 ? cudaSuccess : ret(cudaErrorInvalidDevice);  // one device: 0
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!value) return ret(cudaErrorInvalidValue);
  if (device != 0) return ret(cudaErrorInvalidDevice);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; return cudaSuccess;
    case cudaDevAttrWarpSize: *value = 32; return cudaSuccess;
    case cudaDevAttrMultiProcessorCount: *value = dev().sms; return cudaSuccess;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; return cudaSuccess;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; return cudaSuccess;
  }
  return ret(cudaErrorInvalidValue);
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!p) return ret(cudaErrorInvalidValue);
  if (device != 0) return ret(cudaErrorInvalidDevice);
  std::memset(p, 0, sizeof *p);
  std::snprintf(p->name, sizeof p->name, "zcoll CUDA emulation (CPU)");
  p->totalGlobalMem = internal::kDeviceBytes;
  p->sharedMemPerBlock = 48 * 1024;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7FFFFFFF;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->major = 9;
  p->minor = 0;
  p->multiProcessorCount = dev().sms;
  p->l2CacheSize = 1 << 20;
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  internal::run_all();
  internal::trim_pools();
  return cudaSuccess;
}

// ---- memory ------------------------------------------------------------------------
namespace {
cudaError_t plain_alloc(void** ptr, size_t size, cudaMemoryType type) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!ptr) return ret(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (internal::injected_malloc_failure(type == cudaMemoryTypeHost ? Alloc::kHost : Alloc::kDevice))
    return ret(cudaErrorMemoryAllocation);
  internal::Mem* m = internal::driver_alloc(size, type);
  if (!m) return ret(cudaErrorMemoryAllocation);
  internal::poison(m);
  internal::track(m);
  *ptr = m->ptr;
  return cudaSuccess;
}
cudaError_t plain_free(void* ptr, bool host) {
  ZCOLL_EMU_LOCKED;
  if (!ptr) return cudaSuccess;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  internal::Mem* m = internal::find(ptr);
  if (!m || m->ptr != ptr || (m->type == cudaMemoryTypeHost) != host)
    return ret(cudaErrorInvalidValue);
  internal::run_all();  // cudaFree / cudaFreeHost synchronize the device
  internal::untrack(m);
  if (m->pool) {
    m->pool->used -= m->usable;
    m->pool = nullptr;
  }
  internal::driver_release(m);
  return cudaSuccess;
}
}  // namespace

cudaError_t cudaMalloc(void** ptr, size_t size) {
  return plain_alloc(ptr, size, cudaMemoryTypeDevice);
}
cudaError_t cudaMallocHost(void** ptr, size_t size) {
  return plain_alloc(ptr, size, cudaMemoryTypeHost);
}
cudaError_t cudaMallocManaged(void** ptr, size_t size, unsigned) {
  return plain_alloc(ptr, size, cudaMemoryTypeManaged);
}
cudaError_t cudaFree(void* ptr) { return plain_free(ptr, false); }
cudaError_t cudaFreeHost(void* ptr) { return plain_free(ptr, true); }

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* ptr) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!a || !ptr) return ret(cudaErrorInvalidValue);
  internal::Mem* m = internal::find(ptr);
  a->device = 0;
  a->type = m ? m->type : cudaMemoryTypeUnregistered;
  a->devicePointer = m && m->type != cudaMemoryTypeHost ? const_cast<void*>(ptr) : nullptr;
  a->hostPointer = !m || m->type != cudaMemoryTypeDevice ? const_cast<void*>(ptr) : nullptr;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
  ZCOLL_EMU_LOCKED;
  return internal::memcpy_impl(dst, src, n, kind, nullptr, false);
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t n, cudaMemcpyKind kind,
                            cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  return internal::memcpy_impl(dst, src, n, kind, stream, true);
}
namespace {
cudaError_t memset_impl(void* dst, int value, size_t n, cudaStream_t h) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (n == 0) return cudaSuccess;
  internal::Stream* s = nullptr;
  if (cudaError_t e = internal::resolve(h, &s)) return ret(e);
  internal::Where w;
  if (!dst || internal::where(dst, n, &w) != cudaSuccess || w != internal::kOnDevice)
    return ret(cudaErrorInvalidValue);
  internal::enqueue(s, [dst, value, n] { std::memset(dst, value, n); });
  return cudaSuccess;
}
}  // namespace
cudaError_t cudaMemset(void* dst, int value, size_t n) {
  return memset_impl(dst, value, n, nullptr);
}
cudaError_t cudaMemsetAsync(void* dst, int value, size_t n, cudaStream_t s) {
  return memset_impl(dst, value, n, s);
}

// ---- pools -------------------------------------------------------------------------
cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  return internal::alloc_async(ptr, size, &dev().default_pool, stream);
}
cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t pool,
                                    cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  internal::Pool* p = internal::as_pool(pool);
  if (!p || p->destroyed) return ret(cudaErrorInvalidValue);
  return internal::alloc_async(ptr, size, p, stream);
}
cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!ptr) return cudaSuccess;
  internal::Stream* s = nullptr;
  if (cudaError_t e = internal::resolve(stream, &s)) return ret(e);
  internal::Mem* m = internal::find(ptr);
  if (!m || m->ptr != ptr || !m->pool) return ret(cudaErrorInvalidValue);
  internal::untrack(m);  // the host must not use it any more; enqueued work still may
  internal::enqueue(s, [m] {
    internal::Pool* p = m->pool;
    p->used -= m->usable;
    if (p->destroyed) {
      internal::driver_release(m);
      return;
    }
    p->cache.emplace(m->usable, m);
    p->cached += m->usable;
  });
  return cudaSuccess;
}
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!pool) return ret(cudaErrorInvalidValue);
  if (device != 0) return ret(cudaErrorInvalidDevice);
  *pool = &dev().default_pool;
  return cudaSuccess;
}
cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!pool || !props || props->allocType != cudaMemAllocationTypePinned ||
      props->location.type != cudaMemLocationTypeDevice)
    return ret(cudaErrorInvalidValue);
  if (props->location.id != 0) return ret(cudaErrorInvalidDevice);
  auto* p = new internal::Pool;
  dev().pools.insert(p);
  *pool = p;
  return cudaSuccess;
}
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
  ZCOLL_EMU_LOCKED;
  internal::Pool* p = internal::as_pool(pool);
  if (!p || p == &dev().default_pool) return ret(cudaErrorInvalidValue);
  internal::trim(p, 0);
  p->destroyed = true;  // blocks still in use go back to the driver when freed
  return cudaSuccess;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  ZCOLL_EMU_LOCKED;
  internal::Pool* p = internal::as_pool(pool);
  if (!p || !value) return ret(cudaErrorInvalidValue);
  if (attr == cudaMemPoolAttrReleaseThreshold) {
    p->threshold = *static_cast<const uint64_t*>(value);
    return cudaSuccess;
  }
  if (attr == cudaMemPoolAttrReservedMemHigh || attr == cudaMemPoolAttrUsedMemHigh) {
    p->reserved_high = p->used_high = 0;  // CUDA: reset to the current values
    p->reserved_high = p->used + p->cached;
    p->used_high = p->used;
    return cudaSuccess;
  }
  return cudaSuccess;  // the reuse policies do not apply to this emulation
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
  ZCOLL_EMU_LOCKED;
  internal::Pool* p = internal::as_pool(pool);
  if (!p || !value) return ret(cudaErrorInvalidValue);
  auto* v = static_cast<uint64_t*>(value);
  switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: *v = p->threshold; return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent: *v = p->used + p->cached; return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: *v = p->reserved_high; return cudaSuccess;
    case cudaMemPoolAttrUsedMemCurrent: *v = p->used; return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh: *v = p->used_high; return cudaSuccess;
    default: *static_cast<int*>(value) = 1; return cudaSuccess;
  }
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep) {
  ZCOLL_EMU_LOCKED;
  internal::Pool* p = internal::as_pool(pool);
  if (!p) return ret(cudaErrorInvalidValue);
  internal::trim(p, keep);
  return cudaSuccess;
}

// ---- streams and events ------------------------------------------------------------
cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, 0); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned flags) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!stream || (flags & ~cudaStreamNonBlocking)) return ret(cudaErrorInvalidValue);
  auto s = std::make_unique<internal::Stream>();
  s->flags = flags;
  *stream = s.get();
  dev().valid_streams.insert(s.get());
  dev().streams.push_back(std::move(s));
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  internal::Stream* s = nullptr;
  if (!stream || internal::resolve(stream, &s) != cudaSuccess || s->legacy)
    return ret(cudaErrorInvalidResourceHandle);
  internal::run_until(s, s->last);  // its work completes; later work cannot depend on it
  dev().valid_streams.erase(s);
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  internal::Stream* s = nullptr;
  if (cudaError_t e = internal::resolve(stream, &s)) return ret(e);
  internal::run_until(s, s->last);
  internal::trim_pools();
  return cudaSuccess;
}
cudaError_t cudaStreamQuery(cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  internal::Stream* s = nullptr;
  if (cudaError_t e = internal::resolve(stream, &s)) return ret(e);
  internal::run_until(s, s->last);  // done by the time anyone asks
  return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned) {
  ZCOLL_EMU_LOCKED;
  internal::Stream* s = nullptr;
  if (cudaError_t e = internal::resolve(stream, &s)) return ret(e);
  internal::Event* e = internal::as_event(event);
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  std::vector<std::pair<internal::Stream*, uint64_t>> deps;
  if (e->recorded) deps.emplace_back(e->stream, e->seq);
  internal::enqueue(
      s, [] {}, std::move(deps));
  return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  ZCOLL_EMU_LOCKED;
  if (internal::no_device()) return ret(cudaErrorNoDevice);
  if (!event) return ret(cudaErrorInvalidValue);
  auto* e = new internal::Event;
  dev().events.insert(e);
  *event = e;
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t event) {
  ZCOLL_EMU_LOCKED;
  internal::Event* e = internal::as_event(event);
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  if (e->recorded && !e->done) internal::run_until(e->stream, e->seq);  // its marker refers to it
  dev().events.erase(e);
  delete e;
  return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  ZCOLL_EMU_LOCKED;
  internal::Event* e = internal::as_event(event);
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  internal::Stream* s = nullptr;
  if (cudaError_t err = internal::resolve(stream, &s)) return ret(err);
  if (e->recorded && !e->done) internal::run_until(e->stream, e->seq);
  e->recorded = true;
  e->done = false;
  e->stream = s;
  e->seq = internal::enqueue(s, [e] {
    e->t = internal::now_s();
    e->done = true;
  });
  return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  ZCOLL_EMU_LOCKED;
  internal::Event* e = internal::as_event(event);
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  if (e->recorded) internal::run_until(e->stream, e->seq);
  internal::trim_pools();
  return cudaSuccess;
}
cudaError_t cudaEventQuery(cudaEvent_t event) {
  ZCOLL_EMU_LOCKED;
  internal::Event* e = internal::as_event(event);
  if (!e) return ret(cudaErrorInvalidResourceHandle);
  if (e->recorded) internal::run_until(e->stream, e->seq);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  ZCOLL_EMU_LOCKED;
  internal::Event* a = internal::as_event(start);
  internal::Event* b = internal::as_event(end);
  if (!ms || !a || !b) return ret(cudaErrorInvalidValue);
  if (!a->done || !b->done) return ret(cudaErrorNotReady);
  *ms = static_cast<float>((b->t - a->t) * 1e3);
  return cudaSuccess;
}
