// codec_select.cc — see codec_select.h.
#include "coll/control/codec_select.h"

#include <cstdio>

#include "coll/control/calibrate.h"
#include "coll/control/cost_model.h"

namespace zcoll::coll {

zcoll_codec configured_codec(const zcoll_comm& zc) {
  const uint64_t f = zc.cfg.codec_flags;
  return (f & ZCOLL_FORMAT_FLAG_DENSE) && !(f & ZCOLL_CODEC_FLAG_AUTO) ? ZCOLL_CODEC_DENSE
                                                                       : ZCOLL_CODEC_FAST;
}

bool codec_choice(const zcoll_comm& zc) {
  return (zc.cfg.codec_flags & ZCOLL_CODEC_FLAG_AUTO) && !zc.device;
}

const char* codec_name(zcoll_codec codec) { return codec == ZCOLL_CODEC_DENSE ? "dense" : "fast"; }

void explain_codec(Selection* sel, const char* what, double ratio, double ratio_dense) {
  std::snprintf(sel->why_codec, sizeof sel->why_codec,
                "codec auto: %s (%s; ratio fast ~%.3g, dense ~%.3g)", codec_name(sel->codec), what,
                ratio, ratio_dense);
}

zcoll_status choose_codec(zcoll_comm* zc, const Call& k, const Resolved& s, const Agreed& g,
                          Selection* sel) {
  sel->codec = ZCOLL_CODEC_FAST;
  if (!(g.ratio > 0 && g.ratio_dense > 0)) {
    explain_codec(sel, "no estimate", g.ratio, g.ratio_dense);
    return ZCOLL_SUCCESS;
  }
  ZCOLL_CHECK(ensure_model(zc));
  if (!model_usable(zc->model)) {
    explain_codec(sel, "the model has no dense rates", g.ratio, g.ratio_dense);
    return ZCOLL_SUCCESS;
  }
  CostQuery q;
  q.coll = k.coll;
  q.size = zc->tp->size();
  q.total_values = s.total;
  q.vsize = s.vsize;
  q.seg_values = s.seg_values;
  q.ratio = g.ratio;
  const CodecPick p = pick_codec(zc->model, q, g.ratio_dense, sel->mode, sel->algo);
  sel->codec = p.codec;
  explain_codec(sel, p.why, g.ratio, g.ratio_dense);
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
