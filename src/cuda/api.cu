// api.cu — libzcoll_cuda's C API (include/zcoll_cuda.h): argument checks on the
// host, temporary memory from the stream-ordered allocator, and the kernel
// sequence of each operation (kernels.cuh). The only CUDA translation unit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "core/error.h"
#include "core/params.h"
#include "core/struct_io.h"
#include "cuda/kernels.cuh"
#include "cuda/launch.cuh"
#include "zcoll_cuda.h"

static_assert(sizeof(zcoll_cuda_result) == sizeof(zcoll::cuda::Result), "zcoll_cuda_result layout");

namespace zcoll {
namespace cuda {
namespace {

zcoll_status cuda_fail(cudaError_t e, const char* what) {
  return fail(e == cudaErrorMemoryAllocation ? ZCOLL_ERR_NO_MEMORY : ZCOLL_ERR_INTERNAL,
              "%s: CUDA error %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

// p must be device (or managed) memory.
zcoll_status check_device_ptr(const void* p, const char* name) {
  if (p == nullptr) return fail(ZCOLL_ERR_INVALID_ARG, "%s is NULL", name);
  cudaPointerAttributes a;
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error state of this call
    return fail(ZCOLL_ERR_INVALID_ARG, "%s (%p) is not a CUDA pointer: %s", name, p,
                cudaGetErrorString(e));
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return fail(ZCOLL_ERR_INVALID_ARG, "%s (%p) is not device memory", name, p);
  return ZCOLL_SUCCESS;
}

// The result, which k_result writes with 8-byte stores: device memory aligned
// to 8 bytes.
zcoll_status check_result_ptr(const zcoll_cuda_result* r) {
  ZCOLL_CHECK(check_device_ptr(r, "result"));
  if (reinterpret_cast<uintptr_t>(r) % alignof(zcoll_cuda_result) != 0)
    return fail(ZCOLL_ERR_INVALID_ARG, "result (%p) is not aligned to %zu bytes",
                static_cast<const void*>(r), alignof(zcoll_cuda_result));
  return ZCOLL_SUCCESS;
}

// The powers of x that join the header checksum's pieces (block_header_crc).
const CrcPowers kCrcPowers = crc_powers();

// Blocks of the chunk kernels: enough to fill the device, and no more than the
// stream's chunks (at most `chunks`): blocks loop over chunks, so a block beyond
// the last chunk would start only to exit (small messages, the collectives'
// many small steps; on the CPU emulation every idle thread costs a fiber run).
int chunk_grid(uint64_t chunks) {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      sms <= 0) {
    cudaGetLastError();
    sms = 16;
  }
  const uint64_t fill = static_cast<uint64_t>(sms) * 8;
  return static_cast<int>(chunks < 1 ? 1 : chunks < fill ? chunks : fill);
}

// Threads of the one-block kernels over a stream's index (k_index, k_scan_sizes,
// k_write_header: scans and a checksum, written for any power of two up to 1024):
// the stream's chunks (at most `chunks`) rounded up to a power of two, from one
// warp to 1024, so that a stream of a few chunks does not start 1024 threads.
int index_threads(uint64_t chunks) {
  int t = 32;
  while (t < 1024 && static_cast<uint64_t>(t) < chunks) t *= 2;
  return t;
}

// The pool of the operations' temporary memory on the current device. It keeps
// what it holds (release threshold: no limit), so that a call reuses the memory
// of the calls before it even after the host synchronized: CUDA's default pool
// gives everything back to the driver at each synchronization (threshold 0),
// such as the one in zcoll_cuda_result_get. One per device, made at first use;
// the application's default pool is left as it is.
cudaError_t workspace_pool(cudaMemPool_t* pool) {
  constexpr int kMaxDevices = 64;
  static std::mutex mu;
  static cudaMemPool_t pools[kMaxDevices] = {};
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess) return e;
  if (dev < 0 || dev >= kMaxDevices) return cudaErrorInvalidDevice;
  std::lock_guard<std::mutex> lock(mu);
  if (!pools[dev]) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t p = nullptr;
    e = cudaMemPoolCreate(&p, &props);
    if (e != cudaSuccess) return e;
    uint64_t keep = UINT64_MAX;
    e = cudaMemPoolSetAttribute(p, cudaMemPoolAttrReleaseThreshold, &keep);
    if (e != cudaSuccess) {
      cudaMemPoolDestroy(p);
      return e;
    }
    pools[dev] = p;
  }
  *pool = pools[dev];
  return cudaSuccess;
}

// One stream-ordered allocation carved into 256-byte aligned pieces. A total
// that does not fit in size_t makes allocate() fail instead of wrapping round
// to a small allocation the kernels would write past.
class Workspace {
 public:
  explicit Workspace(cudaStream_t s) : stream_(s) {}
  ~Workspace() {
    if (base_) cudaFreeAsync(base_, stream_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  // A piece of count * size bytes; returns its offset.
  size_t add(size_t count, size_t size = 1) {
    const size_t at = total_;
    if (size && count > (SIZE_MAX - 255) / size) {
      too_large_ = true;
      return at;
    }
    const size_t rounded = (count * size + 255) & ~size_t{255};
    if (rounded > SIZE_MAX - total_)
      too_large_ = true;
    else
      total_ += rounded;
    return at;
  }
  zcoll_status allocate() {
    if (too_large_)
      return fail(ZCOLL_ERR_NO_MEMORY,
                  "the temporary device memory of this operation exceeds %zu bytes", SIZE_MAX);
    cudaMemPool_t pool = nullptr;
    cudaError_t e = workspace_pool(&pool);
    if (e == cudaSuccess) e = cudaMallocFromPoolAsync(&base_, total_ ? total_ : 256, pool, stream_);
    if (e != cudaSuccess) {
      cudaGetLastError();
      base_ = nullptr;
      return fail(ZCOLL_ERR_NO_MEMORY, "cannot allocate %zu bytes of device memory: %s", total_,
                  cudaGetErrorString(e));
    }
    return ZCOLL_SUCCESS;
  }
  template <typename P>
  P* at(size_t offset) const {
    return reinterpret_cast<P*>(static_cast<uint8_t*>(base_) + offset);
  }

 private:
  cudaStream_t stream_;
  void* base_ = nullptr;
  size_t total_ = 0;
  bool too_large_ = false;
};

// The most values a valid stream of `bytes` bytes can hold: a chunk of len
// values takes at least 12 + ceil(len / 32) bytes (zero-width blocks), so at
// most 32 values per byte after the header (saturating).
uint64_t max_values(size_t bytes) {
  if (bytes <= 48) return 0;
  const uint64_t b = bytes - 48;
  return b > UINT64_MAX / 32 ? UINT64_MAX : 32 * b;
}
// The largest result (a stream, or DOC's values) an operation on a stream of
// `bytes` bytes can produce: zcoll_compress_bound of max_values at 8 bytes a
// value. What a homomorphic operation's temporary memory needs at most, however
// large the caller's output is.
size_t largest_result(size_t bytes) {
  const uint64_t n = max_values(bytes);
  const size_t bound = n > SIZE_MAX ? 0 : compress_bound_hd(static_cast<size_t>(n), 8);
  return bound ? bound : SIZE_MAX;
}

// One step of an operation's sequence (a kernel launch, the memset of its
// state): the first that fails ends the operation with its error. A later
// kernel would read the state (DevState, offsets, sizes) the failed one never
// wrote. `what` names the operation.
#define ZCOLL_STEP(expr)                                           \
  do {                                                             \
    const cudaError_t zcoll_step_e_ = (expr);                      \
    if (zcoll_step_e_ != cudaSuccess) {                            \
      cudaGetLastError(); /* reported here, not by a later call */ \
      return cuda_fail(zcoll_step_e_, what);                       \
    }                                                              \
  } while (0)

// The most chunks a stream of `bytes` bytes can have: each takes a 4-byte index
// entry and at least 8 bytes (docs/format.md), after the 48-byte header. An
// offset table has one entry more; k_index writes no more entries than that (a
// stream with more chunks than its size allows is truncated).
size_t max_chunks(size_t bytes) { return bytes > 48 ? (bytes - 48) / 12 : 0; }
size_t offset_entries(size_t bytes) { return max_chunks(bytes) + 1; }
// The most chunks of a stream of at most `values` values (chunks hold
// ZCOLL_MIN_CHUNK_SIZE values or more), and of a result whose output holds `cap`
// bytes (the call requires cap >= zcoll_compress_bound of its values, over 4
// bytes a value): what bounds the launch shapes (chunk_grid, index_threads).
uint64_t chunks_of_values(uint64_t values) {
  return (values + ZCOLL_MIN_CHUNK_SIZE - 1) / ZCOLL_MIN_CHUNK_SIZE;
}
uint64_t chunks_of_capacity(size_t cap) { return chunks_of_values(cap / 4); }

// Open a stream: header, checksum and index (offsets), optionally the framing of
// every chunk. chunks: the most chunks the call can take (the launch shapes).
zcoll_status open_stream(const char* what, DevState* st, const void* s, size_t size, int slot,
                         uint64_t* offsets, bool validate, cudaStream_t stream, uint64_t chunks) {
  const auto* p = static_cast<const uint8_t*>(s);
  ZCOLL_STEP(ZCOLL_LAUNCH(k_open, 1, 1, stream, st, p, size, slot));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_index, 1, index_threads(chunks), stream, st, p, size, slot, offsets,
                          offset_entries(size), kCrcPowers));
  if (validate)
    ZCOLL_STEP(
        ZCOLL_LAUNCH(k_validate, chunk_grid(chunks), kThreads, stream, st, p, slot, offsets));
  return ZCOLL_SUCCESS;
}

template <typename T>
zcoll_status launch_compress(const char* what, DevState* st, const zcoll_params& p, const T* src,
                             size_t n, uint32_t cs, Workspace& ws, size_t off_lo, size_t off_hi,
                             int parts, uint8_t* scratch, uint32_t* sizes, uint64_t* offsets,
                             uint8_t* dst, cudaStream_t s, int grid) {
  const bool rel = p.eb_mode == ZCOLL_EB_REL;
  const uint64_t chunks = (n + cs - 1) / cs;
  double* lo = ws.at<double>(off_lo);
  double* hi = ws.at<double>(off_hi);
  if (rel) ZCOLL_STEP(ZCOLL_LAUNCH(k_minmax<T>, parts, 256, s, src, n, lo, hi));
  ZCOLL_STEP(
      ZCOLL_LAUNCH(k_setup_compress<T>, 1, 1, s, st, rel, p.error_bound, lo, hi, parts, n, cs));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_compress<T>, grid, kThreads, s, st, src, scratch, sizes));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_scan_sizes, 1, index_threads(chunks), s, st, sizes, offsets));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_pack, grid, kThreads, s, st, scratch, sizes, offsets, dst));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_write_header, 1, index_threads(chunks), s, st, dst, kCrcPowers));
  return ZCOLL_SUCCESS;
}

zcoll_status compress(const zcoll_params* params, zcoll_dtype dtype, const void* src, size_t n,
                      void* dst, size_t cap, zcoll_cuda_result* result, cudaStream_t s) {
  const char* what = "zcoll_cuda_compress";
  zcoll_params p;
  uint32_t cs = 0;
  ZCOLL_CHECK(check_params(params, &p, &cs));
  ZCOLL_CHECK(check_dims(p, n));  // checked as the CPU codec does; the fast codec ignores dims
  if (p.flags != 0)  // format 1.1 chunk checksums: CPU codec only (the decoder rejects them too)
    return fail(ZCOLL_ERR_UNSUPPORTED, "the GPU codec does not write ZCOLL_FLAG_CHECKSUM streams");
  if (p.codec != ZCOLL_CODEC_FAST)  // format 1.3 dense chunks: CPU codec only
    return fail(ZCOLL_ERR_UNSUPPORTED, "the GPU codec has the fast codec only, not the dense one");
  ZCOLL_CHECK(check_dtype(dtype));
  if (dtype == ZCOLL_BFLOAT16 || dtype == ZCOLL_FLOAT16)
    return fail(ZCOLL_ERR_UNSUPPORTED,
                "the GPU codec has no bfloat16/float16 kernels (the CPU codec has them)");
  const size_t vb = zcoll_dtype_size(dtype);
  const size_t bound = zcoll_compress_bound(n, dtype);
  if (bound == 0) return fail(ZCOLL_ERR_INVALID_ARG, "%zu values exceed any stream size", n);
  if (cap < bound)
    return fail(ZCOLL_ERR_BUFFER_TOO_SMALL, "output capacity %zu < zcoll_compress_bound = %zu", cap,
                bound);
  if (n) ZCOLL_CHECK(check_device_ptr(src, "src"));
  if (n && reinterpret_cast<uintptr_t>(src) % vb != 0)
    return fail(ZCOLL_ERR_INVALID_ARG, "src is not aligned to %zu bytes", vb);
  ZCOLL_CHECK(check_device_ptr(dst, "dst"));
  ZCOLL_CHECK(check_result_ptr(result));
  const uint64_t chunks = (n + cs - 1) / cs;
  const size_t slot = raw_bytes(cs, static_cast<uint32_t>(vb));
  const size_t scratch_bytes = chunks ? (chunks - 1) * slot +
                                            raw_bytes(static_cast<uint32_t>(n - (chunks - 1) * cs),
                                                      static_cast<uint32_t>(vb))
                                      : 0;
  const int grid = chunk_grid(chunks);
  const int parts = grid;
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_scr = ws.add(scratch_bytes),
               o_sizes = ws.add(chunks, 4), o_off = ws.add(chunks + 1, 8), o_lo = ws.add(parts, 8),
               o_hi = ws.add(parts, 8);
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  ZCOLL_STEP(cudaMemsetAsync(st, 0, sizeof(DevState), s));
  auto* d = static_cast<uint8_t*>(dst);
  if (dtype == ZCOLL_FLOAT32)
    ZCOLL_CHECK(launch_compress<float>(what, st, p, static_cast<const float*>(src), n, cs, ws, o_lo,
                                       o_hi, parts, ws.at<uint8_t>(o_scr), ws.at<uint32_t>(o_sizes),
                                       ws.at<uint64_t>(o_off), d, s, grid));
  else
    ZCOLL_CHECK(launch_compress<double>(
        what, st, p, static_cast<const double*>(src), n, cs, ws, o_lo, o_hi, parts,
        ws.at<uint8_t>(o_scr), ws.at<uint32_t>(o_sizes), ws.at<uint64_t>(o_off), d, s, grid));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_result, 1, 1, s, st, reinterpret_cast<Result*>(result)));
  return ZCOLL_SUCCESS;
}

zcoll_status decompress(const void* src, size_t src_size, void* dst, size_t dst_count,
                        zcoll_cuda_result* result, cudaStream_t s, bool accumulate) {
  const char* what = accumulate ? "zcoll_cuda_decompress_accumulate" : "zcoll_cuda_decompress";
  ZCOLL_CHECK(check_device_ptr(src, "src"));
  if (dst) ZCOLL_CHECK(check_device_ptr(dst, "dst"));
  if (dst && reinterpret_cast<uintptr_t>(dst) % 4 != 0)
    return fail(ZCOLL_ERR_INVALID_ARG, "dst is not aligned to its values");
  ZCOLL_CHECK(check_result_ptr(result));
  // a stream that decodes into dst_count values (k_check_dst)
  const uint64_t chunks = std::min<uint64_t>(max_chunks(src_size), chunks_of_values(dst_count));
  const int grid = chunk_grid(chunks);
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_off = ws.add(offset_entries(src_size), 8);
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  uint64_t* off = ws.at<uint64_t>(o_off);
  ZCOLL_STEP(cudaMemsetAsync(st, 0, sizeof(DevState), s));
  // check_dst comes after the index and before the chunks, as on the CPU
  const auto* p = static_cast<const uint8_t*>(src);
  ZCOLL_STEP(ZCOLL_LAUNCH(k_open, 1, 1, s, st, p, src_size, 0));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_index, 1, index_threads(chunks), s, st, p, src_size, 0, off,
                          offset_entries(src_size), kCrcPowers));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_check_dst, 1, 1, s, st, dst_count, dst));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_validate, grid, kThreads, s, st, p, 0, off));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_decompress<float>, grid, kThreads, s, st, p, off,
                          static_cast<float*>(dst), accumulate));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_decompress<double>, grid, kThreads, s, st, p, off,
                          static_cast<double*>(dst), accumulate));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_result, 1, 1, s, st, reinterpret_cast<Result*>(result)));
  return ZCOLL_SUCCESS;
}

// a op b (op: kHomAdd, kHomSub, kHomNegate with b unused), or DOC (doc_op >= 0).
// With acc: the result goes to work (cap = work_size) and is copied back to acc.
zcoll_status binary(const char* what, const void* a, size_t a_size, const void* b, size_t b_size,
                    int op, int doc_op, void* out, size_t cap, uint8_t* acc, size_t acc_cap,
                    zcoll_cuda_result* result, cudaStream_t s) {
  const bool unary = op == kHomNegate;
  ZCOLL_CHECK(check_device_ptr(a, unary ? "in" : "a"));
  if (!unary) ZCOLL_CHECK(check_device_ptr(b, "b"));
  ZCOLL_CHECK(check_device_ptr(out, acc ? "work" : "out"));
  ZCOLL_CHECK(check_result_ptr(result));
  const size_t mc = max_chunks(a_size);
  // a result that fits in cap (k_pair), the same chunks in b
  const uint64_t chunks = std::min<uint64_t>(mc, chunks_of_capacity(cap));
  const int grid = chunk_grid(chunks);
  // the chunks' results before packing (and DOC's values): what the stream can
  // produce, and no more than the output holds (k_pair checks the output)
  const size_t scratch_bytes = std::min(cap, largest_result(a_size));
  Workspace ws(s);
  // a's chunks are the result's (k_pair: b has as many)
  const size_t o_st = ws.add(sizeof(DevState)), o_offa = ws.add(mc + 1, 8),
               o_offb = ws.add(unary ? 0 : offset_entries(b_size), 8), o_sizes = ws.add(mc, 4),
               o_off = ws.add(mc + 1, 8), o_scr = ws.add(scratch_bytes),
               o_tmp = ws.add(doc_op >= 0 ? scratch_bytes : 0),
               o_prod = ws.add(doc_op >= 0 ? mc : 0, 8);
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  ZCOLL_STEP(cudaMemsetAsync(st, 0, sizeof(DevState), s));
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  uint64_t* offa = ws.at<uint64_t>(o_offa);
  uint64_t* offb = ws.at<uint64_t>(o_offb);
  uint8_t* scratch = ws.at<uint8_t>(o_scr);
  uint32_t* sizes = ws.at<uint32_t>(o_sizes);
  ZCOLL_CHECK(open_stream(what, st, pa, a_size, 0, offa, true, s, chunks));
  if (!unary) ZCOLL_CHECK(open_stream(what, st, pb, b_size, 1, offb, true, s, chunks));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_pair, 1, 1, s, st, op, cap, scratch_bytes, doc_op >= 0));
  if (doc_op >= 0) {
    double* prod = ws.at<double>(o_prod);
    ZCOLL_STEP(ZCOLL_LAUNCH(k_doc<float>, grid, kThreads, s, st, pa, offa, pb, offb, doc_op,
                            ws.at<float>(o_tmp), scratch, sizes, prod));
    ZCOLL_STEP(ZCOLL_LAUNCH(k_doc<double>, grid, kThreads, s, st, pa, offa, pb, offb, doc_op,
                            ws.at<double>(o_tmp), scratch, sizes, prod));
    ZCOLL_STEP(ZCOLL_LAUNCH(k_doc_bound, 1, 1, s, st, doc_op, prod));
  } else {
    ZCOLL_STEP(
        ZCOLL_LAUNCH(k_hom<float>, grid, kThreads, s, st, pa, offa, pb, offb, op, scratch, sizes));
    ZCOLL_STEP(
        ZCOLL_LAUNCH(k_hom<double>, grid, kThreads, s, st, pa, offa, pb, offb, op, scratch, sizes));
  }
  uint64_t* off = ws.at<uint64_t>(o_off);
  auto* d = static_cast<uint8_t*>(out);
  ZCOLL_STEP(ZCOLL_LAUNCH(k_scan_sizes, 1, index_threads(chunks), s, st, sizes, off));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_pack, grid, kThreads, s, st, scratch, sizes, off, d));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_write_header, 1, index_threads(chunks), s, st, d, kCrcPowers));
  if (acc) ZCOLL_STEP(ZCOLL_LAUNCH(k_copy_back, grid, kThreads, s, st, d, acc, acc_cap));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_result, 1, 1, s, st, reinterpret_cast<Result*>(result)));
  return ZCOLL_SUCCESS;
}

zcoll_status set_divisor(void* stream_bytes, size_t size, uint32_t divisor,
                         zcoll_cuda_result* result, cudaStream_t s) {
  const char* what = "zcoll_cuda_hom_set_divisor";
  if (divisor == 0) return fail(ZCOLL_ERR_INVALID_ARG, "divisor must be >= 1");
  ZCOLL_CHECK(check_device_ptr(stream_bytes, "stream"));
  ZCOLL_CHECK(check_result_ptr(result));
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_off = ws.add(offset_entries(size), 8);
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  ZCOLL_STEP(cudaMemsetAsync(st, 0, sizeof(DevState), s));
  auto* p = static_cast<uint8_t*>(stream_bytes);
  ZCOLL_CHECK(
      open_stream(what, st, p, size, 0, ws.at<uint64_t>(o_off), false, s, max_chunks(size)));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_set_divisor, 1, 1, s, st, divisor));
  ZCOLL_STEP(
      ZCOLL_LAUNCH(k_write_header, 1, index_threads(max_chunks(size)), s, st, p, kCrcPowers));
  ZCOLL_STEP(ZCOLL_LAUNCH(k_result, 1, 1, s, st, reinterpret_cast<Result*>(result)));
  return ZCOLL_SUCCESS;
}

const char* reason_text(uint32_t r) {
  switch (r) {
    case kShortHeader: return "the stream is shorter than its 48-byte header";
    case kBadMagic: return "not a zcoll stream (bad magic)";
    case kBadVersion: return "unsupported format version";
    case kBadDtype: return "unknown dtype code, or a bfloat16/float16 stream (CPU codec only)";
    case kBadBlockOrFlags: return "unsupported block size or header flags";
    case kBadField: return "invalid header field (chunk size, divisor, terms, n, bound or quantum)";
    case kShortIndex: return "the stream ends inside its chunk index";
    case kBadChecksum: return "header/index checksum mismatch";
    case kBadIndexEntry: return "invalid chunk size in the index";
    case kShortStream: return "the stream ends before its last chunk";
    case kBadChunk: return "malformed chunk (kind, size or code lengths)";
    case kMismatch:
      return "the streams cannot be combined (dtype, n, chunk size, quantum or divisor differ)";
    case kOutputTooSmall: return "output capacity is below zcoll_compress_bound";
    case kBadBound: return "the error bound cannot be used as a quantization step";
    case kAccumulatorTooSmall: return "the sum does not fit in the accumulator (left unchanged)";
    case kDstTooSmall: return "the output holds fewer values than the stream, or is NULL";
    case kDstMisaligned: return "dst is not aligned to 8 bytes for a float64 stream";
    case kScratchTooSmall: return "the result exceeds the temporary memory sized for it";
    case kDenseStream:
      return "a stream of the dense codec (format 1.3): the GPU codec decodes the fast codec "
             "only; decompress it with the CPU codec";
    default: return "device-side check failed";
  }
}

}  // namespace
}  // namespace cuda
}  // namespace zcoll

using namespace zcoll;
using namespace zcoll::cuda;

extern "C" {

int zcoll_cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

zcoll_status zcoll_cuda_result_get(const zcoll_cuda_result* result, size_t* size,
                                   cudaStream_t stream) {
  return guarded("zcoll_cuda_result_get", [&] {
    clear_error();
    ZCOLL_CHECK(check_result_ptr(result));
    zcoll_cuda_result r;
    cudaError_t e = cudaMemcpyAsync(&r, result, sizeof r, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return cuda_fail(e, "zcoll_cuda_result_get");
    if (size) *size = r.status == ZCOLL_SUCCESS ? static_cast<size_t>(r.size) : 0;
    if (r.status != ZCOLL_SUCCESS)
      return fail(static_cast<zcoll_status>(r.status), "%s (detail %llu)", reason_text(r.reason),
                  static_cast<unsigned long long>(r.detail));
    return ZCOLL_SUCCESS;
  });
}

zcoll_status zcoll_cuda_compress(const zcoll_params* params, zcoll_dtype dtype, const void* src,
                                 size_t n, void* dst, size_t cap, zcoll_cuda_result* result,
                                 cudaStream_t stream) {
  return guarded("zcoll_cuda_compress", [&] {
    clear_error();
    return compress(params, dtype, src, n, dst, cap, result, stream);
  });
}

zcoll_status zcoll_cuda_decompress(const void* src, size_t src_size, void* dst, size_t dst_count,
                                   zcoll_cuda_result* result, cudaStream_t stream) {
  return guarded("zcoll_cuda_decompress", [&] {
    clear_error();
    return decompress(src, src_size, dst, dst_count, result, stream, false);
  });
}

zcoll_status zcoll_cuda_decompress_accumulate(const void* src, size_t src_size, void* dst,
                                              size_t dst_count, zcoll_cuda_result* result,
                                              cudaStream_t stream) {
  return guarded("zcoll_cuda_decompress_accumulate", [&] {
    clear_error();
    return decompress(src, src_size, dst, dst_count, result, stream, true);
  });
}

zcoll_status zcoll_cuda_hom_add(const void* a, size_t a_size, const void* b, size_t b_size,
                                void* out, size_t cap, zcoll_cuda_result* result,
                                cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_add", [&] {
    clear_error();
    return binary("zcoll_cuda_hom_add", a, a_size, b, b_size, kHomAdd, -1, out, cap, nullptr, 0,
                  result, stream);
  });
}

zcoll_status zcoll_cuda_hom_sub(const void* a, size_t a_size, const void* b, size_t b_size,
                                void* out, size_t cap, zcoll_cuda_result* result,
                                cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_sub", [&] {
    clear_error();
    return binary("zcoll_cuda_hom_sub", a, a_size, b, b_size, kHomSub, -1, out, cap, nullptr, 0,
                  result, stream);
  });
}

zcoll_status zcoll_cuda_hom_negate(const void* in, size_t in_size, void* out, size_t cap,
                                   zcoll_cuda_result* result, cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_negate", [&] {
    clear_error();
    return binary("zcoll_cuda_hom_negate", in, in_size, nullptr, 0, kHomNegate, -1, out, cap,
                  nullptr, 0, result, stream);
  });
}

zcoll_status zcoll_cuda_hom_accumulate(void* acc, size_t acc_size, size_t acc_cap, const void* b,
                                       size_t b_size, void* work, size_t work_size,
                                       zcoll_cuda_result* result, cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_accumulate", [&] {
    clear_error();
    if (acc == work) return fail(ZCOLL_ERR_INVALID_ARG, "work must not be the accumulator");
    return binary("zcoll_cuda_hom_accumulate", acc, acc_size, b, b_size, kHomAdd, -1, work,
                  work_size, static_cast<uint8_t*>(acc), acc_cap, result, stream);
  });
}

zcoll_status zcoll_cuda_hom_set_divisor(void* stream_bytes, size_t size, uint32_t divisor,
                                        zcoll_cuda_result* result, cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_set_divisor", [&] {
    clear_error();
    return set_divisor(stream_bytes, size, divisor, result, stream);
  });
}

zcoll_status zcoll_cuda_doc_combine(const void* a, size_t a_size, const void* b, size_t b_size,
                                    zcoll_op op, void* out, size_t cap, zcoll_cuda_result* result,
                                    cudaStream_t stream) {
  return guarded("zcoll_cuda_doc_combine", [&] {
    clear_error();
    int o;
    std::memcpy(&o, &op, sizeof o);
    if (o != ZCOLL_OP_SUM && o != ZCOLL_OP_PROD && o != ZCOLL_OP_MAX && o != ZCOLL_OP_MIN)
      return fail(ZCOLL_ERR_UNSUPPORTED, "unknown reduction op %d", o);
    return binary("zcoll_cuda_doc_combine", a, a_size, b, b_size, kHomAdd, o, out, cap, nullptr, 0,
                  result, stream);
  });
}

}  // extern "C"
