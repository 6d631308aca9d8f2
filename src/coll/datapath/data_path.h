// data_path.h — what the mode of a call (raw, cpr_p2p, doc, hom) does with the
// data: the one place where the modes differ. An algorithm file writes its
// schedule (who sends what to whom, and when) once, against these steps:
//
//   Message    bytes on the wire: values (raw) or one compressed stream
//   pack       values -> a message (raw: the values themselves, no copy)
//   unpack     a received message -> values (raw: a copy, none in place)
//   Partial    a partial reduction of one segment on this rank: started from
//              its own values, added to with the partials its peers send,
//              ended as the message it forwards or as values (the result)
//
// Two properties choose between message patterns where the modes' data need
// different ones (the schedules of each pattern are mode-agnostic):
//   travels()   a piece is compressed once where it starts and forwarded
//               untouched (doc, hom): its size is known only there, so the
//               data-movement algorithms send size tables and balanced byte
//               segments (C-Coll's data movement framework);
//   otherwise   every hop makes its message from the values it holds (raw;
//               cpr_p2p, which compresses before every send and decompresses
//               after every receive, one stream per message).
// And one for reductions: Partial keeps a sum compressed between hops when
// sums_streams() (hom: homomorphic additions; doc and cpr_p2p decompress,
// operate and recompress).
#pragma once

#include <cstddef>
#include <cstdint>

#include "coll/datapath/context.h"

namespace zcoll::coll {

// A message: `bytes` at `data`.
struct Message {
  const uint8_t* data = nullptr;
  size_t bytes = 0;
};

class DataPath {
 public:
  explicit DataPath(Ctx& c) : c_(c) {}
  Ctx& ctx() const { return c_; }

  bool compressed() const { return c_.compressed(); }
  bool travels() const { return c_.poll(); }                                // doc, hom
  bool sums_streams() const { return c_.hom(); }                            // hom with SUM
  bool one_message_per_piece() const { return c_.seg_values == SIZE_MAX; }  // cpr_p2p
  // Bytes a message of n values may take (a receive's capacity).
  size_t capacity(size_t n) const { return c_.piece_capacity(n); }
  // raw's messages are the values themselves: a send of values must complete
  // before they change, and a receive of values can land in place.
  bool messages_are_values() const { return !compressed(); }
  // Where a message of values for `values` is received: in place (raw) or in slot.
  uint8_t* receive_slot(void* values, uint8_t* slot) const {
    return compressed() ? slot : static_cast<uint8_t*>(values);
  }

  // n values -> a message: raw sends the values in place (slot unused);
  // compressed modes compress into slot (cap bytes).
  zcoll_status pack(const void* values, size_t n, uint8_t* slot, size_t cap, Message* out) const;
  // A received message of n values -> dst (raw: a copy unless it is there
  // already). False when the message is an error marker (c.failed is set).
  bool unpack(Message m, void* dst, size_t n) const;

 private:
  Ctx& c_;
};

// A partial reduction of n values on this rank. Started from `init` (this
// rank's values: read, never written), it accumulates received partials and
// ends as a message (emit) or as values (the buffer `values`, which may be
// init itself when it may be overwritten). Its representation is the mode's:
//   values   raw, doc, cpr_p2p (received streams are decoded and reduced
//            into `values`; emit compresses), and hom where the reduction
//            ends here (to_values): the exact own values plus decoded sums;
//   stream   hom otherwise: this rank's values compressed once (start can be
//            called early, to overlap a transfer), homomorphic additions,
//            never decoded on this rank.
// The last stream lands in `out` (the send slot, out_cap bytes) without a copy;
// the ones before alternate between tmp[0] and tmp[1] (tmp_cap bytes each;
// tmp[1] only for more than one addition). raw builds a partial that is sent
// in `out` too (its message is its values).
class Partial {
 public:
  struct Buffers {
    void* values = nullptr;  // n values (the values representation)
    uint8_t* out = nullptr;  // the message slot
    size_t out_cap = 0;
    uint8_t* tmp[2] = {nullptr, nullptr};
    size_t tmp_cap = 0;
  };
  // adds: how many partials will be added (the last one lands in out).
  Partial(const DataPath& p, const void* init, size_t n, const Buffers& b, int adds,
          bool to_values);

  // hom: compress this rank's values now (else at the first add or emit).
  void start();
  // Add a received partial: mine op theirs (unless it is an error marker: then
  // c.failed is set and nothing more is computed).
  void add(Message theirs);
  // The partial as a message (raw: the values, in place). average: the
  // reduction is complete, divide the sum by the communicator size first.
  Message emit(bool average = false);
  // The values (to_values): the `values` buffer, or init when nothing was added.
  const void* values() const { return started_ ? b_.values : init_; }

 private:
  const DataPath& p_;
  Ctx& c_;
  const void* init_;
  size_t n_;
  Buffers b_;
  int adds_;  // partials to be added
  int added_ = 0;
  bool stream_;             // the stream representation
  bool started_ = false;    // values: the buffer holds the partial; stream: compressed
  uint8_t* cur_ = nullptr;  // stream: where the current stream is
  size_t cur_size_ = 0;
};

// The running result of one segment of a recursive-doubling exchange on this
// rank: values (raw, doc, cpr_p2p) or, in hom, a stream in one of two stream
// slots (State says which; the caller keeps it between rounds). Partners
// compute identical results: both combine the same two messages in rank order.
class Exchange {
 public:
  struct Slots {
    void* values = nullptr;                   // the segment's values (the call's output)
    uint8_t* send = nullptr;                  // doc, cpr_p2p: the stream this rank sends
    uint8_t* stream[2] = {nullptr, nullptr};  // hom: the running stream, ping-pong
    size_t cap = 0;                           // bytes of each slot
  };
  struct State {
    int which = -1;       // hom: the stream slot that holds the segment (-1: none yet)
    size_t size = 0;      // its bytes (doc, cpr_p2p after share_decoded: the send slot's)
    bool shared = false;  // share_decoded ran: the send slot holds the message
  };
  Exchange(const DataPath& p, size_t n, const Slots& s, State* st);

  // hom: compress the values now (once; before a wait, to overlap it).
  void start();
  // What this rank sends: the values (raw), a fresh stream of them (doc,
  // cpr_p2p), the running stream (hom).
  Message message();
  // The pre-step: absorb a folded partner's partial (raw, hom: theirs op mine;
  // doc, cpr_p2p: mine op their decoded values).
  void fold(Message theirs);
  // A round: the result of both partners' messages, lower rank first, the same
  // on both (doc, cpr_p2p decode this rank's own sent stream too). last: the
  // last round, after which the values hold the result (hom decodes it), divided
  // by N with average.
  void combine(Message mine, Message theirs, bool mine_lower, bool last, bool average);
  // After the rounds (doc, cpr_p2p, where folded ranks take the result
  // compressed): every participant takes the decoded stream it sends them,
  // so that all ranks hold the same values; message() then sends that stream.
  void share_decoded();

 private:
  const DataPath& p_;
  Ctx& c_;
  size_t n_;
  Slots s_;
  State* st_;
};

}  // namespace zcoll::coll
