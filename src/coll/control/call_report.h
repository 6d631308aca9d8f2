// call_report.h — zcoll_comm::report for the call in progress: started at the
// call's beginning, filled as the stages go, finished (time, log line at
// ZCOLL_DEBUG=INFO) once.
#pragma once

#include "coll/control/call_plan.h"

namespace zcoll::coll {

class CallReport {
 public:
  CallReport(zcoll_comm* zc, const Call& k);
  zcoll_report& operator*() { return rep_; }
  zcoll_report* operator->() { return &rep_; }

  // The transport's timeline of the algorithm (now_seconds(); 0: none).
  void set_timeline(double first_send_at, double last_recv_at);
  // The mode and algorithm chosen before the settings agreement (what a call
  // that fails there reports).
  void set_selection(const Selection& sel) {
    rep_.mode = sel.mode;
    rep_.algorithm = sel.algo;
  }
  // The plan that runs: mode, algorithm, bounds and the reason line.
  void set_plan(const Resolved& s, const Selection& sel, const Ctx& c, const Bound& b);
  // AUTO's prediction for what runs (0 when AUTO did not choose).
  void set_prediction(const Selection& sel);

  zcoll_status finish(zcoll_status s);
  // A call with no values: nothing to do, successfully.
  zcoll_status finish_empty(zcoll_mode mode);

 private:
  zcoll_report& rep_;
  const Call& k_;
  double t0_;
  double last_recv_at_ = 0;
  int N_ = 1, r_ = 0;
};

}  // namespace zcoll::coll
