// dispatch.cc — the one path of every collective call (run_call), in stages:
//
//   (16-bit)      bfloat16/float16 buffers run as the same call on float32
//                 copies (half_call.h), which comes back here
//   resolve       check the arguments; the collective's shape (collective.h),
//                 datatype and op; the sizes, bound and segment settings in
//                 force for this call
//   fallback      whether the call goes to the MPI library (mode mpi, other
//                 datatypes or ops, messages below ZCOLL_MIN_BYTES)
//   select        the mode and algorithm: the call's setting, the
//                 configuration, the size rule; or AUTO's first look
//                 (auto_select.cc)
//   agree         one small allreduce: settings match on every rank; the
//                 global range, max |x| and AUTO's ratio (agreement.cc)
//   decide        AUTO's decision at the agreed ratio
//   bound         the per-compression bound from the bound semantics and the
//                 algorithm's error model (error_bound.cc); none usable: raw
//   execute       the algorithm, then the report (call_report.cc).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "coll/control/agreement.h"
#include "coll/control/auto_select.h"
#include "coll/control/call_report.h"
#include "coll/control/codec_select.h"
#include "coll/control/collective.h"
#include "coll/control/error_bound.h"
#include "coll/api/half_call.h"
#include "coll/datapath/hierarchy.h"
#include "coll/datapath/sim_cost.h"
#include "core/error.h"
#include "transport/clock.h"

// The reason text is cut to its buffer on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

namespace {

// Tags of a call: kTagBase + 2 * (epoch mod kTagEpochs) and the next one.
constexpr int kTagBase = 100;
constexpr uint64_t kTagEpochs = 16000;
static_assert(kTagBase + 2 * kTagEpochs <= 32767, "MPI guarantees tags up to 32767");

bool classify_dtype(MPI_Datatype dt, zcoll_dtype* out) {
  if (dt == MPI_FLOAT)
    *out = ZCOLL_FLOAT32;
  else if (dt == MPI_DOUBLE)
    *out = ZCOLL_FLOAT64;
  else
    return false;
  return true;
}

bool classify_op(MPI_Op op, zcoll_op* out) {
  if (op == MPI_SUM)
    *out = ZCOLL_OP_SUM;
  else if (op == MPI_PROD)
    *out = ZCOLL_OP_PROD;
  else if (op == MPI_MAX)
    *out = ZCOLL_OP_MAX;
  else if (op == MPI_MIN)
    *out = ZCOLL_OP_MIN;
  else
    return false;
  return true;
}

// ---- resolve -----------------------------------------------------------------
// The handle's shape on a call of block count `count` with pipeline segments of
// s->seg_values (zcoll_comm_set_shape): where the block has the shape, the unit
// a piece is made of — the slices along the slowest dim (planes of a 3-D block,
// rows of a 2-D one), or along the next ones where a slice is longer than a
// segment — and the segments rounded up to whole units, so that the dense codec
// predicts each piece along the shape's rows and planes.
void pieces_shape(const zcoll_comm& zc, size_t count, Resolved* s) {
  const uint32_t nd = zc.shape_ndims;
  if (nd == 0) return;
  uint64_t product = 1;
  for (uint32_t d = 0; d < nd; ++d) product *= zc.shape_dims[d];
  if (product != count) return;
  uint32_t first = 1;  // the dims of a unit: [first, nd) (1-D: a value)
  uint64_t unit = count / zc.shape_dims[0];
  while (first + 1 < nd && unit > s->seg_values) unit /= zc.shape_dims[first++];
  s->pieces.unit = unit;
  s->pieces.ndims = nd - first;
  for (uint32_t d = first; d < nd; ++d) s->pieces.dims[d - first] = zc.shape_dims[d];
  s->seg_values = (s->seg_values + unit - 1) / unit * unit;
}

zcoll_status resolve(const zcoll_comm& zc, const Call& k, Resolved* out) {
  const int N = zc.tp->size();
  const CollectiveTraits& t = traits(k.coll);
  if (t.rooted && (k.root < 0 || k.root >= N))
    return fail(ZCOLL_ERR_INVALID_ARG, "root %d outside [0, %d)", k.root, N);
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER && !k.block && !k.recvcounts)
    return fail(ZCOLL_ERR_INVALID_ARG, "recvcounts is NULL");
  Resolved& s = *out;
  s.reduction = t.reduction;
  s.rooted = t.rooted;
  s.total = total_values(k, N);
  s.dtype_ok = classify_dtype(k.datatype, &s.dtype);
  s.op_ok = !t.reduction || classify_op(k.op, &s.op);
  s.average = zc.average && t.reduction && s.op_ok && s.op == ZCOLL_OP_SUM;
  s.vsize = s.dtype_ok ? zcoll_dtype_size(s.dtype) : 0;
  s.mode_from_call = zc.mode != ZCOLL_MODE_DEFAULT;
  s.mode = s.mode_from_call ? zc.mode : zc.cfg.mode;
  s.forced_from_call = zc.algorithm[k.coll] != ZCOLL_ALGO_AUTO;
  s.forced = s.forced_from_call ? zc.algorithm[k.coll] : zc.cfg.algorithm[k.coll];
  s.eb_mode = zc.eb_set ? zc.eb_mode : zc.cfg.eb_mode;
  s.eb_value = zc.eb_set ? zc.error_bound : zc.cfg.error_bound;
  s.chunk = zc.cfg.chunk_size ? zc.cfg.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  const size_t seg = zc.cfg.pipeline_values ? zc.cfg.pipeline_values : size_t{4} * s.chunk;
  s.seg_values = pipeline_segment_values(seg, s.total);  // s.total: no message is longer
  if (!t.reduction) pieces_shape(zc, k.count, &s);
  return ZCOLL_SUCCESS;
}

// Why the call goes to the MPI library without looking further (nullptr: it
// does not). why holds the text when it is composed.
const char* fallback_reason(const zcoll_comm& zc, const Resolved& s, char* why, size_t cap) {
  if (s.mode == ZCOLL_MODE_MPI) return "mode mpi";
  if (!s.dtype_ok) return "datatype is not MPI_FLOAT/MPI_DOUBLE";
  if (!s.op_ok) return "op is not MPI_SUM/PROD/MAX/MIN";
  if (s.total * s.vsize < zc.cfg.min_bytes) {
    std::snprintf(why, cap, "%zu B below ZCOLL_MIN_BYTES=%zu", s.total * s.vsize, zc.cfg.min_bytes);
    return why;
  }
  return nullptr;
}

// ---- select --------------------------------------------------------------------
// An explicit mode: the algorithm set for the call or the configuration, or
// the size rule.
zcoll_status select_explicit(const zcoll_comm& zc, const Call& k, const Resolved& s,
                             Selection* sel) {
  sel->mode = s.mode;
  if (s.forced != ZCOLL_ALGO_AUTO) {
    sel->algo = s.forced;
    sel->why_algo = s.forced_from_call ? "call setting" : "configured";
  } else {
    CostQuery q;
    q.coll = k.coll;
    q.size = zc.tp->size();
    q.total_values = s.total;
    q.vsize = s.vsize;
    sel->algo = default_algorithm(q, &sel->why_algo)->algo;
  }
  std::snprintf(sel->why_mode, sizeof sel->why_mode, "%s mode %s",
                s.mode_from_call ? "call" : "config", zcoll_mode_name(s.mode));
  if (sel->mode == ZCOLL_MODE_HOM && s.reduction && s.op != ZCOLL_OP_SUM) {
    sel->mode = ZCOLL_MODE_DOC;
    std::snprintf(sel->why_mode, sizeof sel->why_mode, "hom has no homomorphic %s: doc",
                  zcoll_op_name(s.op));
  }
  sel->codec = configured_codec(zc);
  if (sel->mode == ZCOLL_MODE_HOM && sel->codec == ZCOLL_CODEC_DENSE) {
    sel->mode = ZCOLL_MODE_DOC;  // dense streams have no homomorphic addition
    std::snprintf(sel->why_mode, sizeof sel->why_mode, "hom with the dense codec: doc");
  }
  // ZCOLL_CODEC=auto: the model picks the codec of the modes that can use
  // either (hom stays on the fast codec's homomorphic sums)
  sel->codec_auto = codec_choice(zc) &&
                    (sel->mode == ZCOLL_MODE_DOC || sel->mode == ZCOLL_MODE_CPR_P2P);
  sel->alg = find_algorithm(k.coll, sel->algo);
  if (!sel->alg)
    return fail(ZCOLL_ERR_INTERNAL, "no algorithm %s for %s", zcoll_algorithm_name(sel->algo),
                zcoll_collective_name(k.coll));
  return ZCOLL_SUCCESS;
}

zcoll_status select(zcoll_comm* zc, const Call& k, const Resolved& s, Selection* sel) {
  if (s.mode != ZCOLL_MODE_AUTO) return select_explicit(*zc, k, s, sel);
  return auto_first_look(zc, k, s, sel);
}

// ---- decide ------------------------------------------------------------------------
// After the agreement: AUTO's decision at the agreed ratios (sel->native is set
// when MPI runs), or the codec of an explicit mode with ZCOLL_CODEC=auto; the
// report's ratio is the chosen codec's.
zcoll_status decide(zcoll_comm* zc, const Call& k, const Resolved& s, const Agreed& g,
                    Selection* sel, CallReport& rep) {
  if (sel->autom) {
    ZCOLL_CHECK(auto_decide(zc, k, s, g.ratio, g.ratio_dense, sel));
    rep.set_prediction(*sel);
  } else if (sel->codec_auto) {
    ZCOLL_CHECK(choose_codec(zc, k, s, g, sel));
  } else {
    return ZCOLL_SUCCESS;
  }
  rep->ratio_estimate = sel->codec == ZCOLL_CODEC_DENSE ? g.ratio_dense : g.ratio;
  return ZCOLL_SUCCESS;
}

// ---- the call's context ------------------------------------------------------------
// Where the handle's data work runs: its device, the simulation, or the CPU.
DataOps& data_ops_of(const zcoll_comm& zc) {
  if (zc.device) return *zc.device->ops;
  if (DataOps* sim = sim::ops()) return *sim;
  return cpu_ops();
}

Ctx make_context(zcoll_comm* zc, const Call& k, const Resolved& s, const Selection& sel,
                 uint64_t epoch) {
  Ctx c;
  c.tp = zc->device ? zc->device->tp : zc->tp.get();
  c.ops = &data_ops_of(*zc);
  c.rank = c.tp->rank();
  c.size = c.tp->size();
  c.coll = k.coll;
  c.dtype = s.dtype;
  c.vsize = s.vsize;
  c.op = s.op;
  c.mode = sel.mode;
  c.average = s.average;
  c.threads = zc->cfg.threads;
  c.ws = &zc->ws;
  // A tag pair per call (data, abort notice), cycling through kTagEpochs pairs
  // within the 32767 every MPI allows: a message left over from an earlier
  // call cannot match this one's receives.
  c.tag = kTagBase + 2 * static_cast<int>(epoch % kTagEpochs);
  c.seg_values = sel.mode == ZCOLL_MODE_CPR_P2P ? SIZE_MAX  // the baseline: one piece per message
                                                : s.seg_values;
  // With ZCOLL_CODEC=auto the pieces stay 1-D: the model prices the codec's
  // 1-D ratio and rates, and the codec with dims compresses at a quarter of
  // that speed (a dense pick on its numbers could run 2-3x longer).
  if (!codec_choice(*zc)) c.pieces = s.pieces;
  return c;
}

// ---- bound -------------------------------------------------------------------------
// The quantum our streams carry at (dtype, eb, chunk), cached on the handle:
// received streams are checked against it. False if eb cannot be a
// quantization step.
bool ensure_quantum(zcoll_comm* zc, const Ctx& c, uint32_t chunk) {
  if (zc->q_eb == c.params.error_bound && zc->q_dtype == c.dtype && zc->q_chunk == chunk)
    return true;
  uint8_t probe[256];
  const double zero = 0;
  const float zf = 0;
  size_t psz = 0;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  const void* one = c.dtype == ZCOLL_FLOAT32 ? static_cast<const void*>(&zf) : &zero;
  if (zcoll_compress(&c.params, c.dtype, one, 1, probe, sizeof probe, &psz, c.threads) !=
          ZCOLL_SUCCESS ||
      zcoll_inspect(probe, psz, &info) != ZCOLL_SUCCESS)
    return false;
  zc->q_eb = c.params.error_bound;
  zc->q_dtype = c.dtype;
  zc->q_chunk = chunk;
  zc->q_quantum = info.quantum;
  return true;
}

// The algorithm's error model at this call.
ModelIn model_input(const Resolved& s, const Ctx& c, const Call& k, zcoll_mode mode) {
  ModelIn m;
  m.size = c.size;
  m.mode = mode;
  m.op = s.reduction ? s.op : ZCOLL_OP_SUM;
  m.hom = s.reduction && mode == ZCOLL_MODE_HOM && s.op == ZCOLL_OP_SUM;
  m.average = s.average;
  m.max_abs = c.max_abs;
  m.root = k.root;
  return m;
}

// The per-compression bound of a compressed call, with c.params and c.quantum
// for it; when no usable bound exists the call runs RAW, the same algorithm
// uncompressed (c.mode, c.seg_values), and b.why says why.
Bound derive_bound(zcoll_comm* zc, const Call& k, const Resolved& s, const Agreed& g,
                   const Selection& sel, Ctx& c) {
  Bound b;
  if (!c.compressed()) return b;
  ModelIn m = model_input(s, c, k, c.mode);
  const transport::Locality* layout = nullptr;  // known: hierarchy() ran (run_call)
  if ((sel.alg->restrictions & kNodeAware) && c.tp->locality(&layout) == ZCOLL_SUCCESS)
    set_layout(*layout, &m);
  const double target = target_bound(s.eb_mode, s.eb_value, g.gmin, g.gmax);
  double eb = 0;
  if (!(std::isfinite(target) && target > 0)) {
    b.why = "; no usable error bound: raw";
  } else {
    eb = per_compression_bound(sel.alg->model, m, target, zc->cfg.bound);
    if (eb <= 0) b.why = "; the result bound leaves no usable per-compression bound: raw";
  }
  if (eb > 0) {
    c.params.struct_size = sizeof c.params;
    c.params.eb_mode = ZCOLL_EB_ABS;
    c.params.error_bound = eb;
    c.params.chunk_size = s.chunk;
    c.params.flags = zc->cfg.codec_flags & ZCOLL_FLAG_CHECKSUM;  // ZCOLL_CHECKSUM
    c.params.codec = sel.codec;
    if (ensure_quantum(zc, c, s.chunk)) {
      c.quantum = zc->q_quantum;
    } else {
      b.why = "; the error bound cannot be a quantization step: raw";
      eb = 0;
    }
  }
  if (eb <= 0) {  // RAW: the same algorithm, uncompressed
    c.mode = ZCOLL_MODE_RAW;
    if (c.seg_values == SIZE_MAX) c.seg_values = s.seg_values;  // cpr_p2p had one piece
    return b;
  }
  c.eb = eb;
  b.eb = eb;
  b.result = result_bound(sel.alg->model, m, eb);
  return b;
}

// ---- execute -----------------------------------------------------------------------
zcoll_status execute(const Selection& sel, Ctx& c, const Args& a, CallReport& rep) {
  transport::Transport& tp = *c.tp;
  tp.bytes_sent = 0;
  tp.time_in_calls = 0;
  tp.first_send_at = 0;
  tp.last_recv_at = 0;
  // the algorithm, then the status agreed by all ranks (primitives.h)
  zcoll_status s = run_algorithm(*sel.alg, c, a);
  rep.set_timeline(tp.first_send_at, tp.last_recv_at);
  rep->bytes_sent = tp.bytes_sent;
  rep->bytes_uncompressed = c.compressed() ? c.logical_bytes : tp.bytes_sent;
  rep->time_compress = c.t_codec;
  rep->time_reduce = c.t_reduce;
  rep->time_comm += tp.time_in_calls;
  rep->compressions = c.compressions;
  rep->hom_adds = c.hom_adds;
  return s;
}

// The MPI library's collective, for `why`.
zcoll_status run_native_call(zcoll_comm* zc, const Call& k, const Resolved& s, const char* why,
                             CallReport& rep) {
  rep->mode = ZCOLL_MODE_MPI;
  rep->algorithm = ZCOLL_ALGO_NATIVE;
  std::snprintf(rep->reason, sizeof rep->reason, "%s", why);
  const double tc = now_seconds();
  const bool average = s.average && s.dtype_ok;
  const zcoll_status st = data_ops_of(*zc).run_native(zc, k, average, s.dtype);
  rep->time_comm = now_seconds() - tc;
  return rep.finish(st);
}

}  // namespace

zcoll_status run_call(zcoll_comm* zc, const Call& k) {
  clear_error();
  if (!zc || !zc->tp) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  // bfloat16/float16: the same call on float32 copies, rounded once at the end
  zcoll_dtype half;
  if (half_dtype_of(k.datatype, &half)) return run_half_call(zc, k, half);
  CallReport rep(zc, k);
  // Every call on the handle, whatever its path, advances the tag epoch on
  // every rank alike (all ranks make the same calls in the same order).
  const uint64_t epoch = zc->calls++;

  Resolved s;
  if (zcoll_status st = resolve(*zc, k, &s)) return rep.finish(st);
  if (k.coll == ZCOLL_COLL_REDUCE_SCATTER) rep->count = s.total;
  if (s.total == 0) return rep.finish_empty(s.mode);
  char why_fallback[96];
  if (const char* why = fallback_reason(*zc, s, why_fallback, sizeof why_fallback))
    return run_native_call(zc, k, s, why, rep);

  Selection sel;
  if (zcoll_status st = select(zc, k, s, &sel)) return rep.finish(st);
  rep.set_prediction(sel);
  if (sel.native) return run_native_call(zc, k, s, sel.native, rep);
  rep.set_selection(sel);

  const Args a =
      bind_args(k, zc->tp->size(), zc->tp->rank(), s.vsize, zc->counts.data(), zc->displs.data());
  Ctx c = make_context(zc, k, s, sel, epoch);
  Agreed g;
  if (zcoll_status st = agree(zc, k, a, s, sel, c, &g, rep)) return rep.finish(st);
  c.max_abs = g.max_abs;
  if (zcoll_status st = decide(zc, k, s, g, &sel, rep)) return rep.finish(st);
  if (sel.native) return run_native_call(zc, k, s, sel.native, rep);
  c.mode = sel.mode;
  // A node-aware algorithm's node and rail transports: collective the first
  // time, so here, where every rank runs the same algorithm (agreed above),
  // before the call's bracket (hierarchy.h).
  if (sel.alg->restrictions & kNodeAware) {
    Hierarchy h;
    if (zcoll_status st = hierarchy(*c.tp, &h)) return rep.finish(st);
  }
  const Bound b = derive_bound(zc, k, s, g, sel, c);
  rep.set_plan(s, sel, c, b);
  return rep.finish(execute(sel, c, a, rep));
}

}  // namespace zcoll::coll
