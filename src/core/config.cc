// config.cc — ZCOLL_* environment registry for the MPI collectives.
#include "core/config.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <strings.h>

#include "core/error.h"
#include "core/log.h"

namespace zcoll::config {

bool parse_size(const char* t, size_t* out) {
  if (!t || !*t) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t, &end);
  if (errno || end == t || !(v >= 0)) return false;
  double mult = 1;
  if (*end) {
    switch (*end) {
      case 'k': case 'K': mult = 1024.0; break;
      case 'm': case 'M': mult = 1024.0 * 1024; break;
      case 'g': case 'G': mult = 1024.0 * 1024 * 1024; break;
      default: return false;
    }
    ++end;
    if (*end == 'i' || *end == 'I') ++end;
    if (*end == 'b' || *end == 'B') ++end;
    if (*end) return false;
  }
  double r = v * mult;
  if (r > 1.8e19 || r != std::floor(r)) return false;
  *out = static_cast<size_t>(r);
  return true;
}

namespace {

zcoll_status bad(const char* name, const char* text, const char* expected) {
  return fail(ZCOLL_ERR_INVALID_ARG, "%s=%s: expected %s", name, text, expected);
}

zcoll_status set_mode(const char* t, zcoll_comm_config* c) {
  zcoll_mode m;
  if (zcoll_mode_from_name(t, &m) != ZCOLL_SUCCESS || m == ZCOLL_MODE_DEFAULT)
    return bad("ZCOLL_MODE", t, "auto|mpi|raw|cpr_p2p|doc|hom");
  c->mode = m;
  return ZCOLL_SUCCESS;
}
zcoll_status set_eb_mode(const char* t, zcoll_comm_config* c) {
  if (strcasecmp(t, "abs") == 0) c->eb_mode = ZCOLL_EB_ABS;
  else if (strcasecmp(t, "rel") == 0) c->eb_mode = ZCOLL_EB_REL;
  else return bad("ZCOLL_EB_MODE", t, "abs|rel");
  return ZCOLL_SUCCESS;
}
zcoll_status set_error_bound(const char* t, zcoll_comm_config* c) {
  char* end = nullptr;
  double v = std::strtod(t, &end);
  if (end == t || *end || !(std::isfinite(v) && v > 0))
    return bad("ZCOLL_ERROR_BOUND", t, "a positive number");
  c->error_bound = v;
  return ZCOLL_SUCCESS;
}
zcoll_status set_bound(const char* t, zcoll_comm_config* c) {
  if (strcasecmp(t, "per_compression") == 0) c->bound = ZCOLL_BOUND_PER_COMPRESSION;
  else if (strcasecmp(t, "result") == 0) c->bound = ZCOLL_BOUND_RESULT;
  else return bad("ZCOLL_BOUND", t, "per_compression|result");
  return ZCOLL_SUCCESS;
}
zcoll_status set_threads(const char* t, zcoll_comm_config* c) {
  char* end = nullptr;
  long v = std::strtol(t, &end, 10);
  if (end == t || *end || v < 0 || v > 4096) return bad("ZCOLL_THREADS", t, "an integer >= 0");
  c->threads = static_cast<int>(v);
  return ZCOLL_SUCCESS;
}
zcoll_status set_min_bytes(const char* t, zcoll_comm_config* c) {
  size_t v;
  if (!parse_size(t, &v)) return bad("ZCOLL_MIN_BYTES", t, "a size (65536, 64K, 1M)");
  c->min_bytes = v;
  return ZCOLL_SUCCESS;
}
zcoll_status set_chunk(const char* t, zcoll_comm_config* c) {
  size_t v;
  if (!parse_size(t, &v) || v > ZCOLL_MAX_CHUNK_SIZE)
    return bad("ZCOLL_CHUNK_SIZE", t, "a multiple of 32 in [1024, 1048576]");
  c->chunk_size = static_cast<uint32_t>(v);
  return ZCOLL_SUCCESS;
}
zcoll_status set_pipeline(const char* t, zcoll_comm_config* c) {
  size_t v;
  if (!parse_size(t, &v)) return bad("ZCOLL_PIPELINE_VALUES", t, "a count of values (0 = 4 chunks)");
  c->pipeline_values = v;
  return ZCOLL_SUCCESS;
}
zcoll_status set_algo(const char* t, zcoll_comm_config* c) {
  if (strcasecmp(t, "auto") == 0) c->allreduce_algorithm = ZCOLL_ALGO_AUTO;
  else if (strcasecmp(t, "ring") == 0) c->allreduce_algorithm = ZCOLL_ALGO_RING;
  else if (strcasecmp(t, "rd") == 0 || strcasecmp(t, "recursive_doubling") == 0)
    c->allreduce_algorithm = ZCOLL_ALGO_RECURSIVE_DOUBLING;
  else return bad("ZCOLL_ALLREDUCE_ALGO", t, "auto|ring|rd");
  return ZCOLL_SUCCESS;
}

const Param kParams[] = {
    {"ZCOLL_MODE", "auto|mpi|raw|cpr_p2p|doc|hom", "auto",
     "mode of every call (zcoll_comm_set_mode overrides per call); auto: the cost model's "
     "fastest, plain MPI included", set_mode},
    {"ZCOLL_EB_MODE", "abs|rel", "rel",
     "error bound kind; rel = value * (max - min) of all ranks' inputs", set_eb_mode},
    {"ZCOLL_ERROR_BOUND", "> 0", "1e-4", "error bound value", set_error_bound},
    {"ZCOLL_BOUND", "per_compression|result", "per_compression",
     "whether the bound is per compression (as the papers) or on the final result",
     set_bound},
    {"ZCOLL_THREADS", ">= 0", "1", "OpenMP threads per rank for codec and reduction (0 = all)",
     set_threads},
    {"ZCOLL_MIN_BYTES", "size (64K, 1M)", "65536",
     "messages below this many bytes use the plain MPI collective", set_min_bytes},
    {"ZCOLL_CHUNK_SIZE", "1024..1048576, multiple of 32", "16384", "codec chunk size in values",
     set_chunk},
    {"ZCOLL_PIPELINE_VALUES", "values (0 = 4 chunks)", "0",
     "pipeline segment: values per compressed piece in flight", set_pipeline},
    {"ZCOLL_ALLREDUCE_ALGO", "auto|ring|rd", "auto",
     "Allreduce algorithm (auto: ring when a rank's block is >= 256 KiB, else rd)", set_algo},
    {"ZCOLL_AUTO_LOCAL", "mpi|model", "mpi",
     "auto when all ranks share one node: mpi (memory beats any codec), or model it like a network",
     nullptr},
    {"ZCOLL_TUNE_FILE", "path", "(none)",
     "cost model parameters written by zcoll-tune (instead of the handle's probe)", nullptr},
    {"ZCOLL_NET_LATENCY", "time (2us, 1ms)", "(probe)", "cost model: latency per message",
     nullptr},
    {"ZCOLL_NET_SYNC_LATENCY", "time", "(probe)",
     "cost model: zcoll's per-call agreement (a small MPI_Allreduce)", nullptr},
    {"ZCOLL_NET_BANDWIDTH", "rate (1gbit, 12.5GB)", "(probe)",
     "cost model: bytes/s a rank sends while receiving", nullptr},
    {"ZCOLL_COMPRESS_BW", "rate", "(probe)", "cost model: compression throughput", nullptr},
    {"ZCOLL_DECOMPRESS_BW", "rate", "(probe)", "cost model: decompression throughput", nullptr},
    {"ZCOLL_HOM_BW", "rate", "(probe)", "cost model: homomorphic addition throughput", nullptr},
    {"ZCOLL_REDUCE_BW", "rate", "(probe)", "cost model: local float reduction throughput",
     nullptr},
    {"ZCOLL_MODEL_OVERLAP", "0..1", "0.5",
     "cost model: share of codec time pipelined modes hide behind transfers", nullptr},
    {"ZCOLL_MODEL_GROWTH", "bits", "0.7",
     "cost model: bits per value a compressed sum grows per doubling of its terms", nullptr},
    {"ZCOLL_MODEL_MPI_SCALE", "factor", "(probe)",
     "cost model: measured / modelled time of MPI's collectives, long messages (4 MiB)", nullptr},
    {"ZCOLL_MODEL_MPI_SCALE_SMALL", "factor", "(probe)",
     "cost model: the same for short messages (256 KiB)", nullptr},
    {"ZCOLL_DEBUG", "NONE|WARN|INFO|TRACE", "NONE",
     "INFO logs mode, algorithm and why for each call (rank 0); TRACE logs all ranks", nullptr},
    {"ZCOLL_SIMD", "auto|scalar", "auto", "codec kernels (libzcoll; scalar forces the reference)",
     nullptr},
};

}  // namespace

const Param* params(size_t* count) {
  *count = sizeof kParams / sizeof kParams[0];
  return kParams;
}

zcoll_status apply_env(zcoll_comm_config* cfg) {
  for (const Param& p : kParams) {
    if (!p.apply) continue;
    const char* v = std::getenv(p.name);
    if (!v || !*v) continue;
    ZCOLL_CHECK(p.apply(v, cfg));
  }
  return ZCOLL_SUCCESS;
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

const char* help_text() {
  static const std::string text = [] {
    std::string s;
    char line[512];
    std::snprintf(line, sizeof line, "%-22s %-30s %-16s %s\n", "variable", "values", "default",
                  "meaning");
    s += line;
    for (const Param& p : kParams) {
      std::snprintf(line, sizeof line, "%-22s %-30s %-16s %s\n", p.name, p.values, p.def, p.doc);
      s += line;
    }
    return s;
  }();
  return text.c_str();
}

}  // namespace zcoll::config
