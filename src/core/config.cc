// config.cc — the registry of ZCOLL_* environment variables (see config.h):
// the table, the typed reads, and the help text and docs generated from it.
// This is the only place in src/ that calls getenv.
#include "core/config.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <strings.h>

#include "core/error.h"
#include "core/units.h"

extern char** environ;

namespace zcoll::config {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPositive = std::numeric_limits<double>::denorm_min();  // "> 0"
constexpr const char* kLib = "libzcoll";
constexpr const char* kMpi = "libzcoll_mpi";
constexpr const char* kSmpi = "SMPI builds";
constexpr const char* kPmpiLib = "libzcoll_pmpi";

// clang-format off
const Decl kTable[kVarCount] = {
  // ---- the handle's configuration (zcoll_comm_config; src/coll/control/comm_config.cc)
  {kMode, "ZCOLL_MODE", Kind::kChoice, "auto|mpi|raw|cpr_p2p|doc|hom", 0, 0, "auto", nullptr, kMpi,
   "mode of every call: `auto` runs, per call, whichever of the MPI library's collective, `hom` "
   "and `doc` (with either Allreduce algorithm) the cost model predicts fastest "
   "(docs/algorithms.md, \"Cost model\"); `mpi` the MPI library's collective; `raw` zcoll's "
   "algorithm without compression; `cpr_p2p` compress before every send and decompress after "
   "every receive (baseline); `doc` C-Coll (compress once for data movement, "
   "decompress-operate-compress with polling for reductions); `hom` hZCCL (homomorphic sums; "
   "MAX/MIN/PROD run as `doc`)"},
  {kEbMode, "ZCOLL_EB_MODE", Kind::kChoice, "abs|rel", 0, 0, "rel", nullptr, kMpi,
   "error-bound kind; `rel` = value x (max - min) of the finite inputs of all ranks, one "
   "absolute bound agreed on by all ranks"},
  {kErrorBound, "ZCOLL_ERROR_BOUND", Kind::kNumber, "number > 0", kPositive, kInf, "1e-4",
   nullptr, kMpi, "the error-bound value"},
  {kBound, "ZCOLL_BOUND", Kind::kChoice, "per_compression|result", 0, 0, "per_compression",
   nullptr, kMpi,
   "the bound applies to each compression (as in the papers; the reported result bound grows "
   "with the algorithm), or to the final result (the library divides it by the algorithm's "
   "accumulation factor)"},
  {kThreads, "ZCOLL_THREADS", Kind::kInteger, "integer in [0, 4096]", 0, 4096, "1", nullptr, kMpi,
   "OpenMP threads per rank for compression, decompression, homomorphic additions and local "
   "reductions (`0` = `omp_get_max_threads()`)"},
  {kMinBytes, "ZCOLL_MIN_BYTES", Kind::kSize, "size (65536, 64K, 1M)", 0, kInf, "65536", nullptr,
   kMpi, "calls whose buffer has fewer bytes go to the plain MPI collective (`0` = never)"},
  {kChunkSize, "ZCOLL_CHUNK_SIZE", Kind::kSize, "multiple of 32 in [1024, 1048576]", 1024, 1048576,
   "16384", nullptr, kMpi,
   "codec chunk size in values (the unit of raw escape, threading and polling)"},
  {kPipelineValues, "ZCOLL_PIPELINE_VALUES", Kind::kSize, "count of values (0 = 4 chunks)", 0,
   kInf, "0", nullptr, kMpi,
   "pipeline segment: values per compressed stream in flight (rounded up to a multiple of 32, "
   "and raised so that no message is cut into more than 256 segments); `cpr_p2p` ignores it "
   "(one stream per message)"},
  {kChecksum, "ZCOLL_CHECKSUM", Kind::kChoice, "0|1", 0, 0, "0", nullptr, kMpi,
   "`1`: every compressed message carries a CRC-32C per chunk (format 1.1, "
   "`ZCOLL_FLAG_CHECKSUM`), verified by the receiver: a corrupted message is an error on every "
   "rank, never a wrong value (docs/reliability.md)"},
  {kCodec, "ZCOLL_CODEC", Kind::kChoice, "fast|dense|auto", 0, 0, "fast", nullptr, kMpi,
   "the codec of every compressed message: `fast` (bit planes) or `dense` (format 1.3: Lorenzo "
   "order 1/2 + rANS, a higher ratio at a lower speed; `ZCOLL_FORMAT_FLAG_DENSE` in "
   "`codec_flags`), or `auto`: per call, the cost model picks the codec from the link rate, both "
   "codecs' rates and both ratios on the data's sample (`ZCOLL_CODEC_FLAG_AUTO` in "
   "`codec_flags`; the call's report names the codec). Dense streams have no homomorphic "
   "addition: with `dense`, `hom` runs as `doc`; the GPU handles refuse `dense` and run `auto` "
   "as `fast`; ranks must agree"},
  {kWaitSleep, "ZCOLL_WAIT_SLEEP", Kind::kTime, "time (0, 20us, 1e-4)", 0, kInf, "0", nullptr,
   kMpi,
   "`0`: a rank waiting for a message spins in `MPI_Wait`; a time: it tests the request and "
   "sleeps this long between tests, leaving the core to ranks that compute (only for more "
   "ranks than cores, as on the emulated cluster: each wait may end up to that much later)"},
  {kRelRange, "ZCOLL_REL_RANGE", Kind::kChoice, "exact|sampled", 0, 0, "exact", nullptr, kMpi,
   "REL bounds: `exact` reads every input value for the value range before the first "
   "compression; `sampled` reads one 64-byte line in 16 (inputs of 64 Ki values or more): a "
   "range at most the exact one, so a bound at most the requested one (reported per call), "
   "and ~16x less to read before the first send; ranks must agree"},
  {kProgress, "ZCOLL_PROGRESS", Kind::kChoice, "thread|inline", 0, 0, "thread", nullptr, kMpi,
   "nonblocking calls (`zcoll_iallreduce` & co., docs/nonblocking.md): `thread` runs them on a "
   "progress thread of the handle (with `MPI_THREAD_MULTIPLE`; otherwise as `inline`, said "
   "once on stderr); `inline` runs each to completion inside its start call (no overlap)"},
  // ---- algorithm per collective (the words: "auto" and the algorithm table's, set_words)
  {kAllreduceAlgo, "ZCOLL_ALLREDUCE_ALGO", Kind::kChoice, "auto", 0, 0,
   "auto", nullptr, kMpi,
   "Allreduce algorithm; `auto` takes the ring when a rank's block (count x size / N) is at "
   "least 256 KiB, recursive doubling (`rd`) below"},
  {kReduceScatterAlgo, "ZCOLL_REDUCE_SCATTER_ALGO", Kind::kChoice, "auto", 0, 0, "auto",
   nullptr, kMpi, "Reduce_scatter and Reduce_scatter_block algorithm (`auto`: the ring)"},
  {kAllgatherAlgo, "ZCOLL_ALLGATHER_ALGO", Kind::kChoice, "auto", 0, 0, "auto", nullptr, kMpi,
   "Allgather algorithm (`auto`: the ring)"},
  {kBcastAlgo, "ZCOLL_BCAST_ALGO", Kind::kChoice, "auto", 0, 0, "auto", nullptr,
   kMpi,
   "Bcast algorithm (`auto`: the pipelined chain when each rank's share of the buffer is at "
   "least 256 KiB, else the binomial tree)"},
  {kScatterAlgo, "ZCOLL_SCATTER_ALGO", Kind::kChoice, "auto", 0, 0, "auto", nullptr, kMpi,
   "Scatter algorithm (`auto`: the binomial tree)"},
  {kReduceAlgo, "ZCOLL_REDUCE_ALGO", Kind::kChoice, "auto", 0, 0, "auto", nullptr, kMpi,
   "Reduce algorithm (`auto`: the binomial tree)"},
  {kGatherAlgo, "ZCOLL_GATHER_ALGO", Kind::kChoice, "auto", 0, 0, "auto", nullptr, kMpi,
   "Gather algorithm (`auto`: the binomial tree)"},
  // ---- mode auto and the cost model (src/coll/control/calibrate.cc)
  {kAutoLocal, "ZCOLL_AUTO_LOCAL", Kind::kChoice, "mpi|model", 0, 0, "mpi", nullptr, kMpi,
   "`auto` when all ranks share one node: run MPI (memory beats any codec), or model the node "
   "like a network (testing)"},
  {kNodeMap, "ZCOLL_NODE_MAP", Kind::kPath, "node labels (0,0,1,1,1)", 0, 0, nullptr,
   "MPI_COMM_TYPE_SHARED", kMpi,
   "tests: emulate nodes on one machine: a node label (integer >= 0) per `MPI_COMM_WORLD` rank, "
   "comma-separated; ranks with equal labels share a node (the transport's locality, "
   "docs/transport.md; `auto`'s one-node rule follows it); must be set on all ranks alike"},
  {kTuneFile, "ZCOLL_TUNE_FILE", Kind::kPath, "path", 0, 0, nullptr, "none", kMpi,
   "the cost model's parameters from a file written by `zcoll-tune -o FILE` (JSON) instead of "
   "the handle's probe; a missing or malformed file fails `zcoll_comm_create`"},
  {kNetLatency, "ZCOLL_NET_LATENCY", Kind::kTime, "time (2us, 1ms, 1e-6)", 0, kInf, nullptr,
   "probe", kMpi, "cost model α: seconds per message"},
  {kNetSyncLatency, "ZCOLL_NET_SYNC_LATENCY", Kind::kTime, "time", 0, kInf, nullptr,
   "probe; else 2·⌈log₂N⌉·α", kMpi,
   "cost model: one small allreduce (~40 doubles); a compressed call is charged two, the "
   "settings agreement before and the status after"},
  {kNetBandwidth, "ZCOLL_NET_BANDWIDTH", Kind::kRate, "rate (1gbit, 500mbit, 12.5GB, 3e9)", 0,
   kInf, nullptr, "probe", kMpi,
   "cost model 1/β: bytes per second a rank sends while it receives"},
  {kCompressBw, "ZCOLL_COMPRESS_BW", Kind::kRate, "rate", 0, kInf, nullptr, "probe", kMpi,
   "cost model: compression throughput (uncompressed bytes/s, at the handle's threads)"},
  {kDecompressBw, "ZCOLL_DECOMPRESS_BW", Kind::kRate, "rate", 0, kInf, nullptr, "probe", kMpi,
   "cost model: decompression throughput"},
  {kDenseCompressBw, "ZCOLL_DENSE_COMPRESS_BW", Kind::kRate, "rate", 0, kInf, nullptr,
   "probe, with ZCOLL_CODEC=auto", kMpi,
   "cost model: the dense codec's compression throughput (`ZCOLL_CODEC=auto`)"},
  {kDenseDecompressBw, "ZCOLL_DENSE_DECOMPRESS_BW", Kind::kRate, "rate", 0, kInf, nullptr,
   "probe, with ZCOLL_CODEC=auto", kMpi,
   "cost model: the dense codec's decompression throughput (`ZCOLL_CODEC=auto`)"},
  {kHomBw, "ZCOLL_HOM_BW", Kind::kRate, "rate", 0, kInf, nullptr, "probe", kMpi,
   "cost model: homomorphic addition of two streams (uncompressed bytes/s)"},
  {kReduceBw, "ZCOLL_REDUCE_BW", Kind::kRate, "rate", 0, kInf, nullptr, "probe", kMpi,
   "cost model: local reduction of two float arrays"},
  {kModelOverlap, "ZCOLL_MODEL_OVERLAP", Kind::kNumber, "number in [0, 1]", 0, 1, "0.5", nullptr,
   kMpi,
   "cost model: share of the shorter of transfer and codec time that pipelined modes hide "
   "when the two are balanced (1 = perfect overlap; the rest is charged in proportion to "
   "shorter / longer, docs/algorithms.md \"Pipelining\")"},
  {kModelGrowth, "ZCOLL_MODEL_GROWTH", Kind::kNumber, "bits in [0, 64]", 0, 64, "0.7", nullptr,
   kMpi, "cost model: bits per value a compressed k-term sum grows per doubling of k"},
  {kModelMpiScale, "ZCOLL_MODEL_MPI_SCALE", Kind::kNumber, "factor in [0.01, 100]", 0.01, 100,
   nullptr, "probe", kMpi,
   "cost model: measured / modelled time of the MPI library's collectives for long messages "
   "(the probe times a 4 MiB `MPI_Allreduce`)"},
  {kModelMpiScaleSmall, "ZCOLL_MODEL_MPI_SCALE_SMALL", Kind::kNumber, "factor in [0.01, 100]",
   0.01, 100, nullptr, "probe", kMpi,
   "the same for short messages (256 KiB); in between the factor is interpolated on log size"},
  {kNetNodeLatency, "ZCOLL_NET_NODE_LATENCY", Kind::kTime, "time", 0, kInf, nullptr,
   "probe (node transport); else α", kMpi,
   "two-level cost model (node-aware algorithms): α between ranks of one node"},
  {kNetNodeBandwidth, "ZCOLL_NET_NODE_BANDWIDTH", Kind::kRate, "rate", 0, kInf, nullptr,
   "probe (node transport); else 1/β", kMpi,
   "two-level cost model: bytes per second a rank sends to a rank of its node while every rank "
   "of the node does (shared memory)"},
  {kNetRailBandwidth, "ZCOLL_NET_RAIL_BANDWIDTH", Kind::kRate, "rate", 0, kInf, nullptr,
   "probe (rail transports); else 1/β ÷ the smallest node's rank count", kMpi,
   "two-level cost model: bytes per second a rank sends to its rail neighbour on another node "
   "while every rank does (the node's link shared by its ranks)"},
  // ---- diagnostics and kernels
  {kDebug, "ZCOLL_DEBUG", Kind::kChoice, "NONE|WARN|INFO|TRACE|0|1|2|3", 0, 0, "NONE", nullptr,
   kMpi,
   "`INFO`: one line per call on rank 0 (collective, count, mode, algorithm, codec and why, error "
   "bound, bytes sent / uncompressed, time); `TRACE`: the same on every rank plus handle "
   "creation; `0`..`3` are the same levels"},
  {kSimd, "ZCOLL_SIMD", Kind::kChoice, "auto|scalar|avx2", 0, 0, "auto", nullptr, kLib,
   "codec kernels: `scalar` forces the portable reference kernels, `avx2` the AVX2 ones "
   "without the GFNI decoders and the AVX-512 hom loop (where the CPU has AVX2; streams and "
   "values are identical)"},
  // ---- the PMPI shim (libzcoll_pmpi.so, src/pmpi; docs/pmpi.md)
  {kPmpi, "ZCOLL_PMPI", Kind::kChoice, "0|1", 0, 0, "0", nullptr, kPmpiLib,
   "`1` turns the preloaded shim on; it then also needs `ZCOLL_EB_MODE` and "
   "`ZCOLL_ERROR_BOUND` set explicitly (no default bound applies; `MPI_Init` aborts without "
   "them). `0`: every call goes to the MPI library untouched"},
  {kPmpiTypes, "ZCOLL_PMPI_TYPES", Kind::kList, "float|double|real|double_precision", 0, 0,
   "float", nullptr, kPmpiLib,
   "datatypes the shim compresses (comma-separated): the predefined `MPI_FLOAT`, `MPI_DOUBLE`, "
   "and the Fortran `MPI_REAL`, `MPI_DOUBLE_PRECISION`; every other datatype passes through"},
  {kPmpiOps, "ZCOLL_PMPI_OPS", Kind::kList, "sum|max|min|prod", 0, 0, "sum", nullptr, kPmpiLib,
   "reduction ops the shim compresses (comma-separated); `MAXLOC`, `MINLOC`, logical, bitwise "
   "and user-defined ops always pass through"},
  {kPmpiColls, "ZCOLL_PMPI_COLLS", Kind::kList,
   "allreduce|reduce_scatter|reduce|allgather|bcast|scatter|gather|all", 0, 0, "allreduce",
   nullptr, kPmpiLib,
   "collectives the shim compresses (comma-separated; `reduce_scatter` covers both "
   "`MPI_Reduce_scatter` and `_block`; `all` = every one)"},
  {kPmpiMinBytes, "ZCOLL_PMPI_MIN_BYTES", Kind::kSize, "size (1M, 4MiB, 1048576)", 0, kInf, "1M",
   nullptr, kPmpiLib,
   "calls whose message (the whole result vector) has fewer bytes pass through, so scalars "
   "and small reductions stay exact"},
  {kPmpiComms, "ZCOLL_PMPI_COMMS", Kind::kPath, "glob pattern (fnmatch) on MPI_Comm_get_name",
   0, 0, "*", nullptr, kPmpiLib,
   "communicators the shim compresses on, by name (`MPI_COMM_WORLD`, `solver_*`); the "
   "match must agree on all ranks of a communicator (the shim aborts otherwise)"},
  {kPmpiReport, "ZCOLL_PMPI_REPORT", Kind::kChoice, "0|1", 0, 0, "0", nullptr, kPmpiLib,
   "`1`: at `MPI_Finalize` rank 0 prints to stderr, per collective, calls seen and "
   "compressed, bytes before / after, time and the largest reported error bound"},
  {kPmpiVerify, "ZCOLL_PMPI_VERIFY", Kind::kChoice, "0|1", 0, 0, "0", nullptr, kPmpiLib,
   "`1`: every compressed call also runs the exact MPI call and aborts with a message when a "
   "value leaves its reported bound (slow; for trying the shim on a new application)"},
  // ---- the simulated cluster (docs/scale.md; ZCOLL_SMPI=ON builds only)
  {kSimCodec, "ZCOLL_SIM_CODEC", Kind::kChoice, "off|charge|model", 0, 0, "off", nullptr, kSmpi,
   "simulated codec: `off` runs it uncharged, `charge` runs it and charges the profile's "
   "measured cost, `model` skips the data work and models stream sizes from the profile"},
  {kSimProfile, "ZCOLL_SIM_PROFILE", Kind::kPath, "path", 0, 0, nullptr, "none", kSmpi,
   "the calibration profile (`zcoll-calibrate --profile`) that `charge` and `model` read"},
  // ---- fault injection (tests only)
  {kTestFailAlloc, "ZCOLL_TEST_FAIL_ALLOC", Kind::kPath, "RANK:K", 0, 0, nullptr, "none", kMpi,
   "tests only: on rank RANK of every handle created, the K-th scratch allocation (a workspace "
   "growth) fails as if out of memory (docs/reliability.md)"},
};
// clang-format on

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kChoice: return "choice";
    case Kind::kInteger: return "integer";
    case Kind::kNumber: return "number";
    case Kind::kSize: return "size";
    case Kind::kRate: return "rate";
    case Kind::kTime: return "time";
    case Kind::kPath: return "path";
    case Kind::kList: return "list";
  }
  return "?";
}

// The words another library supplied for a variable whose table entry has none
// (set_words).
const char* g_words[kVarCount] = {};

// The accepted values of d as text ('|'-separated words for kChoice).
const char* values_of(const Decl& d) { return g_words[d.var] ? g_words[d.var] : d.values; }

// Whether `word` is one of the '|'-separated words of `list` (any case).
bool in_list(const char* list, const char* word) {
  const size_t n = std::strlen(word);
  if (n == 0) return false;
  for (const char* p = list;;) {
    const char* bar = std::strchr(p, '|');
    const size_t len = bar ? static_cast<size_t>(bar - p) : std::strlen(p);
    if (len == n && strncasecmp(p, word, n) == 0) return true;
    if (!bar) return false;
    p = bar + 1;
  }
}

// Parse text as d's kind; numeric kinds give *x. False on junk or out of range.
bool parse(const Decl& d, const char* text, double* x, uint64_t* size) {
  if (!text || !*text) return false;
  double v = 0;
  uint64_t s = 0;
  switch (d.kind) {
    case Kind::kChoice: return in_list(values_of(d), text);
    case Kind::kPath: return true;
    case Kind::kList:
      for (const char* p = text;;) {
        const char* comma = std::strchr(p, ',');
        const std::string word(p, comma ? static_cast<size_t>(comma - p) : std::strlen(p));
        if (!in_list(values_of(d), word.c_str())) return false;
        if (!comma) return true;
        p = comma + 1;
      }
    case Kind::kInteger:
      if (!units::parse_number(text, &v) || v != std::floor(v)) return false;
      break;
    case Kind::kNumber:
      if (!units::parse_number(text, &v)) return false;
      break;
    case Kind::kSize:
      if (!units::parse_size(text, &s)) return false;
      v = static_cast<double>(s);
      break;
    case Kind::kRate:
      if (!units::parse_rate(text, &v)) return false;
      break;
    case Kind::kTime:
      if (!units::parse_time(text, &v)) return false;
      break;
  }
  if (!in_range(d.var, v)) return false;
  if (x) *x = v;
  if (size) *size = s;
  return true;
}

zcoll_status bad_value(const Decl& d, const char* text) {
  return fail(ZCOLL_ERR_INVALID_ARG, "%s=%s: expected %s", d.name, text, values_of(d));
}

// The text to read for d (environment, else default) and whether it came from
// the environment; nullptr when neither has one. Fails on a wrong-kind request.
zcoll_status source(Var v, bool kind_ok, const char** text, bool* from_env) {
  const Decl& d = decl(v);
  if (!kind_ok)
    return fail(ZCOLL_ERR_INTERNAL, "%s is a %s, read with the wrong getter", d.name,
                kind_name(d.kind));
  const char* e = env_text(v);
  if (from_env) *from_env = e != nullptr;
  *text = e ? e : d.def;
  if (e && !parse(d, e, nullptr, nullptr)) return bad_value(d, e);
  return ZCOLL_SUCCESS;
}

std::string values_md_words(const char* values) {
  std::string out = "`";
  for (const char* p = values; *p; ++p) out += *p == '|' ? std::string("`, `") : std::string(1, *p);
  return out + '`';
}

// Backticks are markdown; the plain-text help leaves them out.
std::string plain(const char* s) {
  std::string out;
  for (; *s; ++s)
    if (*s != '`') out += *s;
  return out;
}

std::string values_md(const Decl& d) {
  const char* values = values_of(d);
  if (d.kind == Kind::kList) return "comma-separated: " + values_md_words(values);
  if (d.kind != Kind::kChoice) return values;
  std::string out;
  for (const char* p = values; *p; ++p) {
    if (p == values) out += '`';
    if (*p == '|')
      out += "`, `";
    else
      out += *p;
  }
  return out + '`';
}

std::string default_text(const Decl& d) {
  return d.def ? std::string(d.def) : "(" + std::string(d.unset) + ")";
}

}  // namespace

const Decl& decl(Var v) { return kTable[v]; }

void set_words(Var v, const char* words) {
  if (v >= 0 && v < kVarCount && kTable[v].kind == Kind::kChoice) g_words[v] = words;
}

zcoll_status lookup(const char* name, Var* out) {
  for (const Decl& d : kTable)
    if (name && std::strcmp(d.name, name) == 0) {
      *out = d.var;
      return ZCOLL_SUCCESS;
    }
  return fail(ZCOLL_ERR_INVALID_ARG, "%s is not a zcoll variable (zcoll-env lists them)",
              name ? name : "(null)");
}

zcoll_status check(Var v, const char* text) {
  const Decl& d = decl(v);
  return parse(d, text, nullptr, nullptr) ? ZCOLL_SUCCESS : bad_value(d, text ? text : "");
}

bool in_range(Var v, double x) {
  const Decl& d = decl(v);
  switch (d.kind) {
    case Kind::kRate: return x > 0 && std::isfinite(x);
    case Kind::kTime: return x >= 0 && std::isfinite(x);
    case Kind::kInteger:
    case Kind::kNumber:
    case Kind::kSize: return x >= d.lo && x <= d.hi;
    case Kind::kChoice:
    case Kind::kPath:
    case Kind::kList: return false;
  }
  return false;
}

const char* env_text(Var v) {
  const char* e = std::getenv(decl(v).name);
  return e && *e ? e : nullptr;
}

zcoll_status get_choice(Var v, const char** word, bool* from_env) {
  const char* t = nullptr;
  ZCOLL_CHECK(source(v, decl(v).kind == Kind::kChoice, &t, from_env));
  if (t) *word = t;
  return ZCOLL_SUCCESS;
}

zcoll_status get_path(Var v, const char** out, bool* from_env) {
  const char* t = nullptr;
  ZCOLL_CHECK(source(v, decl(v).kind == Kind::kPath, &t, from_env));
  if (t) *out = t;
  return ZCOLL_SUCCESS;
}

zcoll_status get_list(Var v, const char** out, bool* from_env) {
  const char* t = nullptr;
  ZCOLL_CHECK(source(v, decl(v).kind == Kind::kList, &t, from_env));
  if (t) *out = t;
  return ZCOLL_SUCCESS;
}

bool list_has(const char* list, const char* word) {
  const size_t n = std::strlen(word);
  for (const char* p = list; p && *p;) {
    const char* comma = std::strchr(p, ',');
    const size_t len = comma ? static_cast<size_t>(comma - p) : std::strlen(p);
    if (len == n && strncasecmp(p, word, n) == 0) return true;
    p = comma ? comma + 1 : nullptr;
  }
  return false;
}

zcoll_status get_integer(Var v, long* out, bool* from_env) {
  const char* t = nullptr;
  ZCOLL_CHECK(source(v, decl(v).kind == Kind::kInteger, &t, from_env));
  double x = 0;
  if (t && parse(decl(v), t, &x, nullptr)) *out = static_cast<long>(x);
  return ZCOLL_SUCCESS;
}

zcoll_status get_size(Var v, uint64_t* out, bool* from_env) {
  const char* t = nullptr;
  ZCOLL_CHECK(source(v, decl(v).kind == Kind::kSize, &t, from_env));
  uint64_t s = 0;
  if (t && parse(decl(v), t, nullptr, &s)) *out = s;
  return ZCOLL_SUCCESS;
}

zcoll_status get_double(Var v, double* out, bool* from_env) {
  const Kind k = decl(v).kind;
  const char* t = nullptr;
  ZCOLL_CHECK(source(v, k == Kind::kNumber || k == Kind::kRate || k == Kind::kTime, &t, from_env));
  double x = 0;
  if (t && parse(decl(v), t, &x, nullptr)) *out = x;
  return ZCOLL_SUCCESS;
}

const char* help_text() {
  static const std::string text = [] {
    std::string s;
    char line[1024];
    std::snprintf(line, sizeof line, "%-28s %-36s %-16s %s\n", "variable", "values", "default",
                  "meaning");
    s += line;
    for (const Decl& d : kTable) {
      std::snprintf(line, sizeof line, "%-28s %-36s %-16s %s\n", d.name, values_of(d),
                    default_text(d).c_str(), plain(d.doc).c_str());
      s += line;
    }
    return s;
  }();
  return text.c_str();
}

// The text of docs/env.md around the table of variables (markdown()).
const char kEnvMdHead[] =
    "# Environment variables\n"
    "\n"
    "<!-- Generated from src/core/config.cc by `zcoll-env --markdown`: edit the registry,\n"
    "     then regenerate (`BUILD/tools/zcoll_env/zcoll-env --markdown > docs/env.md`).\n"
    "     The test `docs.env_md` fails when this file is stale. -->\n"
    "\n"
    "Every `ZCOLL_*` variable is declared once, in the registry of `src/core/config.cc`\n"
    "(name, parser, default, meaning); this page, `zcoll_mpi_env_help()` and `zcoll-env`\n"
    "are generated from it. `zcoll-env` lists every variable with its value in the\n"
    "current environment and flags malformed values and unknown `ZCOLL_*` names.\n"
    "\n"
    "The variables of `libzcoll_mpi` are read when a handle is created\n"
    "(`zcoll_comm_create`) and override the `zcoll_comm_config` passed to it; the\n"
    "per-call setters (`zcoll_comm_set_mode`, `_set_algorithm`, `_set_error_bound`,\n"
    "`_set_average`; `_set_shape` has no variable) override both. A malformed value\n"
    "makes `zcoll_comm_create` fail\n"
    "with `ZCOLL_ERR_INVALID_ARG` on every rank (the ranks agree on the outcome), with\n"
    "a message that names the variable. All ranks must see the same values (mode and\n"
    "`ZCOLL_MIN_BYTES` in particular: a rank that sends a call to MPI while another runs\n"
    "a zcoll algorithm is the same error as calling different collectives; differing\n"
    "error bounds are detected and reported as `ZCOLL_ERR_MISMATCH`). `ZCOLL_SIMD` is\n"
    "read by `libzcoll` and `ZCOLL_DEBUG` by `libzcoll_mpi`, once per process.\n"
    "\n"
    "## Units\n"
    "\n"
    "Sizes, rates and times follow one set of rules in every variable and every tool\n"
    "option (`src/core/units.h`; `tools/common/zcoll_units.py` for the Python scripts):\n"
    "\n"
    "* **number**: digits with an optional fraction and exponent (`64`, `2.5`, `1e-6`);\n"
    "  no sign, spaces, hex, `inf` or `nan`.\n"
    "* **size** (bytes, or a count of values): a number, then an optional prefix `K`,\n"
    "  `M`, `G`, `T` (either case), optional `i`, optional `B`. A bare prefix or one with\n"
    "  `i` is binary: `64K` = `64KiB` = 65536, `1M` = `1MiB` = 2^20. A prefix followed by\n"
    "  `B` without `i` is decimal (SI): `1MB` = 1 000 000, `646MB` = 646 000 000. The\n"
    "  result must be a whole number below 2^64 (`1.5K` = 1536; `0.5` is refused).\n"
    "  A lowercase `b` is refused.\n"
    "* **rate** (bytes per second): a number, an optional prefix, a unit, an optional\n"
    "  `/s`. Units: `B` (bytes) or `bit`/`bits` (any case). Prefixes are decimal unless\n"
    "  followed by `i`: `1gbit` = 1.25e8, `2.5Gbit/s` = 3.125e8, `100MB/s` = 1e8,\n"
    "  `1GiB/s` = 2^30. A bare number is bytes/s (`3e9`). A prefix needs its unit (`1G`\n"
    "  is refused: bits or bytes?), and `b`, `bps` and `Bps` are refused (tc reads `bps`\n"
    "  as bytes/s, most people as bits/s). A rate must be > 0.\n"
    "* **time** (seconds): a number, then an optional `s`, `ms`, `us` or `ns` (either\n"
    "  case): `2us`, `10ms`, `1e-6`.\n"
    "\n"
    "## Variables\n"
    "\n"
    "| variable | values | default | read by | meaning |\n"
    "| --- | --- | --- | --- | --- |\n";
const char kEnvMdTail[] =
    "\n"
    "The algorithm variables other than `ZCOLL_ALLREDUCE_ALGO` are checked when a handle\n"
    "is created; each of those collectives has one algorithm today.\n"
    "\n"
    "The cost-model variables override the tuning file, which replaces the probe;\n"
    "when latency, bandwidth and the four throughputs are all given (with\n"
    "`ZCOLL_CODEC=auto`, the dense codec's two rates too), no probe runs.\n"
    "Every rank must see the same values: the first `auto` call checks it and\n"
    "returns `ZCOLL_ERR_MISMATCH` on every rank otherwise.\n"
    "\n"
    "Example:\n"
    "\n"
    "```\n"
    "ZCOLL_MODE=doc ZCOLL_EB_MODE=abs ZCOLL_ERROR_BOUND=1e-3 ZCOLL_DEBUG=INFO \\\n"
    "  mpirun -np 4 ./app\n"
    "zcoll INFO [0/4] allreduce n=4194304: mode=doc algo=ring codec=fast (config mode doc; auto: "
    "block >= 256 KiB per rank; float SUM) bound=0.004 sent=... t=...us\n"
    "```\n";

std::string markdown() {
  std::string s = kEnvMdHead;
  for (const Decl& d : kTable) {
    s += "| `";
    s += d.name;
    s += "` | " + values_md(d) + " | ";
    s += d.def ? "`" + std::string(d.def) + "`" : default_text(d);
    s += " | ";
    s += d.reader;
    s += " | ";
    s += d.doc;
    s += " |\n";
  }
  s += kEnvMdTail;
  return s;
}

std::string current_values() {
  std::string s;
  char line[1024];
  for (const Decl& d : kTable) {
    const char* e = env_text(d.var);
    std::string state;
    if (!e)
      state = d.def ? "(default " + std::string(d.def) + ")"
                    : "(unset: " + std::string(d.unset) + ")";
    else if (parse(d, e, nullptr, nullptr))
      state = e;
    else
      state = std::string(e) + "   <- INVALID: expected " + values_of(d);
    std::snprintf(line, sizeof line, "%-28s %s\n", d.name, state.c_str());
    s += line;
  }
  for (char** p = environ; p && *p; ++p) {
    if (std::strncmp(*p, "ZCOLL_", 6) != 0) continue;
    const char* eq = std::strchr(*p, '=');
    const std::string name(*p, eq ? static_cast<size_t>(eq - *p) : std::strlen(*p));
    bool known = false;
    for (const Decl& d : kTable) known = known || name == d.name;
    if (!known) {
      std::snprintf(line, sizeof line, "%-28s %s   <- UNKNOWN: not a zcoll variable\n",
                    name.c_str(), eq ? eq + 1 : "");
      s += line;
    }
  }
  return s;
}

}  // namespace zcoll::config
