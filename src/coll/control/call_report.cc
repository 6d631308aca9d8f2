// call_report.cc — see call_report.h.
#include "coll/control/call_report.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "coll/control/codec_select.h"
#include "core/error.h"
#include "core/log.h"
#include "transport/clock.h"

// The reason text is cut to zcoll_report.reason on purpose.
#pragma GCC diagnostic ignored "-Wformat-truncation"

namespace zcoll::coll {

CallReport::CallReport(zcoll_comm* zc, const Call& k)
    : rep_(zc->report), k_(k), t0_(now_seconds()) {
  N_ = zc->tp->size();
  r_ = zc->tp->rank();
  std::memset(&rep_, 0, sizeof rep_);
  rep_.struct_size = sizeof rep_;
  rep_.collective = k.coll;
  rep_.comm_size = N_;
  rep_.count = k.count;
  rep_.status = ZCOLL_SUCCESS;
}

void CallReport::set_timeline(double first_send_at, double last_recv_at) {
  rep_.time_first_send = first_send_at > 0 ? first_send_at - t0_ : 0;
  last_recv_at_ = last_recv_at;
}

void CallReport::set_plan(const Resolved& s, const Selection& sel, const Ctx& c, const Bound& b) {
  rep_.mode = c.mode;
  rep_.algorithm = sel.algo;
  rep_.eb_per_compression = c.compressed() ? b.eb : 0;
  rep_.error_bound = c.compressed() ? b.result : 0;
  rep_.error_factor = b.eb > 0 ? rep_.error_bound / b.eb : 0;
  rep_.codec = c.compressed() ? c.params.codec : ZCOLL_CODEC_FAST;
  // the pieces' shape where the dense codec uses it (zcoll_comm_set_shape), or
  // why a shape this call has is not used (make_context)
  std::string shape;
  if (c.pieces.unit > 0 && c.compressed() && c.params.codec == ZCOLL_CODEC_DENSE) {
    shape = "; pieces of whole " + std::to_string(c.pieces.unit) + "-value units";
    for (uint32_t d = 0; d < c.pieces.ndims; ++d)
      shape += (d ? "x" : " (") + std::to_string(c.pieces.dims[d]);
    if (c.pieces.ndims > 0) shape += ")";
  } else if (s.pieces.unit > 0 && c.pieces.unit == 0 && c.compressed()) {
    shape = "; shape not used (codec auto)";
  }
  std::snprintf(rep_.reason, sizeof rep_.reason, "%s; %s%s; %s %s%s%s%s", sel.why_mode,
                sel.why_algo, b.why, s.dtype == ZCOLL_FLOAT32 ? "float" : "double",
                s.reduction ? zcoll_op_name(s.op) : "data movement", *sel.why_codec ? "; " : "",
                sel.why_codec, shape.c_str());
}

void CallReport::set_prediction(const Selection& sel) {
  if (sel.autom && sel.ev.ncand > 0) rep_.time_predicted = sel.ev.pick().seconds;
}

zcoll_status CallReport::finish_empty(zcoll_mode mode) {
  rep_.mode = mode;
  rep_.algorithm = ZCOLL_ALGO_NONE;
  std::snprintf(rep_.reason, sizeof rep_.reason, "no values");
  return finish(ZCOLL_SUCCESS);
}

zcoll_status CallReport::finish(zcoll_status s) {
  rep_.status = s;
  const double end = now_seconds();
  rep_.time_total = end - t0_;
  rep_.time_after_recv = last_recv_at_ > 0 ? end - last_recv_at_ : 0;
  if (rep_.mode != ZCOLL_MODE_MPI) rep_.time_comm = std::min(rep_.time_comm, rep_.time_total);
  const bool compressed = rep_.mode != ZCOLL_MODE_MPI && rep_.mode != ZCOLL_MODE_RAW;
  ZCOLL_LOG(r_ == 0 ? log::kInfo : log::kTrace, r_, N_,
            "%s n=%llu: mode=%s algo=%s codec=%s (%s) bound=%.3g sent=%llu/%llu B t=%.1fus "
            "(range %.1fus, first send %.1fus, after last receive %.1fus)%s%s",
            zcoll_collective_name(k_.coll), static_cast<unsigned long long>(rep_.count),
            zcoll_mode_name(rep_.mode), zcoll_algorithm_name(rep_.algorithm),
            compressed ? codec_name(rep_.codec) : "none", rep_.reason, rep_.error_bound,
            static_cast<unsigned long long>(rep_.bytes_sent),
            static_cast<unsigned long long>(rep_.bytes_uncompressed), rep_.time_total * 1e6,
            rep_.time_range * 1e6, rep_.time_first_send * 1e6, rep_.time_after_recv * 1e6,
            s ? " FAILED: " : "", s ? zcoll_last_error() : "");
  return s;
}

}  // namespace zcoll::coll
