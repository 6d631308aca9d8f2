// data_path.cc — see data_path.h. Every mode-dependent data step of the
// algorithms is here, written with the primitives (primitives.h).
#include "coll/datapath/data_path.h"

#include <cstring>

#include "coll/datapath/primitives.h"

namespace zcoll::coll {

zcoll_status DataPath::pack(const void* values, size_t n, uint8_t* slot, size_t cap,
                            Message* out) const {
  if (!compressed()) {
    *out = {static_cast<const uint8_t*>(values), n * c_.vsize};
    return ZCOLL_SUCCESS;
  }
  size_t size = 0;
  const zcoll_status s = compress(c_, values, n, slot, cap, &size);
  *out = {slot, s == ZCOLL_SUCCESS ? size : 0};
  return s;
}

bool DataPath::unpack(Message m, void* dst, size_t n) const {
  if (!received(c_, m.data, m.bytes)) return false;
  if (!compressed()) {
    move_bytes(c_, dst, m.data, n * c_.vsize);
    return true;
  }
  ZCOLL_STEP(c_, decompress(c_, m.data, m.bytes, dst, n, false));
  return c_.failed == ZCOLL_SUCCESS;
}

Partial::Partial(const DataPath& p, const void* init, size_t n, const Buffers& b, int adds,
                 bool to_values)
    : p_(p),
      c_(p.ctx()),
      init_(init),
      n_(n),
      b_(b),
      adds_(adds),
      stream_(p.sums_streams() && !to_values) {
  // raw sends values: a partial that is sent is built in the message slot itself
  if (!p.compressed() && !to_values) b_.values = b_.out;
}

void Partial::start() {
  if (!stream_ || started_) return;
  // with nothing to add, this rank's stream is the message itself
  cur_ = adds_ == 0 ? b_.out : b_.tmp[0];
  cur_size_ = 0;
  ZCOLL_STEP(c_, compress(c_, init_, n_, cur_, adds_ == 0 ? b_.out_cap : b_.tmp_cap, &cur_size_));
  started_ = true;
}

void Partial::add(Message m) {
  const bool ok = received(c_, m.data, m.bytes);
  const bool last = ++added_ == adds_;
  if (!ok || c_.failed != ZCOLL_SUCCESS) return;
  if (stream_) {  // this rank's stream (compressed now unless start() did) + theirs
    start();
    uint8_t* dst = last ? b_.out : (cur_ == b_.tmp[0] ? b_.tmp[1] : b_.tmp[0]);
    const size_t cap = last ? b_.out_cap : b_.tmp_cap;
    size_t size = 0;
    ZCOLL_STEP(c_, hom_add(c_, cur_, cur_size_, m.data, m.bytes, dst, cap, &size));
    cur_ = dst;
    cur_size_ = size;
    return;
  }
  const void* mine = started_ ? b_.values : init_;
  if (!p_.compressed())
    reduce_ordered(c_, b_.values, mine, m.data, n_);
  else  // values = mine op decode(theirs) (the decoder accumulates a SUM in place)
    ZCOLL_STEP(c_, doc_finish(c_, m.data, m.bytes, mine, n_, b_.values));
  started_ = true;
}

Message Partial::emit(bool average) {
  const bool avg = average && c_.average && c_.op == ZCOLL_OP_SUM;
  if (stream_) {
    start();
    if (c_.failed != ZCOLL_SUCCESS) return {b_.out, 0};
    if (avg) ZCOLL_STEP(c_, set_divisor(c_, cur_, cur_size_, static_cast<uint32_t>(c_.size)));
    return {cur_, cur_size_};
  }
  if (avg && c_.failed == ZCOLL_SUCCESS) {
    if (!started_) copy_values(c_, b_.values, init_, n_);
    started_ = true;
    scale(c_, b_.values, n_, c_.size);
  }
  Message m;
  ZCOLL_STEP(c_, p_.pack(values(), n_, b_.out, b_.out_cap, &m));
  return m;
}

// ---- Exchange ------------------------------------------------------------------
Exchange::Exchange(const DataPath& p, size_t n, const Slots& s, State* st)
    : p_(p), c_(p.ctx()), n_(n), s_(s), st_(st) {}

void Exchange::start() {
  if (!p_.sums_streams() || st_->which >= 0) return;
  st_->size = 0;
  ZCOLL_STEP(c_, compress(c_, s_.values, n_, s_.stream[0], s_.cap, &st_->size));
  st_->which = 0;
}

Message Exchange::message() {
  if (p_.sums_streams()) {
    start();
    return {s_.stream[st_->which], st_->size};
  }
  if (st_->shared) return {s_.send, st_->size};
  Message m;
  ZCOLL_STEP(c_, p_.pack(s_.values, n_, s_.send, s_.cap, &m));
  return m;
}

void Exchange::fold(Message theirs) {
  if (!received(c_, theirs.data, theirs.bytes)) return;
  if (!p_.compressed()) {
    reduce_ordered(c_, s_.values, theirs.data, s_.values, n_);
  } else if (p_.sums_streams()) {
    start();
    uint8_t* dst = s_.stream[1 - st_->which];
    size_t size = 0;
    ZCOLL_STEP(c_, hom_add(c_, theirs.data, theirs.bytes, s_.stream[st_->which], st_->size, dst,
                           s_.cap, &size));
    st_->which = 1 - st_->which;
    st_->size = size;
  } else {
    ZCOLL_STEP(c_, doc_finish(c_, theirs.data, theirs.bytes, s_.values, n_, s_.values));
  }
}

void Exchange::combine(Message mine, Message theirs, bool mine_lower, bool last, bool average) {
  if (!received(c_, theirs.data, theirs.bytes)) return;
  const Message lo = mine_lower ? mine : theirs, hi = mine_lower ? theirs : mine;
  const bool avg = average && c_.average && c_.op == ZCOLL_OP_SUM;
  if (!p_.compressed()) {
    reduce_ordered(c_, s_.values, lo.data, hi.data, n_);
    if (last && avg && c_.failed == ZCOLL_SUCCESS) scale(c_, s_.values, n_, c_.size);
    return;
  }
  if (p_.sums_streams()) {
    uint8_t* dst = s_.stream[1 - st_->which];
    size_t size = 0;
    ZCOLL_STEP(c_, hom_add(c_, lo.data, lo.bytes, hi.data, hi.bytes, dst, s_.cap, &size));
    st_->which = 1 - st_->which;
    st_->size = size;
    if (!last) return;
    // the result's segment: decode it while the next one arrives
    if (avg) ZCOLL_STEP(c_, set_divisor(c_, dst, size, static_cast<uint32_t>(c_.size)));
    ZCOLL_STEP(c_, decompress(c_, dst, size, s_.values, n_, false));
    return;
  }
  // values = D(lo) op D(hi), from the two streams (this rank's own too)
  ZCOLL_STEP(c_, decompress(c_, lo.data, lo.bytes, s_.values, n_, false));
  if (c_.op == ZCOLL_OP_SUM) {
    ZCOLL_STEP(c_, decompress(c_, hi.data, hi.bytes, s_.values, n_, true));
  } else {
    void* tmp = c_.ws->get(Workspace::kValuesA, n_ * c_.vsize + 8);
    ZCOLL_STEP(c_, decompress(c_, hi.data, hi.bytes, tmp, n_, false));
    if (c_.failed == ZCOLL_SUCCESS) reduce_ordered(c_, s_.values, s_.values, tmp, n_);
  }
  if (last && avg && c_.failed == ZCOLL_SUCCESS) scale(c_, s_.values, n_, c_.size);
}

void Exchange::share_decoded() {
  if (!p_.compressed() || p_.sums_streams()) return;
  size_t size = 0;
  ZCOLL_STEP(c_, compress(c_, s_.values, n_, s_.send, s_.cap, &size));
  ZCOLL_STEP(c_, decompress(c_, s_.send, size, s_.values, n_, false));
  st_->size = size;  // the stream the folded partner gets
  st_->shared = true;
}

}  // namespace zcoll::coll
