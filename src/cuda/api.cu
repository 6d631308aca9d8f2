// api.cu — libzcoll_cuda's C API (include/zcoll_cuda.h): argument checks on the
// host, temporary memory from the stream-ordered allocator, and the kernel
// sequence of each operation (kernels.cuh). The only CUDA translation unit.
#include <cuda_runtime.h>

#include <cmath>
#include <cstring>

#include "core/error.h"
#include "core/params.h"
#include "core/struct_io.h"
#include "cuda/kernels.cuh"
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

// Blocks of the chunk kernels: enough to fill the device; blocks loop over chunks.
int chunk_grid() {
  int dev = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
      sms <= 0) {
    cudaGetLastError();
    sms = 16;
  }
  return sms * 8;
}

// One stream-ordered allocation carved into 256-byte aligned pieces.
class Workspace {
 public:
  explicit Workspace(cudaStream_t s) : stream_(s) {}
  ~Workspace() {
    if (base_) cudaFreeAsync(base_, stream_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  size_t add(size_t bytes) {  // returns the piece's offset
    const size_t at = total_;
    total_ += (bytes + 255) & ~size_t{255};
    return at;
  }
  zcoll_status allocate() {
    const cudaError_t e = cudaMallocAsync(&base_, total_ ? total_ : 256, stream_);
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
};

// After the launches: report a launch failure.
zcoll_status launched(const char* what) {
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? ZCOLL_SUCCESS : cuda_fail(e, what);
}

// Upper bound of the chunk count of a stream of `bytes` bytes (its index fits).
size_t max_chunks(size_t bytes) { return bytes / 4 + 2; }

// Open a stream: header, checksum and index (offsets), optionally the framing of
// every chunk.
void open_stream(DevState* st, const void* s, size_t size, int slot, uint64_t* offsets,
                 bool validate, cudaStream_t stream, int grid) {
  const auto* p = static_cast<const uint8_t*>(s);
  k_open<<<1, 1, 0, stream>>>(st, p, size, slot);
  k_index<<<1, 1024, 0, stream>>>(st, p, size, slot, offsets);
  if (validate) k_validate<<<grid, kThreads, 0, stream>>>(st, p, slot, offsets);
}

template <typename T>
void launch_compress(DevState* st, const zcoll_params& p, const T* src, size_t n, uint32_t cs,
                     Workspace& ws, size_t off_lo, size_t off_hi, int parts, uint8_t* scratch,
                     uint32_t* sizes, uint64_t* offsets, uint8_t* dst, cudaStream_t s, int grid) {
  const bool rel = p.eb_mode == ZCOLL_EB_REL;
  double* lo = ws.at<double>(off_lo);
  double* hi = ws.at<double>(off_hi);
  if (rel) k_minmax<T><<<parts, 256, 0, s>>>(src, n, lo, hi);
  k_setup_compress<T><<<1, 1, 0, s>>>(st, rel, p.error_bound, lo, hi, parts, n, cs);
  k_compress<T><<<grid, kThreads, 0, s>>>(st, src, scratch, sizes);
  k_scan_sizes<<<1, 1024, 0, s>>>(st, sizes, offsets);
  k_pack<<<grid, kThreads, 0, s>>>(st, scratch, sizes, offsets, dst);
  k_write_header<<<1, 256, 0, s>>>(st, dst);
}

zcoll_status compress(const zcoll_params* params, zcoll_dtype dtype, const void* src, size_t n,
                      void* dst, size_t cap, zcoll_cuda_result* result, cudaStream_t s) {
  zcoll_params p;
  uint32_t cs = 0;
  ZCOLL_CHECK(check_params(params, &p, &cs));
  if (p.flags != 0)  // format 1.1 chunk checksums: CPU codec only (the decoder rejects them too)
    return fail(ZCOLL_ERR_UNSUPPORTED, "the GPU codec does not write ZCOLL_FLAG_CHECKSUM streams");
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
  ZCOLL_CHECK(check_device_ptr(result, "result"));
  const uint64_t chunks = (n + cs - 1) / cs;
  const size_t slot = raw_bytes(cs, static_cast<uint32_t>(vb));
  const size_t scratch_bytes = chunks ? (chunks - 1) * slot +
                                            raw_bytes(static_cast<uint32_t>(n - (chunks - 1) * cs),
                                                      static_cast<uint32_t>(vb))
                                      : 0;
  const int grid = chunk_grid();
  const int parts = grid;
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_scr = ws.add(scratch_bytes),
               o_sizes = ws.add(4 * chunks), o_off = ws.add(8 * (chunks + 1)),
               o_lo = ws.add(8 * parts), o_hi = ws.add(8 * parts);
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  cudaMemsetAsync(st, 0, sizeof(DevState), s);
  auto* d = static_cast<uint8_t*>(dst);
  if (dtype == ZCOLL_FLOAT32)
    launch_compress<float>(st, p, static_cast<const float*>(src), n, cs, ws, o_lo, o_hi, parts,
                           ws.at<uint8_t>(o_scr), ws.at<uint32_t>(o_sizes), ws.at<uint64_t>(o_off),
                           d, s, grid);
  else
    launch_compress<double>(st, p, static_cast<const double*>(src), n, cs, ws, o_lo, o_hi, parts,
                            ws.at<uint8_t>(o_scr), ws.at<uint32_t>(o_sizes), ws.at<uint64_t>(o_off),
                            d, s, grid);
  k_result<<<1, 1, 0, s>>>(st, reinterpret_cast<Result*>(result));
  return launched("zcoll_cuda_compress");
}

zcoll_status decompress(const void* src, size_t src_size, void* dst, size_t dst_count,
                        zcoll_cuda_result* result, cudaStream_t s, bool accumulate) {
  ZCOLL_CHECK(check_device_ptr(src, "src"));
  if (dst) ZCOLL_CHECK(check_device_ptr(dst, "dst"));
  if (dst && reinterpret_cast<uintptr_t>(dst) % 4 != 0)
    return fail(ZCOLL_ERR_INVALID_ARG, "dst is not aligned to its values");
  ZCOLL_CHECK(check_device_ptr(result, "result"));
  const int grid = chunk_grid();
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_off = ws.add(8 * max_chunks(src_size));
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  uint64_t* off = ws.at<uint64_t>(o_off);
  cudaMemsetAsync(st, 0, sizeof(DevState), s);
  // check_dst comes after the index and before the chunks, as on the CPU
  const auto* p = static_cast<const uint8_t*>(src);
  k_open<<<1, 1, 0, s>>>(st, p, src_size, 0);
  k_index<<<1, 1024, 0, s>>>(st, p, src_size, 0, off);
  k_check_dst<<<1, 1, 0, s>>>(st, dst_count, dst);
  k_validate<<<grid, kThreads, 0, s>>>(st, p, 0, off);
  k_decompress<float><<<grid, kThreads, 0, s>>>(st, p, off, static_cast<float*>(dst), accumulate);
  k_decompress<double><<<grid, kThreads, 0, s>>>(st, p, off, static_cast<double*>(dst), accumulate);
  k_result<<<1, 1, 0, s>>>(st, reinterpret_cast<Result*>(result));
  return launched("zcoll_cuda_decompress");
}

// a op b (op: kHomAdd, kHomSub, kHomNegate with b unused), or DOC (doc_op >= 0).
// With acc: the result goes to work (cap = work_size) and is copied back to acc.
zcoll_status binary(const void* a, size_t a_size, const void* b, size_t b_size, int op, int doc_op,
                    void* out, size_t cap, uint8_t* acc, size_t acc_cap, zcoll_cuda_result* result,
                    cudaStream_t s) {
  const bool unary = op == kHomNegate;
  ZCOLL_CHECK(check_device_ptr(a, unary ? "in" : "a"));
  if (!unary) ZCOLL_CHECK(check_device_ptr(b, "b"));
  ZCOLL_CHECK(check_device_ptr(out, acc ? "work" : "out"));
  ZCOLL_CHECK(check_device_ptr(result, "result"));
  const int grid = chunk_grid();
  const size_t mc = max_chunks(a_size);
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_offa = ws.add(8 * mc),
               o_offb = ws.add(unary ? 0 : 8 * max_chunks(b_size)), o_sizes = ws.add(4 * mc),
               o_off = ws.add(8 * mc), o_scr = ws.add(cap), o_tmp = ws.add(doc_op >= 0 ? cap : 0),
               o_prod = ws.add(doc_op >= 0 ? 8 * mc : 0);
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  cudaMemsetAsync(st, 0, sizeof(DevState), s);
  const auto* pa = static_cast<const uint8_t*>(a);
  const auto* pb = static_cast<const uint8_t*>(b);
  uint64_t* offa = ws.at<uint64_t>(o_offa);
  uint64_t* offb = ws.at<uint64_t>(o_offb);
  uint8_t* scratch = ws.at<uint8_t>(o_scr);
  uint32_t* sizes = ws.at<uint32_t>(o_sizes);
  open_stream(st, pa, a_size, 0, offa, true, s, grid);
  if (!unary) open_stream(st, pb, b_size, 1, offb, true, s, grid);
  k_pair<<<1, 1, 0, s>>>(st, op, cap, doc_op >= 0);
  if (doc_op >= 0) {
    double* prod = ws.at<double>(o_prod);
    k_doc<float><<<grid, kThreads, 0, s>>>(st, pa, offa, pb, offb, doc_op, ws.at<float>(o_tmp),
                                           scratch, sizes, prod);
    k_doc<double><<<grid, kThreads, 0, s>>>(st, pa, offa, pb, offb, doc_op, ws.at<double>(o_tmp),
                                            scratch, sizes, prod);
    k_doc_bound<<<1, 1, 0, s>>>(st, doc_op, prod);
  } else {
    k_hom<float><<<grid, kThreads, 0, s>>>(st, pa, offa, pb, offb, op, scratch, sizes);
    k_hom<double><<<grid, kThreads, 0, s>>>(st, pa, offa, pb, offb, op, scratch, sizes);
  }
  uint64_t* off = ws.at<uint64_t>(o_off);
  auto* d = static_cast<uint8_t*>(out);
  k_scan_sizes<<<1, 1024, 0, s>>>(st, sizes, off);
  k_pack<<<grid, kThreads, 0, s>>>(st, scratch, sizes, off, d);
  k_write_header<<<1, 256, 0, s>>>(st, d);
  if (acc) k_copy_back<<<grid, kThreads, 0, s>>>(st, d, acc, acc_cap);
  k_result<<<1, 1, 0, s>>>(st, reinterpret_cast<Result*>(result));
  return launched("zcoll_cuda hom");
}

zcoll_status set_divisor(void* stream_bytes, size_t size, uint32_t divisor,
                         zcoll_cuda_result* result, cudaStream_t s) {
  if (divisor == 0) return fail(ZCOLL_ERR_INVALID_ARG, "divisor must be >= 1");
  ZCOLL_CHECK(check_device_ptr(stream_bytes, "stream"));
  ZCOLL_CHECK(check_device_ptr(result, "result"));
  Workspace ws(s);
  const size_t o_st = ws.add(sizeof(DevState)), o_off = ws.add(8 * max_chunks(size));
  ZCOLL_CHECK(ws.allocate());
  DevState* st = ws.at<DevState>(o_st);
  cudaMemsetAsync(st, 0, sizeof(DevState), s);
  auto* p = static_cast<uint8_t*>(stream_bytes);
  open_stream(st, p, size, 0, ws.at<uint64_t>(o_off), false, s, 1);
  k_set_divisor<<<1, 1, 0, s>>>(st, divisor);
  k_write_header<<<1, 256, 0, s>>>(st, p);
  k_result<<<1, 1, 0, s>>>(st, reinterpret_cast<Result*>(result));
  return launched("zcoll_cuda_hom_set_divisor");
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
    ZCOLL_CHECK(check_device_ptr(result, "result"));
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
    return binary(a, a_size, b, b_size, kHomAdd, -1, out, cap, nullptr, 0, result, stream);
  });
}

zcoll_status zcoll_cuda_hom_sub(const void* a, size_t a_size, const void* b, size_t b_size,
                                void* out, size_t cap, zcoll_cuda_result* result,
                                cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_sub", [&] {
    clear_error();
    return binary(a, a_size, b, b_size, kHomSub, -1, out, cap, nullptr, 0, result, stream);
  });
}

zcoll_status zcoll_cuda_hom_negate(const void* in, size_t in_size, void* out, size_t cap,
                                   zcoll_cuda_result* result, cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_negate", [&] {
    clear_error();
    return binary(in, in_size, nullptr, 0, kHomNegate, -1, out, cap, nullptr, 0, result, stream);
  });
}

zcoll_status zcoll_cuda_hom_accumulate(void* acc, size_t acc_size, size_t acc_cap, const void* b,
                                       size_t b_size, void* work, size_t work_size,
                                       zcoll_cuda_result* result, cudaStream_t stream) {
  return guarded("zcoll_cuda_hom_accumulate", [&] {
    clear_error();
    if (acc == work) return fail(ZCOLL_ERR_INVALID_ARG, "work must not be the accumulator");
    return binary(acc, acc_size, b, b_size, kHomAdd, -1, work, work_size,
                  static_cast<uint8_t*>(acc), acc_cap, result, stream);
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
    return binary(a, a_size, b, b_size, kHomAdd, o, out, cap, nullptr, 0, result, stream);
  });
}

}  // extern "C"
