// comm_config.cc — the handle's ZCOLL_* variables applied to a zcoll_comm_config.
#include "coll/control/comm_config.h"

#include "coll/control/algorithms.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <strings.h>

#include "core/config.h"
#include "core/error.h"
#include "core/struct_io.h"
#include "coll/control/collective.h"

namespace zcoll::coll {

namespace {

bool is(const char* word, const char* name) { return strcasecmp(word, name) == 0; }

// ZCOLL_CODEC=fast|dense|auto (a word the registry admitted) in codec_flags.
void set_codec(const char* w, uint64_t* flags) {
  *flags &= ~static_cast<uint64_t>(ZCOLL_FORMAT_FLAG_DENSE | ZCOLL_CODEC_FLAG_AUTO);
  if (is(w, "dense")) *flags |= ZCOLL_FORMAT_FLAG_DENSE;
  if (is(w, "auto")) *flags |= ZCOLL_CODEC_FLAG_AUTO;
}

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
  ZCOLL_CHECK(get_choice(kCodec, &w, &set));
  if (set) set_codec(w, &c->codec_flags);
  // ZCOLL_<COLLECTIVE>_ALGO: the words of the algorithm table
  declare_algorithm_words();
  for (int k = ZCOLL_COLL_ALLREDUCE; k <= ZCOLL_COLL_GATHER; ++k) {
    const zcoll_collective coll = static_cast<zcoll_collective>(k);
    ZCOLL_CHECK(get_choice(traits(coll).algo_var, &w, &set));
    if (!set) continue;
    const Algorithm* a = find_algorithm_named(coll, w);
    c->algorithm[coll] = a ? a->algo : ZCOLL_ALGO_AUTO;  // the registry admitted "auto" or a name
  }
  ZCOLL_CHECK(get_choice(kAutoLocal, &w));
  return ZCOLL_SUCCESS;
}

bool auto_local_model() {
  const char* w = "mpi";
  return config::get_choice(config::kAutoLocal, &w) == ZCOLL_SUCCESS && is(w, "model");
}

zcoll_status check_algorithm(zcoll_collective coll, zcoll_algorithm algo) {
  if (!is_collective(coll))
    return fail(ZCOLL_ERR_INVALID_ARG, "unknown collective %d", static_cast<int>(coll));
  if (algo == ZCOLL_ALGO_AUTO || find_algorithm(coll, algo)) return ZCOLL_SUCCESS;
  return fail(ZCOLL_ERR_INVALID_ARG, "%s has no algorithm %s (%d)", zcoll_collective_name(coll),
              zcoll_algorithm_name(algo), static_cast<int>(algo));
}

zcoll_status read_config(const zcoll_comm_config* in, size_t v1_size, zcoll_comm_config* out) {
  ZCOLL_CHECK(read_struct(in, v1_size, "zcoll_comm_config", out));
  // zcoll 1.0's struct ends before `algorithm`: its algorithms are in algorithm_v1
  if (struct_size_of(in) <= offsetof(zcoll_comm_config, algorithm))
    for (int k = 0; k < 8; ++k) out->algorithm[k] = out->algorithm_v1[k];
  for (int k = 0; k < 8; ++k) out->algorithm_v1[k] = out->algorithm[k];
  return ZCOLL_SUCCESS;
}

void write_config(zcoll_comm_config* out, const zcoll_comm_config& cfg) {
  zcoll_comm_config v = cfg;
  for (int k = 0; k < 8; ++k) v.algorithm_v1[k] = v.algorithm[k];  // for a 1.0 caller
  write_struct(out, v);
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
  if (c.codec_flags &
      ~static_cast<uint64_t>(ZCOLL_FLAG_CHECKSUM | ZCOLL_FORMAT_FLAG_DENSE | ZCOLL_CODEC_FLAG_AUTO))
    return fail(ZCOLL_ERR_INVALID_ARG, "config.codec_flags 0x%llx has unknown flags",
                static_cast<unsigned long long>(c.codec_flags));
  for (int k = 0; k < ZCOLL_MAX_COLLECTIVES; ++k) {
    const zcoll_collective coll = static_cast<zcoll_collective>(k);
    if (is_collective(coll))
      ZCOLL_CHECK(check_algorithm(coll, c.algorithm[k]));
    else if (c.algorithm[k] != ZCOLL_ALGO_AUTO)
      return fail(ZCOLL_ERR_INVALID_ARG,
                  "config.algorithm[%d] must be ZCOLL_ALGO_AUTO (%d is not a collective)", k, k);
  }
  return ZCOLL_SUCCESS;
}

}  // namespace zcoll::coll
