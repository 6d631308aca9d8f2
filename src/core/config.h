// config.h — the one registry of ZCOLL_* environment variables (the NCCL_PARAM
// idea): each is declared once in config.cc with its name, kind (which parser
// reads it), accepted values, default and one doc line. Readers ask the
// registry for a typed value and never call getenv themselves; docs/env.md,
// zcoll_mpi_env_help() and the zcoll-env tool are generated from the table.
//
// The registry is generic (no MPI): it parses and validates. What a value does
// is up to its reader: src/coll/control/comm_config.cc applies the handle's variables
// to a zcoll_comm_config, calibrate.cc the cost model's, log.cc ZCOLL_DEBUG,
// the codec ZCOLL_SIMD, src/pmpi the ZCOLL_PMPI* ones, sim_cost.cc and zcoll-simscale the ZCOLL_SIM_* ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "zcoll.h"

namespace zcoll::config {

// Every variable, in the table's order (docs/env.md follows it).
enum Var {
  kMode,
  kEbMode,
  kErrorBound,
  kBound,
  kThreads,
  kMinBytes,
  kChunkSize,
  kPipelineValues,
  kChecksum,
  kCodec,
  kWaitSleep,
  kRelRange,
  kProgress,
  kAllreduceAlgo,
  kReduceScatterAlgo,
  kAllgatherAlgo,
  kBcastAlgo,
  kScatterAlgo,
  kReduceAlgo,
  kGatherAlgo,
  kAutoLocal,
  kNodeMap,
  kTuneFile,
  kNetLatency,
  kNetSyncLatency,
  kNetBandwidth,
  kCompressBw,
  kDecompressBw,
  kDenseCompressBw,
  kDenseDecompressBw,
  kHomBw,
  kReduceBw,
  kModelOverlap,
  kModelGrowth,
  kModelMpiScale,
  kModelMpiScaleSmall,
  kNetNodeLatency,
  kNetNodeBandwidth,
  kNetRailBandwidth,
  kDebug,
  kSimd,
  kPmpi,
  kPmpiTypes,
  kPmpiOps,
  kPmpiColls,
  kPmpiMinBytes,
  kPmpiComms,
  kPmpiReport,
  kPmpiVerify,
  kSimCodec,
  kSimProfile,
  kTestFailAlloc,
  kVarCount
};

// Which parser reads a variable (src/core/units.h has the size, rate and time rules).
enum class Kind {
  kChoice,   // one of the words in `values` ('|'-separated, any case)
  kInteger,  // a whole number in [lo, hi]
  kNumber,   // a plain number in [lo, hi]
  kSize,     // a size (64K, 1M, 65536) in [lo, hi]
  kRate,     // a rate in bytes/s (1gbit, 12.5GB, 3e9), > 0
  kTime,     // a time in seconds (2us, 1ms, 1e-6), >= 0
  kPath,     // any non-empty text
  kList,     // a comma-separated list of the words in `values` ('|'-separated, any case)
};

struct Decl {
  Var var;           // its index in the table
  const char* name;  // ZCOLL_...
  Kind kind;
  const char* values;  // kChoice: the accepted words (unless set_words gives others);
                       // else the accepted values in words
  double lo, hi;       // kInteger, kNumber, kSize: the accepted range (inclusive)
  const char* def;     // the default, as text its parser accepts; nullptr: none
  const char* unset;   // when def is nullptr: what happens instead ("probe", "none")
  const char* reader;  // "libzcoll", "libzcoll_mpi" or "SMPI builds"
  const char* doc;     // one line
};

// The table (static storage, kVarCount entries, decl(v).var == v).
const Decl& decl(Var v);

// The accepted words of a kChoice variable from elsewhere: the algorithm
// variables, whose words come from libzcoll_mpi's algorithm table
// (coll/control/collective.cc declare_algorithm_words). `words` must outlive the
// process's use of the registry; until set, the table's words hold ("auto").
void set_words(Var v, const char* words);

// The variable called `name`; ZCOLL_ERR_INVALID_ARG when no variable has that
// name (the registry refuses lookups of undeclared names).
zcoll_status lookup(const char* name, Var* out);

// Check `text` against v's parser: ZCOLL_ERR_INVALID_ARG naming the variable
// and what it accepts when it does not parse or is out of range.
zcoll_status check(Var v, const char* text);

// Whether a number (from a tuning file, say) is in v's accepted range.
bool in_range(Var v, double x);

// The environment's text for v; nullptr when it is unset or empty.
const char* env_text(Var v);

// Typed reads. Each gives the environment's value when it is set, else the
// default (*from_env = false); with neither (def == nullptr), *out is left
// alone. A bad value in the environment is ZCOLL_ERR_INVALID_ARG naming the
// variable; asking with the wrong getter for v's kind is ZCOLL_ERR_INTERNAL.
// The environment is read at every call (handles created later see changes).
zcoll_status get_choice(Var v, const char** word, bool* from_env = nullptr);
zcoll_status get_integer(Var v, long* out, bool* from_env = nullptr);
zcoll_status get_size(Var v, uint64_t* out, bool* from_env = nullptr);
// kNumber, kRate (bytes/s) and kTime (seconds).
zcoll_status get_double(Var v, double* out, bool* from_env = nullptr);
zcoll_status get_path(Var v, const char** out, bool* from_env = nullptr);
// kList: the text (check each word with list_has).
zcoll_status get_list(Var v, const char** out, bool* from_env = nullptr);
// Whether the comma-separated `list` holds `word` (any case).
bool list_has(const char* list, const char* word);

// The help table, one variable a line (static, built once): zcoll_mpi_env_help().
const char* help_text();
// docs/env.md, whole (zcoll-env --markdown writes it; a test compares).
std::string markdown();
// Every variable with its value in this process's environment, and the
// ZCOLL_* variables set here that no one declared (zcoll-env with no options).
std::string current_values();

}  // namespace zcoll::config
