// primitives.h — the small vocabulary every algorithm is written with:
//   compress / decompress          one piece <-> one self-describing stream
//   reduce / scale                 local element-wise op in the datatype
//   hom_add                        add two compressed streams (no decoding)
//   doc_finish                     decompress-operate of a received piece
//   send / received                point-to-point with error markers
// Each runs on the call's DataOps (Ctx::ops, data_ops.h): the CPU, a device
// or the simulation.
// In DOC and HOM modes compression runs in chunk ranges with transport
// progress between ranges (C-Coll's PIPE-SZx), so that transfers in flight keep
// moving while this rank computes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "coll/datapath/context.h"

namespace zcoll::coll {

// Record the first failure of a step; later steps are skipped and sends carry
// error markers (see Ctx::failed).
#define ZCOLL_STEP(c, expr)                                           \
  do {                                                                \
    if ((c).failed == ZCOLL_SUCCESS) {                                \
      zcoll_status zcoll_step_s_ = (expr);                            \
      if (zcoll_step_s_ != ZCOLL_SUCCESS) (c).failed = zcoll_step_s_; \
    }                                                                 \
  } while (0)

// n values at src -> one stream in dst (cap >= zcoll_compress_bound(n)).
zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap, size_t* size);
// One stream of n values -> dst (accumulate: dst += values). Checks that the
// stream has our dtype, n and quantum (ZCOLL_ERR_MISMATCH otherwise).
zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                        bool accumulate);
// inout[i] = inout[i] op in[i]
void reduce(Ctx& c, void* inout, const void* in, size_t n);
// out[i] = lo[i] op hi[i] (the operand order fixed by rank, for bit-identical
// results on both partners of a recursive-doubling exchange)
void reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi, size_t n);
// data[i] /= divisor
void scale(Ctx& c, void* data, size_t n, double divisor);
// out = a + b on compressed streams.
zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size,
                     uint8_t* out, size_t cap, size_t* out_size);
// dst = local op decompress(in) (no recompression: the last step of a chain).
zcoll_status doc_finish(Ctx& c, const uint8_t* in, size_t in_size, const void* local, size_t n,
                        void* dst);

// Send bytes (logical = the uncompressed bytes they stand for). A failed rank
// sends an 8-byte error marker instead.
zcoll_status send(Ctx& c, const void* buf, size_t bytes, uint64_t logical, int peer,
                  transport::Req* req);
// After a receive of a compressed piece completed: false if the piece is an
// error marker (c.failed is then set) or this rank has failed already.
bool received(Ctx& c, const uint8_t* buf, size_t bytes);

// Copy n values (memmove semantics; no-op when dst == src).
void copy_values(Ctx& c, void* dst, const void* src, size_t n);
// Move bytes between value or stream buffers (memmove semantics; untimed, like
// the std::memmove it stands for on the CPU).
void move_bytes(Ctx& c, void* dst, const void* src, size_t bytes);
// zcoll_hom_set_divisor on a stream in a data buffer.
zcoll_status set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor);
// zcoll_stream_size of a stream of n values at src (bytes available).
zcoll_status stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n, size_t* size);

// Binomial tree helpers on relative ranks (vr = (rank - root + size) % size).
inline int lowbit_or(int vr, int size) {  // subtree size bound of vr
  if (vr == 0) {
    int m = 1;
    while (m < size) m <<= 1;
    return m;
  }
  return vr & -vr;
}
inline int subtree_size(int vr, int size) {
  int s = lowbit_or(vr, size);
  return vr + s > size ? size - vr : s;
}

}  // namespace zcoll::coll
