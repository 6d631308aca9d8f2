// agreement.h — the settings agreement of a compressed call: one small
// allreduce (max over the ranks of v and -v) that checks that every rank uses
// the same settings (the table in agreement.cc: a mismatch is
// ZCOLL_ERR_MISMATCH on every rank before any transfer) and agrees on what the
// bound needs: the global value range (REL), max |x| (PROD) and, for AUTO, the
// compression-ratio estimate.
#pragma once

#include "coll/control/call_plan.h"
#include "coll/control/call_report.h"

namespace zcoll::coll {

zcoll_status agree(zcoll_comm* zc, const Call& k, const Args& a, const Resolved& s,
                   const Selection& sel, Ctx& c, Agreed* out, CallReport& rep);

}  // namespace zcoll::coll
