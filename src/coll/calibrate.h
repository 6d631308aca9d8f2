// calibrate.h — where the cost model's parameters come from: environment
// variables, a tuning file written by zcoll-tune, or a probe run by the handle
// (all ranks agree on the slowest rank's values); and the cheap per-call
// estimate of the compression ratio from a sample of the data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zcoll_tuner.h"

struct zcoll_comm;

namespace zcoll::coll {

// The model's parameters fixed before any probe: ZCOLL_TUNE_FILE first, then
// the ZCOLL_NET_* / ZCOLL_*_BW / ZCOLL_MODEL_* variables on top. Unset fields
// are NaN. Fails (with a message naming the variable or file) on bad values.
zcoll_status model_from_env(zcoll_model* partial);

// Fill zc->model if it is not ready: the fixed parameters, and a probe for the
// missing ones (collective: one small MPI_Allreduce decides whether any rank
// needs the probe, so that all ranks run it together or none does).
zcoll_status ensure_model(zcoll_comm* zc);

// Whether all ranks of the handle share one node (collective, once per
// handle; MPI_Comm_split_type SHARED). There, memory moves data faster than
// any codec, and AUTO runs MPI without modelling, unless ZCOLL_AUTO_LOCAL=model.
// Sets zc->single_node; fails with ZCOLL_ERR_MISMATCH if ZCOLL_AUTO_LOCAL
// differs across ranks.
zcoll_status ensure_locality(zcoll_comm* zc);

// Run the probe now (collective) and keep the fixed parameters on top.
zcoll_status calibrate(zcoll_comm* zc);

// A hash of the model's values, compared across ranks with the settings.
double model_hash(const zcoll_model& m);

// Compression ratio of data at absolute bound eb, estimated by compressing up
// to 16 windows of 4096 values spread over the data (headers excluded, as they
// are amortized over real segments). 0 when it cannot tell (no data, bad eb).
double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb);

// Write / read a tuning file (JSON).
zcoll_status write_tune_file(const char* path, const zcoll_model& m);
zcoll_status read_tune_file(const char* path, zcoll_model* m);

}  // namespace zcoll::coll
