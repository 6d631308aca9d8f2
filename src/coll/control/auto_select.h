// auto_select.h — mode AUTO: the cost model's choice among the MPI library's
// collective and zcoll's compressed modes and algorithms (cost_model.h), and
// the one owner of the ratio memo (zcoll_comm::RatioMemo: a compression ratio
// agreed in a recent call stands in for the per-call estimate).
//
// A call asks twice at most, and decides once:
//   auto_first_look  before the settings agreement, without communication: from
//                    a remembered ratio it decides; otherwise it only asks
//                    whether any compressed candidate can beat MPI at the
//                    largest ratio the format reaches (if not, MPI runs and the
//                    agreement is saved);
//   auto_decide      after the agreement, at the ratio every rank agreed on
//                    (unless the first look decided already); remembers it.
#pragma once

#include "coll/control/call_plan.h"

namespace zcoll::coll {

// sel->native is set when MPI runs; otherwise sel->mode / algo / alg hold the
// compressed candidate (final when sel->ev.from_memo).
zcoll_status auto_first_look(zcoll_comm* zc, const Call& k, const Resolved& s, Selection* sel);

// This rank's part of the ratio agreement: bytes per byte (1 / ratio) of its n
// values with `codec` at its own share of the bound (mn, mx: its finite
// range), or of the remembered ratio; 0 when it has no values.
double auto_inverse_ratio(const zcoll_comm& zc, const Resolved& s, const Selection& sel,
                          const Ctx& c, const void* data, size_t n, double mn, double mx,
                          zcoll_codec codec);

// The decision at the agreed ratios (ratio_dense: the dense codec's, with
// ZCOLL_CODEC=auto; else 0); sel->native is set when MPI runs.
zcoll_status auto_decide(zcoll_comm* zc, const Call& k, const Resolved& s, double ratio,
                         double ratio_dense, Selection* sel);

}  // namespace zcoll::coll
