// call_plan.h — what dispatch.cc works out for one call, stage by stage
// (resolve, select, agree, bound), shared by the stages' files: the AUTO
// decision (auto_select.cc), the settings agreement (agreement.cc) and the
// report (call_report.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "coll/control/algorithms.h"
#include "coll/control/comm.h"
#include "coll/control/cost_model.h"

namespace zcoll::coll {

// What the call asks for, after the handle's settings are applied.
struct Resolved {
  size_t total = 0;  // values moved or reduced by all ranks together (size threshold)
  bool dtype_ok = false, op_ok = false;
  zcoll_dtype dtype = ZCOLL_FLOAT32;
  zcoll_op op = ZCOLL_OP_SUM;  // SUM for data movement
  size_t vsize = 0;            // 0 for a datatype zcoll does not compress
  bool average = false;        // SUM divided by the communicator size
  zcoll_mode mode = ZCOLL_MODE_AUTO;
  bool mode_from_call = false;               // zcoll_comm_set_mode, not the configuration
  zcoll_algorithm forced = ZCOLL_ALGO_AUTO;  // explicit algorithm, AUTO if none
  bool forced_from_call = false;
  zcoll_eb_mode eb_mode = ZCOLL_EB_REL;
  double eb_value = 0;
  uint32_t chunk = 0;                      // codec chunk (values)
  size_t seg_values = 0;                   // pipeline segment (values)
  bool reduction = false, rooted = false;  // the collective's traits
  PieceShape pieces;                       // the handle's shape where it applies (context.h)
};

// AUTO's evaluation of the cost model (auto_select.cc).
struct AutoEval {
  CostQuery q;
  bool codecs = false;  // ZCOLL_CODEC=auto: the dense codec's rows too (at ratio_dense)
  double ratio_dense = 0;
  Candidate cand[kMaxCandidates];
  int ncand = 0, best = 0;
  bool from_memo = false;  // a ratio agreed in a recent call decides (no estimate)
  double ratio = 0;        // the ratio of the evaluation
  const Candidate& pick() const { return cand[best]; }
};

// The mode and algorithm that run.
struct Selection {
  zcoll_mode mode = ZCOLL_MODE_RAW;
  zcoll_algorithm algo = ZCOLL_ALGO_NONE;
  const Algorithm* alg = nullptr;
  bool autom = false;            // chosen by AUTO
  const char* native = nullptr;  // set: run the MPI library's collective, for this reason
  char why_mode[160] = "";
  const char* why_algo = "";
  zcoll_codec codec = ZCOLL_CODEC_FAST;  // the codec of the compressed messages
  bool codec_auto = false;               // ZCOLL_CODEC=auto: the model picks it (codec_select.h)
  char why_codec[96] = "";               // ZCOLL_CODEC=auto: the pick and both ratios
  AutoEval ev;                           // autom: the evaluation that chose
};

// What all ranks agreed on (agreement.cc).
struct Agreed {
  double gmin = 0, gmax = 0;  // finite inputs of all ranks (gmax < gmin: none)
  double max_abs = 0;         // max |x| of all ranks' finite inputs
  double ratio = 0;           // AUTO: the compression-ratio estimate (0: none)
  double ratio_dense = 0;     // ZCOLL_CODEC=auto: the dense codec's estimate (0: none)
};

// The bound of the call (dispatch.cc derive_bound): per compression and of
// the result; eb == 0: the call runs uncompressed (why says why).
struct Bound {
  double eb = 0;
  double result = 0;
  const char* why = "";
};

}  // namespace zcoll::coll
