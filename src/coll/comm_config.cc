// comm_config.cc — the handle's ZCOLL_* variables applied to a zcoll_comm_config.
#include "coll/comm_config.h"

#include "coll/algorithms.h"

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
  ZCOLL_CHECK(get_choice(kChecksum, &w, &set));
  if (set) c->codec_flags = is(w, "1") ? ZCOLL_FLAG_CHECKSUM : 0;
  // ZCOLL_<COLLECTIVE>_ALGO: the registry admits only the collective's own names
  const struct {
    Var var;
    zcoll_collective coll;
  } algo_vars[] = {
      {kAllreduceAlgo, ZCOLL_COLL_ALLREDUCE}, {kReduceScatterAlgo, ZCOLL_COLL_REDUCE_SCATTER},
      {kAllgatherAlgo, ZCOLL_COLL_ALLGATHER}, {kBcastAlgo, ZCOLL_COLL_BCAST},
      {kScatterAlgo, ZCOLL_COLL_SCATTER},     {kReduceAlgo, ZCOLL_COLL_REDUCE},
      {kGatherAlgo, ZCOLL_COLL_GATHER}};
  for (const auto& av : algo_vars) {
    ZCOLL_CHECK(get_choice(av.var, &w, &set));
    if (!set) continue;
    zcoll_algorithm a = ZCOLL_ALGO_AUTO;
    if (is(w, "ring"))
      a = ZCOLL_ALGO_RING;
    else if (is(w, "rd") || is(w, "recursive_doubling"))
      a = ZCOLL_ALGO_RECURSIVE_DOUBLING;
    else if (is(w, "binomial"))
      a = ZCOLL_ALGO_BINOMIAL;
    else if (is(w, "chain"))
      a = ZCOLL_ALGO_CHAIN;
    c->algorithm[av.coll] = a;
  }
  ZCOLL_CHECK(get_choice(kAutoLocal, &w));
  return ZCOLL_SUCCESS;
}

bool auto_local_model() {
  const char* w = "mpi";
  return config::get_choice(config::kAutoLocal, &w) == ZCOLL_SUCCESS && is(w, "model");
}

zcoll_status check_algorithm(zcoll_collective coll, zcoll_algorithm algo) {
  if (coll <= ZCOLL_COLL_NONE || coll >= ZCOLL_COLL_COUNT)
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown collective %d", static_cast<int>(coll));
  if (algo == ZCOLL_ALGO_AUTO || find_algorithm(coll, algo)) return ZCOLL_SUCCESS;
  return fail(ZCOLL_ERR_INVALID_ARG, "%s has no algorithm %s (%d)", zcoll_collective_name(coll),
              zcoll_algorithm_name(algo), static_cast<int>(algo));
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
  if (c.codec_flags & ~static_cast<uint64_t>(ZCOLL_FLAG_CHECKSUM))
    return fail(ZCOLL_ERR_INVALID_ARG, "config.codec_flags 0x%llx has unknown flags",
                static_cast<unsigned long long>(c.codec_flags));
  for (int k = ZCOLL_COLL_ALLREDUCE; k < ZCOLL_COLL_COUNT; ++k)
    ZCOLL_CHECK(check_algorithm(static_cast<zcoll_collective>(k), c.algorithm[k]));
  if (c.algorithm[ZCOLL_COLL_NONE] != ZCOLL_ALGO_AUTO)
    return fail(ZCOLL_ERR_INVALID_ARG, "config.algorithm[ZCOLL_COLL_NONE] must be ZCOLL_ALGO_AUTO");
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
