// auto_select.cc — see auto_select.h.
#include "coll/control/auto_select.h"

#include <algorithm>
#include <cstdio>

#include "coll/control/calibrate.h"
#include "coll/control/codec_select.h"
#include "coll/datapath/hierarchy.h"
#include "core/error.h"
#include "core/log.h"

// The reason text is cut to its buffer on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

namespace {

// AUTO decides from a remembered ratio for at most this many calls before it
// estimates again (a deterministic count, so all ranks refresh together).
constexpr int kMemoCalls = 16;

zcoll_comm::RatioMemo& memo_of(zcoll_comm* zc, zcoll_collective coll) {
  return zc->ratio_memo[static_cast<int>(coll)];
}

// "mpi 1.2ms, hom/ring 1.3ms, doc/ring/dense 1.1ms, ..." for the log.
void describe(const Candidate* c, int n, char* out, size_t cap) {
  size_t pos = 0;
  out[0] = 0;
  for (int i = 0; i < n && pos + 1 < cap; ++i) {
    const bool mpi = c[i].mode == ZCOLL_MODE_MPI;
    const bool dense = c[i].codec == ZCOLL_CODEC_DENSE;
    int w = std::snprintf(out + pos, cap - pos, "%s%s%s%s%s %.3gms", i ? ", " : "",
                          zcoll_mode_name(c[i].mode), mpi ? "" : "/",
                          mpi ? "" : zcoll_algorithm_name(c[i].algo), dense ? "/dense" : "",
                          c[i].seconds * 1e3);
    if (w < 0) break;
    pos += static_cast<size_t>(w);
  }
}

// The model of the handle's codec: with ZCOLL_CODEC=dense the dense codec's
// rates where the model has them.
zcoll_model codec_model(const zcoll_comm& zc) {
  zcoll_model m = zc.model;
  if (configured_codec(zc) == ZCOLL_CODEC_DENSE) dense_model(zc.model, &m);
  return m;
}

// The cost model m's candidates at `ratio` (and the dense codec's at
// ratio_dense with ZCOLL_CODEC=auto), AUTO's pick among them, and its log line
// on rank 0.
void evaluate(zcoll_comm* zc, const Resolved& s, const zcoll_model& m, double ratio,
              double ratio_dense, const char* what, AutoEval* ev) {
  ev->ratio = ratio;
  ev->ratio_dense = ratio_dense;
  ev->q.ratio = ratio;
  ev->ncand =
      auto_candidates_at(m, ev->q, ev->codecs ? ratio_dense : 0, s.forced, ev->cand, &ev->best);
  const int r = zc->tp->rank();
  if (r == 0) {
    char table[512];
    describe(ev->cand, ev->ncand, table, sizeof table);
    ZCOLL_LOG(log::kInfo, r, zc->tp->size(), "auto, %s %.3g: %s -> %s/%s", what, ratio, table,
              zcoll_mode_name(ev->pick().mode), zcoll_algorithm_name(ev->pick().algo));
  }
}

// Takes the evaluation's pick: MPI (sel->native = why) or a compressed mode.
zcoll_status take_pick(const Call& k, const char* why_mpi, Selection* sel) {
  const Candidate& b = sel->ev.pick();
  if (b.mode == ZCOLL_MODE_MPI) {
    sel->native = why_mpi;
    return ZCOLL_SUCCESS;
  }
  sel->mode = b.mode;
  sel->algo = b.algo;
  sel->why_algo = "auto";
  if (sel->ev.codecs) {
    sel->codec = b.codec;
    explain_codec(sel, "with the mode", sel->ev.ratio, sel->ev.ratio_dense);
  }
  sel->alg = find_algorithm(k.coll, b.algo);
  if (!sel->alg)
    return fail(ZCOLL_ERR_INTERNAL, "no algorithm %s for %s", zcoll_algorithm_name(b.algo),
                zcoll_collective_name(k.coll));
  return ZCOLL_SUCCESS;
}

}  // namespace

zcoll_status auto_first_look(zcoll_comm* zc, const Call& k, const Resolved& s, Selection* sel) {
  sel->autom = true;
  ZCOLL_CHECK(ensure_locality(zc));
  if (zc->single_node == 1) {  // memory is faster than any codec (ZCOLL_AUTO_LOCAL=model models it)
    sel->native = "auto: all ranks share one node";
    return ZCOLL_SUCCESS;
  }
  ZCOLL_CHECK(ensure_model(zc));
  AutoEval& ev = sel->ev;
  ev.q.coll = k.coll;
  ev.q.size = zc->tp->size();
  ev.q.total_values = s.total;
  ev.q.vsize = s.vsize;
  ev.q.seg_values = s.seg_values;
  // hom candidates only for SUM on the fast codec (dense streams: doc)
  sel->codec = configured_codec(*zc);
  ev.codecs = codec_choice(*zc);
  ev.q.sum = s.reduction && s.op == ZCOLL_OP_SUM && sel->codec == ZCOLL_CODEC_FAST;
  const transport::Locality* layout = nullptr;  // known since ensure_locality
  if (zc->tp->locality(&layout) == ZCOLL_SUCCESS) set_layout(*layout, &ev.q);
  // A ratio agreed in a recent call with the same settings (refreshed every
  // kMemoCalls calls) decides now: every rank has the same memo.
  zcoll_comm::RatioMemo& memo = memo_of(zc, k.coll);
  ev.from_memo = memo.ratio > 0 && memo.calls < kMemoCalls && memo.dtype == s.dtype &&
                 memo.eb_mode == static_cast<int>(s.eb_mode) && memo.eb == s.eb_value;
  if (ev.from_memo) {
    ++memo.calls;
    const double cap = max_ratio(s.vsize);
    evaluate(zc, s, codec_model(*zc), std::min(cap, memo.ratio), std::min(cap, memo.ratio_dense),
             "recent ratio", &ev);
    std::snprintf(sel->why_mode, sizeof sel->why_mode, "auto: recent ratio ~%.3g, predicted %.3gms",
                  ev.ratio, ev.pick().seconds * 1e3);
    return take_pick(k, "auto: mpi predicted fastest at the recent ratio", sel);
  }
  // Otherwise: can any compressed candidate win? At the largest ratio the
  // format reaches; if MPI wins there, it wins at any ratio. Asked of the fast
  // codec (hom included for SUM), whatever ZCOLL_CODEC says: the dense codec
  // is no faster at the same ratio, so the answer is the same on ranks whose
  // codec settings differ, and the settings agreement reports the difference.
  const bool codecs = ev.codecs, sum = ev.q.sum;
  ev.codecs = false;
  ev.q.sum = s.reduction && s.op == ZCOLL_OP_SUM;
  evaluate(zc, s, zc->model, max_ratio(s.vsize), 0, "best possible ratio", &ev);
  ev.codecs = codecs;  // the decision after the agreement: the handle's codecs
  ev.q.sum = sum;
  return take_pick(k, "auto: mpi predicted fastest at any compression ratio", sel);
}

double auto_inverse_ratio(const zcoll_comm& zc, const Resolved& s, const Selection& sel,
                          const Ctx& c, const void* data, size_t n, double mn, double mx,
                          zcoll_codec codec) {
  if (!data || !n) return 0;
  if (sel.ev.from_memo) {
    const double r = codec == ZCOLL_CODEC_DENSE ? sel.ev.ratio_dense : sel.ev.ratio;
    return r > 0 ? 1.0 / r : 0;
  }
  // the estimate at this rank's own share of the bound (a REL bound from the
  // local range is at most the global one, so it errs towards less compression)
  double eb_local = s.eb_value;
  if (s.eb_mode == ZCOLL_EB_REL) eb_local = mx > mn ? s.eb_value * (mx - mn) : 0;
  if (zc.cfg.bound == ZCOLL_BOUND_RESULT) eb_local /= c.size;
  const double ratio = codec == ZCOLL_CODEC_DENSE
                           ? c.ops->estimate_ratio_dense(data, n, s.dtype, eb_local, s.chunk)
                           : c.ops->estimate_ratio(data, n, s.dtype, eb_local);
  return ratio > 0 ? 1.0 / ratio : 1.0;
}

zcoll_status auto_decide(zcoll_comm* zc, const Call& k, const Resolved& s, double ratio,
                         double ratio_dense, Selection* sel) {
  if (sel->ev.from_memo) return ZCOLL_SUCCESS;  // decided by the first look
  zcoll_comm::RatioMemo& memo = memo_of(zc, k.coll);
  memo.ratio = ratio;
  memo.ratio_dense = ratio_dense;
  memo.calls = 0;
  memo.dtype = s.dtype;
  memo.eb_mode = static_cast<int>(s.eb_mode);
  memo.eb = s.eb_value;
  evaluate(zc, s, codec_model(*zc), ratio, ratio_dense, "estimated ratio", &sel->ev);
  std::snprintf(sel->why_mode, sizeof sel->why_mode, "auto: ratio ~%.3g, predicted %.3gms", ratio,
                sel->ev.pick().seconds * 1e3);
  return take_pick(k, sel->why_mode, sel);
}

}  // namespace zcoll::coll
