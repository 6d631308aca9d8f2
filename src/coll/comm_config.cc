// comm_config.cc — the handle's ZCOLL_* variables applied to a zcoll_comm_config.
#include "coll/comm_config.h"

#include <cmath>
#include <cstdint>
#include <strings.h>

#include "core/config.h"
#include "core/error.h"

namespace zcoll::coll {

namespace {

bool is(const char* word, const char* name) { return strcasecmp(word, name) == 0; }

}  // namespace

zcoll_status apply_env(zcoll_comm_config* c) {
  using namespace zcoll::config;
  const char* w = nullptr;
  bool set = false;
  ZCOLL_CHECK(get_choice(kMode, &w, &set));
  if (set) ZCOLL_CHECK(zcoll_mode_from_name(w, &c->mode));
  ZCOLL_CHECK(get_choice(kEbMode, &w, &set));
  if (set) c->eb_mode = is(w, "abs") ? ZCOLL_EB_ABS : ZCOLL_EB_REL;
  double eb = 0;
  ZCOLL_CHECK(get_double(kErrorBound, &eb, &set));
  if (set) c->error_bound = eb;
  ZCOLL_CHECK(get_choice(kBound, &w, &set));
  if (set) c->bound = is(w, "result") ? ZCOLL_BOUND_RESULT : ZCOLL_BOUND_PER_COMPRESSION;
  long threads = 0;
  ZCOLL_CHECK(get_integer(kThreads, &threads, &set));
  if (set) c->threads = static_cast<int>(threads);
  uint64_t n = 0;
  ZCOLL_CHECK(get_size(kMinBytes, &n, &set));
  if (set) c->min_bytes = static_cast<size_t>(n);
  ZCOLL_CHECK(get_size(kChunkSize, &n, &set));
  if (set) c->chunk_size = static_cast<uint32_t>(n);
  ZCOLL_CHECK(get_size(kPipelineValues, &n, &set));
  if (set) c->pipeline_values = static_cast<size_t>(n);
  ZCOLL_CHECK(get_choice(kAllreduceAlgo, &w, &set));
  if (set)
    c->allreduce_algorithm = is(w, "auto")   ? ZCOLL_ALGO_AUTO
                             : is(w, "ring") ? ZCOLL_ALGO_RING
                                             : ZCOLL_ALGO_RECURSIVE_DOUBLING;
  // declared for per-collective selection; each collective has one algorithm today
  for (Var v : {kReduceScatterAlgo, kAllgatherAlgo, kBcastAlgo, kScatterAlgo, kReduceAlgo,
                kGatherAlgo, kAutoLocal})
    ZCOLL_CHECK(get_choice(v, &w));
  return ZCOLL_SUCCESS;
}

bool auto_local_model() {
  const char* w = "mpi";
  return config::get_choice(config::kAutoLocal, &w) == ZCOLL_SUCCESS && is(w, "model");
}

zcoll_status validate(const zcoll_comm_config& c) {
  if (c.mode < ZCOLL_MODE_MPI || c.mode > ZCOLL_MODE_AUTO)
    return fail(ZCOLL_ERR_INVALID_ARG, "config.mode %d is not a mode", static_cast<int>(c.mode));
  if (c.eb_mode != ZCOLL_EB_ABS && c.eb_mode != ZCOLL_EB_REL)
    return fail(ZCOLL_ERR_INVALID_ARG, "config.eb_mode %d is not ABS or REL",
                static_cast<int>(c.eb_mode));
  if (!(std::isfinite(c.error_bound) && c.error_bound > 0))
    return fail(ZCOLL_ERR_INVALID_ARG, "config.error_bound %g must be positive and finite",
                c.error_bound);
  if (c.bound != ZCOLL_BOUND_PER_COMPRESSION && c.bound != ZCOLL_BOUND_RESULT)
    return fail(ZCOLL_ERR_INVALID_ARG, "config.bound %d is not a bound semantics",
                static_cast<int>(c.bound));
  if (c.threads < 0) return fail(ZCOLL_ERR_INVALID_ARG, "config.threads must be >= 0");
  uint32_t cs = c.chunk_size ? c.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
  if (cs % ZCOLL_BLOCK_SIZE || cs < ZCOLL_MIN_CHUNK_SIZE || cs > ZCOLL_MAX_CHUNK_SIZE)
    return fail(ZCOLL_ERR_INVALID_ARG, "chunk size %u must be a multiple of 32 in [%u, %u]", cs,
                ZCOLL_MIN_CHUNK_SIZE, ZCOLL_MAX_CHUNK_SIZE);
  if (c.allreduce_algorithm != ZCOLL_ALGO_AUTO && c.allreduce_algorithm != ZCOLL_ALGO_RING &&
      c.allreduce_algorithm != ZCOLL_ALGO_RECURSIVE_DOUBLING)
    return fail(ZCOLL_ERR_INVALID_ARG, "config.allreduce_algorithm %d is not auto, ring or rd",
                static_cast<int>(c.allreduce_algorithm));
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
