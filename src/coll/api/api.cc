// api.cc — the public C API of libzcoll_mpi: the handle, its settings, the
// report, and the collectives, each a thin wrapper over run_call() (through
// guarded_call: no exception crosses the C API).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <strings.h>

#include "coll/control/algorithms.h"
#include "coll/control/calibrate.h"
#include "coll/control/cost_model.h"
#include "coll/datapath/sim_cost.h"
#include "coll/control/comm.h"
#include "coll/control/collective.h"
#include "coll/control/comm_config.h"
#include "coll/api/half_call.h"
#include "coll/api/nonblocking.h"
#include "core/config.h"
#include "core/error.h"
#include "core/struct_io.h"
#include "core/log.h"

using zcoll::fail;

namespace {
// First-version sizes of the extensible structs (the struct_size rule, zcoll.h).
constexpr size_t kConfigV1 = ZCOLL_STRUCT_V1_SIZE(zcoll_comm_config, algorithm_v1);
constexpr size_t kReportV1 = ZCOLL_STRUCT_V1_SIZE(zcoll_report, ratio_estimate);
constexpr size_t kModelV1 = ZCOLL_STRUCT_V1_SIZE(zcoll_model, source);
}  // namespace
using zcoll::coll::Call;

namespace {
// Every collective enters here: no exception crosses the C API (bad_alloc ->
// ZCOLL_ERR_NO_MEMORY, anything else -> ZCOLL_ERR_INTERNAL; core/error.h). A
// blocking call runs after the handle's pending nonblocking ones (nonblocking.h).
zcoll_status guarded_call(zcoll_comm* zc, const Call& call) noexcept {
  return zcoll::guarded("zcoll collective", [&] {
    zcoll::coll::drain(zc);
    return zcoll::coll::run_call(zc, call);
  });
}
}  // namespace

extern "C" {

const char* zcoll_mode_name(zcoll_mode m) {
  switch (m) {
    case ZCOLL_MODE_DEFAULT: return "default";
    case ZCOLL_MODE_MPI: return "mpi";
    case ZCOLL_MODE_RAW: return "raw";
    case ZCOLL_MODE_CPR_P2P: return "cpr_p2p";
    case ZCOLL_MODE_DOC: return "doc";
    case ZCOLL_MODE_HOM: return "hom";
    case ZCOLL_MODE_AUTO: return "auto";
  }
  return "?";
}

const char* zcoll_algorithm_name(zcoll_algorithm a) {
  switch (a) {
    case ZCOLL_ALGO_AUTO: return "auto";
    case ZCOLL_ALGO_NATIVE: return "native";
    case ZCOLL_ALGO_NONE: return "none";
    default: break;
  }
  const char* name = zcoll::coll::algorithm_name(a);  // the algorithm table
  return name ? name : "?";
}

const char* zcoll_collective_name(zcoll_collective c) {
  if (c == ZCOLL_COLL_NONE) return "none";
  return zcoll::coll::is_collective(c) ? zcoll::coll::traits(c).name : "?";
}

zcoll_status zcoll_collective_from_name(const char* name, zcoll_collective* collective) {
  zcoll::clear_error();
  if (!name || !collective) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  const zcoll_collective c = zcoll::coll::collective_named(name);
  if (c == ZCOLL_COLL_NONE)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "unknown collective '%s' (allreduce, reduce_scatter, allgather, bcast, scatter, "
                "reduce, gather)",
                name);
  *collective = c;
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_algorithm_from_name(zcoll_collective collective, const char* name,
                                       zcoll_algorithm* algorithm) {
  zcoll::clear_error();
  if (!name || !algorithm) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  if (!zcoll::coll::is_collective(collective))
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown collective %d", static_cast<int>(collective));
  if (strcasecmp(name, "auto") == 0) {
    *algorithm = ZCOLL_ALGO_AUTO;
    return ZCOLL_SUCCESS;
  }
  const zcoll::coll::Algorithm* a = zcoll::coll::find_algorithm_named(collective, name);
  if (!a)
    return fail(ZCOLL_ERR_INVALID_ARG, "%s has no algorithm '%s' (%s)",
                zcoll_collective_name(collective), name, zcoll::coll::algorithm_words(collective));
  *algorithm = a->algo;
  return ZCOLL_SUCCESS;
}

int zcoll_algorithms_of(zcoll_collective collective, zcoll_algorithm* out, int cap) {
  size_t rows = 0;
  const zcoll::coll::Algorithm* table = zcoll::coll::algorithms(&rows);
  int n = 0;
  for (size_t i = 0; i < rows; ++i) {
    if (table[i].coll != collective) continue;
    if (out && n < cap) out[n] = table[i].algo;
    ++n;
  }
  return n;
}

zcoll_status zcoll_mpi_datatype(zcoll_dtype dtype, MPI_Datatype* datatype) {
  return zcoll::guarded("zcoll_mpi_datatype", [&] {
    zcoll::clear_error();
    return zcoll::coll::half_datatype(dtype, datatype);
  });
}

zcoll_status zcoll_mode_from_name(const char* name, zcoll_mode* mode) {
  zcoll::clear_error();
  if (!name || !mode) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  for (int m = ZCOLL_MODE_DEFAULT; m <= ZCOLL_MODE_AUTO; ++m)
    if (strcasecmp(name, zcoll_mode_name(static_cast<zcoll_mode>(m))) == 0) {
      *mode = static_cast<zcoll_mode>(m);
      return ZCOLL_SUCCESS;
    }
  return fail(ZCOLL_ERR_INVALID_ARG, "unknown mode '%s' (mpi, raw, cpr_p2p, doc, hom, auto)", name);
}

void zcoll_comm_config_init(zcoll_comm_config* c) {
  if (!c) return;
  zcoll_comm_config d = ZCOLL_COMM_CONFIG_INITIALIZER;
  *c = d;
}

const char* zcoll_mpi_env_help(void) {
  zcoll::coll::declare_algorithm_words();
  return zcoll::config::help_text();
}

namespace {
// What zcoll_comm_create reads on this rank alone: the configuration (struct,
// then environment), validated, and the settings kept outside it.
struct LocalSettings {
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  zcoll_model model_fixed{};
  double wait_sleep = 0;            // ZCOLL_WAIT_SLEEP (mpi_transport.h)
  const char* rel_range = "exact";  // ZCOLL_REL_RANGE (dispatch.cc agree)
  const char* progress = "thread";  // ZCOLL_PROGRESS (nonblocking.h)
};

zcoll_status read_local_settings(const zcoll_comm_config* config, LocalSettings* s) {
  zcoll_status local = ZCOLL_SUCCESS;
  if (config)  // the struct_size rule (struct_io.h); the defaults fill what an older struct lacks
    local = zcoll::coll::read_config(config, kConfigV1, &s->cfg);
  if (local == ZCOLL_SUCCESS) local = zcoll::coll::apply_env(&s->cfg);
  if (local == ZCOLL_SUCCESS) local = zcoll::coll::validate(s->cfg);
  if (local == ZCOLL_SUCCESS) local = zcoll::coll::model_from_env(&s->model_fixed);
  if (local == ZCOLL_SUCCESS)
    local = zcoll::config::get_double(zcoll::config::kWaitSleep, &s->wait_sleep);
  if (local == ZCOLL_SUCCESS)
    local = zcoll::config::get_choice(zcoll::config::kRelRange, &s->rel_range);
  if (local == ZCOLL_SUCCESS) local = zcoll::transport::MpiTransport::check_node_map();
  if (local == ZCOLL_SUCCESS)
    local = zcoll::config::get_choice(zcoll::config::kProgress, &s->progress);
  return local;
}
}  // namespace

static zcoll_status zcoll_comm_create_unguarded(MPI_Comm comm, const zcoll_comm_config* config,
                                                zcoll_comm** out) {
  zcoll::clear_error();
  if (!out) return fail(ZCOLL_ERR_INVALID_ARG, "out is NULL");
  *out = nullptr;
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (!init || fin) return fail(ZCOLL_ERR_MPI, "MPI is not initialized");
  if (comm == MPI_COMM_NULL) return fail(ZCOLL_ERR_INVALID_ARG, "communicator is MPI_COMM_NULL");
  int inter = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return fail(ZCOLL_ERR_UNSUPPORTED, "inter-communicators are not supported");

  // Local part: configuration (struct, then environment), validated.
  LocalSettings set;
  const zcoll_status local = read_local_settings(config, &set);
  const zcoll_comm_config& cfg = set.cfg;
  char msg[512] = "";
  if (local != ZCOLL_SUCCESS) std::snprintf(msg, sizeof msg, "%s", zcoll_last_error());

  // Collective part: duplicate, then agree on success (no rank is left behind).
  MPI_Comm dup = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(comm, &dup);
  if (rc != MPI_SUCCESS) return fail(ZCOLL_ERR_MPI, "MPI_Comm_dup failed");
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  int bad = local != ZCOLL_SUCCESS ? static_cast<int>(local) : 0, any_bad = 0;
  rc = MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, dup);
  if (rc != MPI_SUCCESS || any_bad) {
    MPI_Comm_free(&dup);
    if (rc != MPI_SUCCESS) return fail(ZCOLL_ERR_MPI, "MPI_Allreduce in zcoll_comm_create failed");
    if (local != ZCOLL_SUCCESS) return fail(local, "%s", msg);
    return fail(static_cast<zcoll_status>(any_bad), "another rank's configuration is invalid");
  }
  zcoll_comm* zc = new (std::nothrow) zcoll_comm;
  if (!zc) {
    MPI_Comm_free(&dup);
    return fail(ZCOLL_ERR_NO_MEMORY, "cannot allocate the handle");
  }
  auto* mpi_tp = new zcoll::transport::MpiTransport(dup);
  mpi_tp->set_wait_sleep(set.wait_sleep);
  zc->tp.reset(mpi_tp);
  zc->cfg = cfg;
  zc->ws.set_source(zcoll::coll::sim::make_buffer_source());  // nullptr outside SMPI builds
  zc->model_fixed = set.model_fixed;
  zc->local_model = zcoll::coll::auto_local_model();
  zc->rel_range_sampled = set.rel_range && (set.rel_range[0] == 's' || set.rel_range[0] == 'S');
  zc->report.struct_size = sizeof zc->report;
  zcoll::coll::init_progress(zc, set.progress);
  {  // ZCOLL_TEST_FAIL_ALLOC=RANK:K (tests): this rank's K-th scratch allocation fails
    const char* spec = nullptr;
    int fr = -1, fk = 0;
    if (zcoll::config::get_path(zcoll::config::kTestFailAlloc, &spec) == ZCOLL_SUCCESS && spec &&
        std::sscanf(spec, "%d:%d", &fr, &fk) == 2 && fr == zc->tp->rank() && fk > 0)
      zc->ws.fail_countdown = fk;
  }
  zc->counts.resize(zc->tp->size());  // Reduce_scatter's blocks (collective.h bind_args)
  zc->displs.resize(zc->tp->size());
  ZCOLL_LOG(zcoll::log::kTrace, zc->tp->rank(), zc->tp->size(),
            "comm created: mode=%s eb=%s %g bound=%s threads=%d min_bytes=%zu chunk=%u segment=%zu",
            zcoll_mode_name(cfg.mode), cfg.eb_mode == ZCOLL_EB_ABS ? "abs" : "rel", cfg.error_bound,
            cfg.bound == ZCOLL_BOUND_RESULT ? "result" : "per_compression", cfg.threads,
            cfg.min_bytes, cfg.chunk_size, cfg.pipeline_values);
  *out = zc;
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_free(zcoll_comm* zc) {
  zcoll::clear_error();
  if (!zc) return ZCOLL_SUCCESS;
  zcoll::coll::stop_progress(zc);  // the pending nonblocking calls run first
  zcoll_status s = zc->tp->release();
  delete zc;
  return s;
}

zcoll_status zcoll_comm_get_config(const zcoll_comm* zc, zcoll_comm_config* config) {
  zcoll::clear_error();
  if (!zc || !config) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  ZCOLL_CHECK(zcoll::check_out_struct(config, kConfigV1, "zcoll_comm_config"));
  zcoll::coll::write_config(config, zc->cfg);
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_set_mode(zcoll_comm* zc, zcoll_mode mode) {
  zcoll::clear_error();
  if (!zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  if (mode < ZCOLL_MODE_DEFAULT || mode > ZCOLL_MODE_AUTO)
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown mode %d", static_cast<int>(mode));
  zcoll::coll::apply_setting(zc, [mode](zcoll_comm* z) { z->mode = mode; });
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_set_algorithm(zcoll_comm* zc, zcoll_collective collective,
                                      zcoll_algorithm algorithm) {
  zcoll::clear_error();
  if (!zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  ZCOLL_CHECK(zcoll::coll::check_algorithm(collective, algorithm));
  zcoll::coll::apply_setting(
      zc, [collective, algorithm](zcoll_comm* z) { z->algorithm[collective] = algorithm; });
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_set_error_bound(zcoll_comm* zc, zcoll_eb_mode eb_mode, double eb) {
  zcoll::clear_error();
  if (!zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  if (eb_mode != ZCOLL_EB_ABS && eb_mode != ZCOLL_EB_REL)
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown error-bound mode %d", static_cast<int>(eb_mode));
  if (!(eb > 0 && eb < 1e300)) return fail(ZCOLL_ERR_INVALID_ARG, "error bound %g must be > 0", eb);
  zcoll::coll::apply_setting(zc, [eb_mode, eb](zcoll_comm* z) {
    z->eb_set = true;
    z->eb_mode = eb_mode;
    z->error_bound = eb;
  });
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_set_average(zcoll_comm* zc, int average) {
  zcoll::clear_error();
  if (!zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  const bool on = average != 0;
  zcoll::coll::apply_setting(zc, [on](zcoll_comm* z) { z->average = on; });
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_set_shape(zcoll_comm* zc, uint32_t ndims, const uint64_t* dims) {
  zcoll::clear_error();
  if (!zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  if (ndims > ZCOLL_MAX_DIMS)
    return fail(ZCOLL_ERR_INVALID_ARG, "ndims %u above ZCOLL_MAX_DIMS (%u)", ndims, ZCOLL_MAX_DIMS);
  if (ndims > 0 && !dims) return fail(ZCOLL_ERR_INVALID_ARG, "dims is NULL");
  uint64_t shape[ZCOLL_MAX_DIMS] = {};
  uint64_t product = 1;
  for (uint32_t d = 0; d < ndims; ++d) {
    if (dims[d] == 0) return fail(ZCOLL_ERR_INVALID_ARG, "dims[%u] is 0", d);
    if (product > UINT64_MAX / dims[d])
      return fail(ZCOLL_ERR_INVALID_ARG, "the shape's product overflows 64 bits");
    product *= dims[d];
    shape[d] = dims[d];
  }
  zcoll::coll::apply_setting(zc, [ndims, shape](zcoll_comm* z) {
    z->shape_ndims = ndims;
    std::copy(shape, shape + ZCOLL_MAX_DIMS, z->shape_dims);
  });
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_size(const zcoll_comm* zc, int* size) {
  if (!zc || !size) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  *size = zc->tp->size();
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_rank(const zcoll_comm* zc, int* rank) {
  if (!zc || !rank) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  *rank = zc->tp->rank();
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_last_report(const zcoll_comm* zc, zcoll_report* report) {
  zcoll::clear_error();
  if (!zc || !report) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  ZCOLL_CHECK(zcoll::check_out_struct(report, kReportV1, "zcoll_report"));
  zcoll::coll::drain(const_cast<zcoll_comm*>(zc));  // the last call that ran, pending ones included
  zcoll::write_struct(report, zc->report);
  return ZCOLL_SUCCESS;
}

static zcoll_status zcoll_comm_calibrate_unguarded(zcoll_comm* zc) {
  zcoll::clear_error();
  if (!zc) return fail(ZCOLL_ERR_INVALID_ARG, "zcoll_comm is NULL");
  zcoll::coll::drain(zc);  // collective: after the pending calls
  return zcoll::coll::calibrate(zc);
}

zcoll_status zcoll_comm_get_model(const zcoll_comm* zc, zcoll_model* model) {
  zcoll::clear_error();
  if (!zc || !model) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  zcoll::coll::drain(const_cast<zcoll_comm*>(zc));  // AUTO's calls may set it
  if (!zc->model_ready)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "no model yet: call zcoll_comm_calibrate or run a collective in mode auto");
  ZCOLL_CHECK(zcoll::check_out_struct(model, kModelV1, "zcoll_model"));
  zcoll::write_struct(model, zc->model);
  return ZCOLL_SUCCESS;
}

zcoll_status zcoll_comm_set_model(zcoll_comm* zc, const zcoll_model* model) {
  zcoll::clear_error();
  if (!zc || !model) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  zcoll_model in{};
  ZCOLL_CHECK(zcoll::read_struct(model, kModelV1, "zcoll_model", &in));
  model = &in;
  if (!zcoll::coll::model_usable(*model) || model->overlap < 0 || model->overlap > 1 ||
      model->growth_bits < 0)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "model: latency >= 0, positive finite bandwidths, overlap in [0, 1] and "
                "growth_bits >= 0 are required");
  zcoll_model set = *model;
  set.source = ZCOLL_MODEL_SOURCE_SET;
  zcoll::coll::apply_setting(zc, [set](zcoll_comm* z) {
    z->model = set;
    z->model_ready = true;
  });
  return ZCOLL_SUCCESS;
}

static zcoll_status zcoll_model_save_unguarded(const zcoll_model* model, const char* path) {
  zcoll::clear_error();
  if (!model || !path) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  zcoll_model in{};
  ZCOLL_CHECK(zcoll::read_struct(model, kModelV1, "zcoll_model", &in));
  model = &in;
  if (!zcoll::coll::model_usable(*model))
    return fail(ZCOLL_ERR_INVALID_ARG, "model has unusable values");
  return zcoll::coll::write_tune_file(path, *model);
}

static zcoll_status zcoll_model_load_unguarded(const char* path, zcoll_model* model) {
  zcoll::clear_error();
  if (!model || !path) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  zcoll_model m{};
  m.struct_size = sizeof m;
  m.latency = m.bandwidth = m.compress_bw = m.decompress_bw = m.hom_bw = m.reduce_bw = -1;
  m.overlap = 0.5;
  m.growth_bits = 0.7;
  ZCOLL_CHECK(zcoll::coll::read_tune_file(path, &m));
  if (!zcoll::coll::model_usable(m))
    return fail(ZCOLL_ERR_INVALID_ARG,
                "%s: latency, bandwidth and the four throughputs are required", path);
  m.source = ZCOLL_MODEL_SOURCE_TUNE_FILE;
  ZCOLL_CHECK(zcoll::check_out_struct(model, kModelV1, "zcoll_model"));
  zcoll::write_struct(model, m);
  return ZCOLL_SUCCESS;
}

static_assert(ZCOLL_PREDICT_CODEC_AUTO == ZCOLL_CODEC_FLAG_AUTO &&
                  ZCOLL_PREDICT_CODEC_AUTO != ZCOLL_CODEC_FAST &&
                  ZCOLL_PREDICT_CODEC_AUTO != ZCOLL_CODEC_DENSE,
              "zcoll_tuner.h: ZCOLL_PREDICT_CODEC_AUTO is codec_flags' auto, no zcoll_codec");

// The cost query of a predicted call (all but its ratio): the call's shape, and
// the layout of zcoll_model.ranks_per_node (ranks by node, the last node the rest).
static zcoll::coll::CostQuery predict_query(const zcoll_model& model, zcoll_collective collective,
                                            int nranks, size_t count, zcoll_dtype dtype) {
  using namespace zcoll::coll;
  CostQuery q;
  q.coll = collective;
  q.size = nranks;
  q.vsize = zcoll_dtype_size(dtype);
  Call shape = Call::of(collective, nullptr, nullptr, count, MPI_DATATYPE_NULL);
  shape.block = true;  // Reduce_scatter: count values per rank
  q.total_values = total_values(shape, nranks);
  q.seg_values = 4 * size_t{ZCOLL_DEFAULT_CHUNK_SIZE};
  const int rpn = model.ranks_per_node;
  if (rpn > 1 && nranks > 1) {
    q.nodes = (nranks + rpn - 1) / rpn;
    q.max_local = std::min(rpn, nranks);
    q.min_local = nranks % rpn ? nranks % rpn : q.max_local;
  }
  return q;
}

// Mode AUTO of zcoll_predict_codec: model = the caller's, m = the rates of the
// codec that runs; *s stays -1 when no candidate exists.
static void predict_auto(const zcoll_model& model, const zcoll_model& m, zcoll::coll::CostQuery q,
                         int codec, double ratio_dense, double* s, zcoll_mode* cm,
                         zcoll_algorithm* ca, zcoll_codec* cc) {
  using namespace zcoll::coll;
  // As the live AUTO (auto_select.cc): the first look at the format's
  // largest ratio with the fast codec (hom included) sends the call to MPI
  // if no compression can win; then the candidates at the given ratios (hom
  // only on the fast codec; both codecs' with ZCOLL_CODEC=auto).
  Candidate cand[kMaxCandidates];
  int best = 0;
  const bool sum = traits(q.coll).reduction;  // reductions: SUM assumed
  CostQuery q0 = q;
  q0.ratio = max_ratio(q.vsize);
  q0.sum = sum;
  int n = auto_candidates(model, q0, ZCOLL_ALGO_AUTO, cand, &best);
  if (n > 0 && cand[best].mode != ZCOLL_MODE_MPI) {
    q.sum = sum && codec != ZCOLL_CODEC_DENSE;
    n = auto_candidates_at(m, q, codec == ZCOLL_PREDICT_CODEC_AUTO ? ratio_dense : 0,
                           ZCOLL_ALGO_AUTO, cand, &best);
  }
  if (n > 0) {
    *s = cand[best].seconds;
    *cm = cand[best].mode;
    *ca = cand[best].algo;
    *cc = cand[best].mode == ZCOLL_MODE_MPI ? ZCOLL_CODEC_FAST
          : codec == ZCOLL_CODEC_DENSE      ? ZCOLL_CODEC_DENSE
                                            : cand[best].codec;
  }
}

static zcoll_status zcoll_predict_codec_unguarded(
    const zcoll_model* model, zcoll_collective collective, zcoll_mode mode,
    zcoll_algorithm algorithm, int nranks, size_t count, zcoll_dtype dtype, int codec, double ratio,
    double ratio_dense, double* seconds, zcoll_mode* chosen_mode, zcoll_algorithm* chosen_algorithm,
    zcoll_codec* chosen_codec) {
  zcoll::clear_error();
  using namespace zcoll::coll;
  if (!model || !seconds) return fail(ZCOLL_ERR_INVALID_ARG, "NULL argument");
  zcoll_model in{};
  ZCOLL_CHECK(zcoll::read_struct(model, kModelV1, "zcoll_model", &in));
  model = &in;
  if (!model_usable(*model)) return fail(ZCOLL_ERR_INVALID_ARG, "model has unusable values");
  if (nranks < 1) return fail(ZCOLL_ERR_INVALID_ARG, "nranks %d < 1", nranks);
  if (dtype != ZCOLL_FLOAT32 && dtype != ZCOLL_FLOAT64)
    return fail(ZCOLL_ERR_UNSUPPORTED, "dtype %d", static_cast<int>(dtype));
  if (!is_collective(collective))
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown collective %d", static_cast<int>(collective));
  if (codec != ZCOLL_CODEC_FAST && codec != ZCOLL_CODEC_DENSE && codec != ZCOLL_PREDICT_CODEC_AUTO)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "codec %d: ZCOLL_CODEC_FAST, ZCOLL_CODEC_DENSE or ZCOLL_PREDICT_CODEC_AUTO", codec);
  // the dense codec's model: its rates in place of the fast codec's
  zcoll_model dense{};
  const bool has_dense = dense_model(*model, &dense);
  if (codec == ZCOLL_CODEC_DENSE && !has_dense)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "codec dense: the model has no dense codec rates (dense_compress_bw, "
                "dense_decompress_bw)");
  if (!(ratio > 0)) ratio = 1;
  if (!(ratio_dense > 0) && codec == ZCOLL_CODEC_DENSE) ratio_dense = 1;
  CostQuery q = predict_query(*model, collective, nranks, count, dtype);
  q.ratio = codec == ZCOLL_CODEC_DENSE ? ratio_dense : ratio;
  // the rates of the codec that runs, as the handle's (codec_model in auto_select.cc)
  const zcoll_model& m = codec == ZCOLL_CODEC_DENSE ? dense : *model;
  zcoll_mode cm = mode;
  zcoll_algorithm ca = algorithm;
  zcoll_codec cc = codec == ZCOLL_CODEC_DENSE ? ZCOLL_CODEC_DENSE : ZCOLL_CODEC_FAST;
  double s = -1;
  if (mode == ZCOLL_MODE_AUTO) {
    predict_auto(*model, m, q, codec, ratio_dense, &s, &cm, &ca, &cc);
  } else {
    if (mode == ZCOLL_MODE_MPI)
      ca = ZCOLL_ALGO_NATIVE;
    else if (algorithm == ZCOLL_ALGO_AUTO)
      ca = default_algorithm(q, nullptr)->algo;
    // dense streams have no homomorphic addition: hom runs as doc (dispatch.cc)
    if (mode == ZCOLL_MODE_HOM && codec == ZCOLL_CODEC_DENSE) cm = ZCOLL_MODE_DOC;
    const zcoll_algorithm a = mode == ZCOLL_MODE_MPI ? ZCOLL_ALGO_AUTO : algorithm;
    if (codec == ZCOLL_PREDICT_CODEC_AUTO &&
        (mode == ZCOLL_MODE_DOC || mode == ZCOLL_MODE_CPR_P2P)) {
      const CodecPick p = pick_codec(*model, q, ratio_dense, mode, a);
      s = p.seconds;
      cc = p.codec;
    } else {
      s = predict_seconds(m, q, cm, a);
    }
    if (mode == ZCOLL_MODE_MPI || mode == ZCOLL_MODE_RAW) cc = ZCOLL_CODEC_FAST;
  }
  if (s < 0)
    return fail(ZCOLL_ERR_INVALID_ARG, "no %s algorithm %s for %s", zcoll_mode_name(mode),
                zcoll_algorithm_name(algorithm), zcoll_collective_name(collective));
  *seconds = s;
  if (chosen_mode) *chosen_mode = cm;
  if (chosen_algorithm) *chosen_algorithm = ca;
  if (chosen_codec) *chosen_codec = cc;
  return ZCOLL_SUCCESS;
}

}  // extern "C"

namespace {}  // namespace

extern "C" {

zcoll_status zcoll_allreduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                             MPI_Datatype datatype, MPI_Op op) {
  return guarded_call(zc, Call::of(ZCOLL_COLL_ALLREDUCE, sendbuf, recvbuf, count, datatype, op));
}

zcoll_status zcoll_reduce_scatter_block(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                        size_t recvcount, MPI_Datatype datatype, MPI_Op op) {
  Call k = Call::of(ZCOLL_COLL_REDUCE_SCATTER, sendbuf, recvbuf, recvcount, datatype, op);
  k.block = true;
  return guarded_call(zc, k);
}

zcoll_status zcoll_reduce_scatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf,
                                  const size_t* recvcounts, MPI_Datatype datatype, MPI_Op op) {
  Call k = Call::of(ZCOLL_COLL_REDUCE_SCATTER, sendbuf, recvbuf, 0, datatype, op);
  k.recvcounts = recvcounts;
  if (zc && recvcounts) k.count = recvcounts[zc->tp->rank()];
  return guarded_call(zc, k);
}

zcoll_status zcoll_allgather(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                             MPI_Datatype datatype) {
  return guarded_call(zc, Call::of(ZCOLL_COLL_ALLGATHER, sendbuf, recvbuf, count, datatype));
}

zcoll_status zcoll_bcast(zcoll_comm* zc, void* buffer, size_t count, MPI_Datatype datatype,
                         int root) {
  return guarded_call(
      zc, Call::of(ZCOLL_COLL_BCAST, buffer, buffer, count, datatype, MPI_OP_NULL, root));
}

zcoll_status zcoll_scatter(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                           MPI_Datatype datatype, int root) {
  return guarded_call(
      zc, Call::of(ZCOLL_COLL_SCATTER, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root));
}

zcoll_status zcoll_reduce(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                          MPI_Datatype datatype, MPI_Op op, int root) {
  return guarded_call(zc, Call::of(ZCOLL_COLL_REDUCE, sendbuf, recvbuf, count, datatype, op, root));
}

zcoll_status zcoll_gather(zcoll_comm* zc, const void* sendbuf, void* recvbuf, size_t count,
                          MPI_Datatype datatype, int root) {
  return guarded_call(
      zc, Call::of(ZCOLL_COLL_GATHER, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root));
}


// The entry points above that allocate or read files, under the exception guard.
zcoll_status zcoll_comm_create(MPI_Comm comm, const zcoll_comm_config* config, zcoll_comm** out) {
  return zcoll::guarded("zcoll_comm_create",
                        [&] { return zcoll_comm_create_unguarded(comm, config, out); });
}

zcoll_status zcoll_comm_calibrate(zcoll_comm* zc) {
  return zcoll::guarded("zcoll_comm_calibrate", [&] { return zcoll_comm_calibrate_unguarded(zc); });
}

zcoll_status zcoll_model_save(const zcoll_model* model, const char* path) {
  return zcoll::guarded("zcoll_model_save",
                        [&] { return zcoll_model_save_unguarded(model, path); });
}

zcoll_status zcoll_model_load(const char* path, zcoll_model* model) {
  return zcoll::guarded("zcoll_model_load",
                        [&] { return zcoll_model_load_unguarded(path, model); });
}

zcoll_status zcoll_predict(const zcoll_model* model, zcoll_collective collective, zcoll_mode mode,
                           zcoll_algorithm algorithm, int nranks, size_t count, zcoll_dtype dtype,
                           double ratio, double* seconds, zcoll_mode* chosen_mode,
                           zcoll_algorithm* chosen_algorithm) {
  return zcoll::guarded("zcoll_predict", [&] {
    return zcoll_predict_codec_unguarded(model, collective, mode, algorithm, nranks, count, dtype,
                                         ZCOLL_CODEC_FAST, ratio, 0, seconds, chosen_mode,
                                         chosen_algorithm, nullptr);
  });
}

zcoll_status zcoll_predict_codec(const zcoll_model* model, zcoll_collective collective,
                                 zcoll_mode mode, zcoll_algorithm algorithm, int nranks,
                                 size_t count, zcoll_dtype dtype, int codec, double ratio,
                                 double ratio_dense, double* seconds, zcoll_mode* chosen_mode,
                                 zcoll_algorithm* chosen_algorithm, zcoll_codec* chosen_codec) {
  return zcoll::guarded("zcoll_predict_codec", [&] {
    return zcoll_predict_codec_unguarded(model, collective, mode, algorithm, nranks, count, dtype,
                                         codec, ratio, ratio_dense, seconds, chosen_mode,
                                         chosen_algorithm, chosen_codec);
  });
}

}  // extern "C"
