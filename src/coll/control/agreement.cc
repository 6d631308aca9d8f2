// agreement.cc — see agreement.h.
#include "coll/control/agreement.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "coll/control/auto_select.h"
#include "coll/control/calibrate.h"
#include "coll/control/collective.h"
#include "core/error.h"
#include "transport/clock.h"

// The reason text is cut to zcoll_report.reason on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

namespace {

// ---- the settings every rank must share ------------------------------------------
// What a setting is read from.
struct View {
  const zcoll_comm& zc;
  const Call& k;
  const Args& a;
  const Resolved& s;
  const Selection& sel;
  const Ctx& c;
  bool cmp;         // a compressed mode: the bound settings matter
  bool need_range;  // REL: the value range is agreed
};

// Reduce_scatter's recvcounts, hashed (exactly representable in a double).
double counts_hash(const View& v) {
  if (v.k.coll != ZCOLL_COLL_REDUCE_SCATTER) return 0;
  double h = 0;
  for (int i = 0; i < v.c.size; ++i)
    h = std::fmod(h * 1000003.0 + static_cast<double>(v.a.counts[i]), 9007199254740881.0);
  return h;
}

// One row per setting, in the order a mismatch is reported.
struct Setting {
  const char* name;
  double (*value)(const View&);
};
// clang-format off
const Setting kSettings[] = {
  {"error-bound mode", [](const View& v) { return v.cmp ? double(v.s.eb_mode) : 0.0; }},
  {"error bound",      [](const View& v) { return v.cmp ? v.s.eb_value : 0.0; }},
  {"bound semantics",  [](const View& v) { return v.cmp ? double(v.zc.cfg.bound) : 0.0; }},
  {"mode",             [](const View& v) { return double(v.sel.autom ? ZCOLL_MODE_AUTO : v.sel.mode); }},
  // The setting as well as the choice: a rank forcing the algorithm AUTO would
  // pick is still a mismatch, whatever AUTO picks on this machine.
  {"algorithm setting", [](const View& v) { return double(v.s.forced); }},
  {"algorithm",        [](const View& v) { return double(v.sel.algo); }},
  {"count",            [](const View& v) { return double(v.s.total); }},
  {"recvcounts",       counts_hash},
  {"datatype",         [](const View& v) {  // a 16-bit call: its 16-bit type (half_call.h)
                         return double(v.k.values16 ? v.k.values16 : int(v.s.dtype)); }},
  {"op",               [](const View& v) { return v.s.reduction ? double(v.s.op) : 0.0; }},
  {"root",             [](const View& v) { return v.s.rooted ? double(v.k.root) : 0.0; }},
  {"chunk size",       [](const View& v) { return v.cmp ? double(v.s.chunk) : 0.0; }},
  {"shape (zcoll_comm_set_shape)", [](const View& v) { return double(v.s.pieces.unit); }},
  {"pipeline segment", [](const View& v) { return v.c.seg_values == SIZE_MAX ? 0.0 : double(v.c.seg_values); }},
  {"average",          [](const View& v) { return double(v.s.average); }},
  {"collective",       [](const View& v) { return double(v.k.coll); }},
  {"cost model (ZCOLL_NET_*, ZCOLL_*_BW, ZCOLL_TUNE_FILE)",
                       [](const View& v) { return v.sel.autom ? model_hash(v.zc.model) : 0.0; }},
  {"codec flags (ZCOLL_CHECKSUM, ZCOLL_CODEC)", [](const View& v) { return v.cmp ? double(v.zc.cfg.codec_flags) : 0.0; }},
  {"value range (ZCOLL_REL_RANGE)",
                       [](const View& v) { return v.need_range && v.zc.rel_range_sampled ? 1.0 : 0.0; }},
};
// clang-format on
constexpr int kSettingCount = sizeof kSettings / sizeof kSettings[0];

}  // namespace

zcoll_status agree(zcoll_comm* zc, const Call& k, const Args& a, const Resolved& s,
                   const Selection& sel, Ctx& c, Agreed* out, CallReport& rep) {
  const bool cmp = c.compressed();
  size_t data_n = 0;
  const void* data = bound_data(k, a, c.size, c.rank, &data_n);
  double mn = std::numeric_limits<double>::infinity(), mx = -mn, maxabs = 0;
  const bool need_range = cmp && s.eb_mode == ZCOLL_EB_REL;
  const bool need_mag = cmp && s.op == ZCOLL_OP_PROD && s.reduction;
  const double t_range = now_seconds();
  // ZCOLL_REL_RANGE=sampled: a REL range from a sample, never PROD's magnitude
  const bool sampled = zc->rel_range_sampled && need_range && !need_mag;
  if ((need_range || need_mag) && data && data_n)
    ZCOLL_CHECK(c.ops->stats(c, data, data_n, sampled, &mn, &mx, &maxabs));
  // AUTO: this rank's part of the ratio estimate (a compressed candidate);
  // ZCOLL_CODEC=auto: the dense codec's too
  const bool want_ratio = (sel.autom || sel.codec_auto) && cmp;
  const bool want_dense = (sel.ev.codecs || sel.codec_auto) && cmp;
  const double inv_ratio =
      want_ratio ? auto_inverse_ratio(*zc, s, sel, c, data, data_n, mn, mx, ZCOLL_CODEC_FAST) : 0;
  const double inv_dense =
      want_dense ? auto_inverse_ratio(*zc, s, sel, c, data, data_n, mn, mx, ZCOLL_CODEC_DENSE) : 0;
  rep->time_range = now_seconds() - t_range;
  // Layout: max, -min, max|x|, the settings as (v, -v) pairs, 1/ratio of
  // the fast and the dense codec.
  const View view{*zc, k, a, s, sel, c, cmp, need_range};
  constexpr int kValues = 5 + 2 * kSettingCount;
  double v[kValues];
  v[0] = mx;
  v[1] = -mn;
  v[2] = maxabs;
  for (int i = 0; i < kSettingCount; ++i) {
    const double x = kSettings[i].value(view);
    v[3 + 2 * i] = x;
    v[4 + 2 * i] = -x;
  }
  v[kValues - 2] = inv_ratio;
  v[kValues - 1] = inv_dense;
  const double ta = now_seconds();
  zcoll_status st = c.tp->allreduce_max(v, kValues);
  rep->time_comm += now_seconds() - ta;
  ZCOLL_CHECK(st);
  for (int i = 0; i < kSettingCount; ++i) {
    const double hi = v[3 + 2 * i], lo = -v[4 + 2 * i];
    if (hi != lo) {
      std::snprintf(rep->reason, sizeof rep->reason, "%s differs across ranks", kSettings[i].name);
      return fail(ZCOLL_ERR_MISMATCH,
                  "%s differs across ranks (min %.17g, max %.17g): every rank must use the same "
                  "settings",
                  kSettings[i].name, lo, hi);
    }
  }
  out->gmax = v[0];
  out->gmin = -v[1];
  out->max_abs = v[2];
  const double inv = v[kValues - 2], inv_d = v[kValues - 1];
  out->ratio = want_ratio ? (inv > 0 ? 1.0 / inv : 1.0) : 0;
  out->ratio_dense = want_dense ? (inv_d > 0 ? 1.0 / inv_d : 1.0) : 0;
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
