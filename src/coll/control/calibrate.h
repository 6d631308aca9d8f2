// calibrate.h — where the cost model's parameters come from: environment
// variables, a tuning file written by zcoll-tune, or a probe run by the handle
// (all ranks agree on the slowest rank's values); and the cheap per-call
// estimate of the compression ratio from a sample of the data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "transport/transport.h"
#include "zcoll_tuner.h"

struct zcoll_comm;

namespace zcoll::coll {

// The model's parameters fixed before any probe: ZCOLL_TUNE_FILE first, then
// the ZCOLL_NET_* / ZCOLL_*_BW / ZCOLL_MODEL_* variables on top. Unset fields
// are NaN. Fails (with a message naming the variable or file) on bad values.
zcoll_status model_from_env(zcoll_model* partial);

// Fill zc->model if it is not ready: the fixed parameters, and a probe for the
// missing ones (collective: one small allreduce decides whether any rank
// needs the probe, so that all ranks run it together or none does).
zcoll_status ensure_model(zcoll_comm* zc);

// Whether all ranks of the handle share one node (collective, once per handle:
// the transport's locality, found then; ZCOLL_NODE_MAP can emulate nodes). There, memory
// moves data faster than any codec, and AUTO runs MPI without modelling,
// unless ZCOLL_AUTO_LOCAL=model. Sets zc->single_node; fails with
// ZCOLL_ERR_MISMATCH if ZCOLL_AUTO_LOCAL differs across ranks.
zcoll_status ensure_locality(zcoll_comm* zc);
// Its work on any transport (collective; the transport's locality() the first
// time): *single_node = 1 when the group is one node and local_model is not set
// on any rank, else 0.
zcoll_status agree_locality(transport::Transport& tp, bool local_model, int* single_node);

// Run the probe now (collective) and keep the fixed parameters on top.
zcoll_status calibrate(zcoll_comm* zc);
// The probe on any transport (collective; everything it sends goes through
// tp): codec rates with `threads` threads and chunks of chunk_size values,
// latency and bandwidth of a ring exchange, the agreement's allreduce, and the
// transport's baseline_allreduce to scale the baseline's model (left at 1 when
// the transport has none); the slowest rank's values on every rank, with
// `fixed`'s set fields (NaN = unset) on top.
zcoll_status probe_model(transport::Transport& tp, int threads, uint32_t chunk_size,
                         const zcoll_model& fixed, zcoll_model* out);

// A hash of the model's values, compared across ranks with the settings.
double model_hash(const zcoll_model& m);

// Compression ratio of data at absolute bound eb with `codec`, estimated by
// compressing up to 16 windows of 4096 values spread over the data (headers
// excluded, as they are amortized over real segments) in chunks of `chunk`
// values (0 or more than a window: one chunk per window; the dense codec's
// per-chunk tables make its ratio depend on it). 0 when it cannot tell (no
// data, bad eb).
double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb,
                      zcoll_codec codec = ZCOLL_CODEC_FAST, uint32_t chunk = 0);

// Write / read a tuning file (JSON).
zcoll_status write_tune_file(const char* path, const zcoll_model& m);
zcoll_status read_tune_file(const char* path, zcoll_model* m);

}  // namespace zcoll::coll
