// registry.cc — the algorithm table (algorithms.h): one row per algorithm, the
// one place that knows which algorithms exist. Each algorithm file
// (src/coll/<collective>/<function>.cc) defines <function>, <function>_model
// and <function>_cost; ZCOLL_ALGORITHM declares the three.
//
// Order matters twice: within a collective the first row whose size rule holds
// is the default (rows without a rule hold always; node-aware rows never), and
// AUTO's near-ties go to the earlier candidate (the ring, fewest bytes on the
// wire, before recursive doubling; the chain before the binomial tree; the
// flat rows before the node-aware ones).
#include <cstring>
#include <string>
#include <strings.h>

#include "coll/control/algorithms.h"

namespace zcoll::coll {

#define ZCOLL_ALGORITHM(fn)            \
  zcoll_status fn(Ctx&, const Args&);  \
  ErrState fn##_model(const ModelIn&); \
  double fn##_cost(const CostTerms&, const CostQuery&, zcoll_mode);
ZCOLL_ALGORITHM(allreduce_ring)
ZCOLL_ALGORITHM(allreduce_recursive_doubling)
ZCOLL_ALGORITHM(reduce_scatter_ring)
ZCOLL_ALGORITHM(reduce_scatter_pairwise)
ZCOLL_ALGORITHM(allgather_ring)
ZCOLL_ALGORITHM(bcast_chain)
ZCOLL_ALGORITHM(bcast_binomial)
ZCOLL_ALGORITHM(scatter_binomial)
ZCOLL_ALGORITHM(reduce_binomial)
ZCOLL_ALGORITHM(gather_binomial)
ZCOLL_ALGORITHM(allreduce_node_aware)
ZCOLL_ALGORITHM(allreduce_node_leader)
ZCOLL_ALGORITHM(reduce_scatter_node_aware)
ZCOLL_ALGORITHM(allgather_node_aware)
ZCOLL_ALGORITHM(bcast_node_aware)
ZCOLL_ALGORITHM(reduce_node_aware)
ZCOLL_ALGORITHM(gather_node_aware)
ZCOLL_ALGORITHM(scatter_node_aware)
#undef ZCOLL_ALGORITHM

// The run, model and cost functions of `fn`.
#define ZCOLL_FUNCTIONS(fn) #fn, fn, fn##_model, fn##_cost

// The node-aware compositions (hierarchy.h).
constexpr zcoll_algorithm kNodeAwareAlgo = ZCOLL_ALGO_NODE_AWARE;
constexpr zcoll_algorithm kNodeLeaderAlgo = ZCOLL_ALGO_NODE_LEADER;

namespace {
constexpr Algorithm kAlgorithms[] = {
    {ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RING, "ring", nullptr, kCommutativeOps,
     "reduce-scatter ring + allgather ring; bandwidth-optimal for large vectors",
     ZCOLL_FUNCTIONS(allreduce_ring), pieces_helpers, share_at_least_256k,
     "auto: block >= 256 KiB per rank"},
    {ZCOLL_COLL_ALLREDUCE, ZCOLL_ALGO_RECURSIVE_DOUBLING, "recursive_doubling", "rd",
     kCommutativeOps,
     "log2 N exchanges of the whole vector (pre/post step for non-powers of two); fewer "
     "compressions, for small vectors",
     ZCOLL_FUNCTIONS(allreduce_recursive_doubling), nullptr, nullptr,
     "auto: block < 256 KiB per rank"},
    {ZCOLL_COLL_ALLREDUCE, kNodeAwareAlgo, "node_aware", nullptr, kCommutativeOps | kNodeAware,
     "node reduce-scatter (raw) + ring allreduce of 1/P on each rail + node allgather (raw)",
     ZCOLL_FUNCTIONS(allreduce_node_aware), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_ALLREDUCE, kNodeLeaderAlgo, "node_leader", nullptr, kCommutativeOps | kNodeAware,
     "node reduce to a leader (raw) + recursive doubling among leaders + node bcast (raw); "
     "small vectors",
     ZCOLL_FUNCTIONS(allreduce_node_leader), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_RING, "ring", nullptr, kCommutativeOps,
     "N-1 ring steps, segments pipelined", ZCOLL_FUNCTIONS(reduce_scatter_ring), nullptr, nullptr,
     "the default"},
    {ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_ALGO_PAIRWISE, "pairwise", nullptr, kCommutativeOps | kNoAuto,
     "N-1 exchanges, every block straight to its owner: compressed once, decoded once",
     ZCOLL_FUNCTIONS(reduce_scatter_pairwise), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_REDUCE_SCATTER, kNodeAwareAlgo, "node_aware", nullptr, kCommutativeOps | kNodeAware,
     "node reduce-scatter of the lanes (raw) + ring reduce-scatter on each rail",
     ZCOLL_FUNCTIONS(reduce_scatter_node_aware), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_ALLGATHER, ZCOLL_ALGO_RING, "ring", nullptr, kNoRestriction,
     "compress once, balanced fixed-segment ring, decompress on arrival",
     ZCOLL_FUNCTIONS(allgather_ring), pieces_helpers, nullptr, "the default"},
    {ZCOLL_COLL_ALLGATHER, kNodeAwareAlgo, "node_aware", nullptr, kNodeAware,
     "ring allgather on each rail (each block compressed once) + node allgather (raw)",
     ZCOLL_FUNCTIONS(allgather_node_aware), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_BCAST, ZCOLL_ALGO_CHAIN, "chain", nullptr, kNoRestriction,
     "pipelined chain of segments, every link carries the buffer once; long messages",
     ZCOLL_FUNCTIONS(bcast_chain), nullptr, share_at_least_256k, "auto: share >= 256 KiB per rank"},
    {ZCOLL_COLL_BCAST, ZCOLL_ALGO_BINOMIAL, "binomial", nullptr, kNoRestriction,
     "binomial tree, segments pipelined, root compresses once", ZCOLL_FUNCTIONS(bcast_binomial),
     nullptr, nullptr, "auto: share < 256 KiB per rank"},
    {ZCOLL_COLL_BCAST, kNodeAwareAlgo, "node_aware", nullptr, kNodeAware,
     "root's node scatters lanes (raw) + chain bcast on each rail + node allgather (raw)",
     ZCOLL_FUNCTIONS(bcast_node_aware), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_SCATTER, ZCOLL_ALGO_BINOMIAL, "binomial", nullptr, kNoRestriction,
     "binomial tree, one stream per block, inner ranks forward streams",
     ZCOLL_FUNCTIONS(scatter_binomial), nullptr, nullptr, "the default"},
    {ZCOLL_COLL_SCATTER, kNodeAwareAlgo, "node_aware", nullptr, kNodeAware,
     "lanes from the root (raw) + binomial scatter of each lane on its rail + lanes "
     "scattered in the node (raw)",
     ZCOLL_FUNCTIONS(scatter_node_aware), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_REDUCE, ZCOLL_ALGO_BINOMIAL, "binomial", nullptr, kCommutativeOps,
     "binomial tree, segments pipelined with a receive window per child",
     ZCOLL_FUNCTIONS(reduce_binomial), nullptr, nullptr, "the default"},
    {ZCOLL_COLL_REDUCE, kNodeAwareAlgo, "node_aware", nullptr, kCommutativeOps | kNodeAware,
     "node reduce-scatter of the lanes (raw) + binomial reduce of each lane on its rail + "
     "lanes to the root (raw)",
     ZCOLL_FUNCTIONS(reduce_node_aware), nullptr, nullptr, "call setting"},
    {ZCOLL_COLL_GATHER, ZCOLL_ALGO_BINOMIAL, "binomial", nullptr, kNoRestriction,
     "binomial tree, own block compressed once, inner ranks forward streams",
     ZCOLL_FUNCTIONS(gather_binomial), nullptr, nullptr, "the default"},
    {ZCOLL_COLL_GATHER, kNodeAwareAlgo, "node_aware", nullptr, kNodeAware,
     "lanes gathered in the node (raw) + binomial gather of each lane on its rail + lanes to "
     "the root (raw)",
     ZCOLL_FUNCTIONS(gather_node_aware), nullptr, nullptr, "call setting"},
};
#undef ZCOLL_FUNCTIONS

bool is(const char* a, const char* b) { return a && b && strcasecmp(a, b) == 0; }

// ---- the table against zcoll_algorithm (zcoll_mpi.h), at compile time --------
// Every value of the public enum, sorted: ROW, an algorithm of the table (the
// rows with that number are named like it: ZCOLL_ALGO_NODE_AWARE, "node_aware");
// OTHER, a value with no row (the library's choice, MPI's own, nothing to do).
// A value added to the enum and not here fails the build (-Wswitch is an error
// in kind_of); so does a ROW without rows, a row of another name, an OTHER with
// rows, and a row whose number is no ROW (the count check below).
// clang-format off
#define ZCOLL_ALGORITHM_VALUES(ROW, OTHER)                                      \
  OTHER(ZCOLL_ALGO_AUTO) OTHER(ZCOLL_ALGO_NATIVE) OTHER(ZCOLL_ALGO_NONE)         \
  ROW(ZCOLL_ALGO_RING) ROW(ZCOLL_ALGO_RECURSIVE_DOUBLING) ROW(ZCOLL_ALGO_BINOMIAL) \
  ROW(ZCOLL_ALGO_CHAIN) ROW(ZCOLL_ALGO_PAIRWISE) ROW(ZCOLL_ALGO_NODE_AWARE)      \
  ROW(ZCOLL_ALGO_NODE_LEADER)
// clang-format on

constexpr char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether `name` is the enumerator's spelling after ZCOLL_ALGO_, in lower case.
constexpr bool spelled_as(const char* enumerator, const char* name) {
  const char* e = enumerator + sizeof("ZCOLL_ALGO_") - 1;
  for (; *e && *name; ++e, ++name)
    if (lower(*e) != *name) return false;
  return *e == *name;
}

// Rows with number a exist, all named as the enumerator.
constexpr bool has_rows(zcoll_algorithm a, const char* enumerator) {
  bool any = false;
  for (const Algorithm& row : kAlgorithms) {
    if (row.algo != a) continue;
    if (!spelled_as(enumerator, row.name)) return false;
    any = true;
  }
  return any;
}

constexpr bool has_no_rows(zcoll_algorithm a) {
  for (const Algorithm& row : kAlgorithms)
    if (row.algo == a) return false;
  return true;
}

enum class ValueKind { kRow, kOther, kUnknown };

// NOLINTBEGIN(bugprone-macro-parentheses): the pieces of ZCOLL_ALGORITHM_VALUES' uses
// (a case label, an array element) cannot be parenthesized
#define ZCOLL_CASE_ROW(e)                                                                 \
  case e:                                                                                 \
    static_assert(has_rows(e, #e), #e ": no row of kAlgorithms, or one named otherwise"); \
    return ValueKind::kRow;
#define ZCOLL_CASE_OTHER(e)                                      \
  case e:                                                        \
    static_assert(has_no_rows(e), #e ": not a table algorithm"); \
    return ValueKind::kOther;
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch"
constexpr ValueKind kind_of(zcoll_algorithm a) {
  switch (a) { ZCOLL_ALGORITHM_VALUES(ZCOLL_CASE_ROW, ZCOLL_CASE_OTHER) }
  return ValueKind::kUnknown;  // a number zcoll_algorithm does not name
}
#pragma GCC diagnostic pop
#undef ZCOLL_CASE_ROW
#undef ZCOLL_CASE_OTHER

// The ROW values.
#define ZCOLL_ROW_VALUE(e) e,
#define ZCOLL_NO_VALUE(e)
constexpr zcoll_algorithm kRowValues[] = {ZCOLL_ALGORITHM_VALUES(ZCOLL_ROW_VALUE, ZCOLL_NO_VALUE)};
#undef ZCOLL_ROW_VALUE
#undef ZCOLL_NO_VALUE
#undef ZCOLL_ALGORITHM_VALUES
// NOLINTEND(bugprone-macro-parentheses)

// The distinct numbers of the table's rows, each a ROW value.
constexpr size_t row_numbers() {
  size_t n = 0;
  for (size_t i = 0; i < sizeof kAlgorithms / sizeof kAlgorithms[0]; ++i) {
    if (kind_of(kAlgorithms[i].algo) != ValueKind::kRow) return 0;
    bool first = true;
    for (size_t j = 0; j < i; ++j) first = first && kAlgorithms[j].algo != kAlgorithms[i].algo;
    n += first;
  }
  return n;
}
static_assert(row_numbers() == sizeof kRowValues / sizeof kRowValues[0],
              "kAlgorithms and zcoll_algorithm (zcoll_mpi.h) disagree: every row's number must "
              "be a ZCOLL_ALGO_* value listed as ROW in ZCOLL_ALGORITHM_VALUES, and every ROW "
              "value must have rows");
}  // namespace

const Algorithm* algorithms(size_t* count) {
  *count = sizeof kAlgorithms / sizeof kAlgorithms[0];
  return kAlgorithms;
}

const Algorithm* find_algorithm(zcoll_collective coll, zcoll_algorithm algo) {
  for (const Algorithm& a : kAlgorithms)
    if (a.coll == coll && a.algo == algo) return &a;
  return nullptr;
}

const Algorithm* find_algorithm_named(zcoll_collective coll, const char* word) {
  for (const Algorithm& a : kAlgorithms)
    if (a.coll == coll && (is(word, a.name) || is(word, a.alias))) return &a;
  return nullptr;
}

const char* algorithm_name(zcoll_algorithm algo) {
  for (const Algorithm& a : kAlgorithms)
    if (a.algo == algo) return a.name;
  return nullptr;
}

const char* algorithm_words(zcoll_collective coll) {
  // built once per collective (static storage: the registry of ZCOLL_* keeps the pointer)
  static std::string words[32];
  std::string& w = words[static_cast<int>(coll) & 31];
  if (w.empty()) {
    w = "auto";
    for (const Algorithm& a : kAlgorithms) {
      if (a.coll != coll) continue;
      if (a.alias) w += std::string("|") + a.alias;
      w += std::string("|") + a.name;
    }
  }
  return w.c_str();
}

const Algorithm* default_algorithm(const CostQuery& q, const char** reason) {
  // the size rule picks among the flat rows (a node-aware one runs when chosen)
  const Algorithm* only = nullptr;
  int rows = 0;
  for (const Algorithm& a : kAlgorithms)
    if (a.coll == q.coll && !(a.restrictions & kNodeAware) && rows++ == 0) only = &a;
  for (const Algorithm& a : kAlgorithms) {
    if (a.coll != q.coll || (a.restrictions & kNodeAware) || (a.prefer && !a.prefer(q))) continue;
    if (reason) *reason = rows == 1 ? "the only algorithm" : a.prefer_reason;
    return &a;
  }
  if (reason) *reason = "the only algorithm";
  return only;
}

zcoll_algorithm default_algorithm(zcoll_collective coll, size_t total_values, size_t vsize,
                                  int size) {
  CostQuery q;
  q.coll = coll;
  q.total_values = total_values;
  q.vsize = vsize;
  q.size = size;
  const Algorithm* a = default_algorithm(q, nullptr);
  return a ? a->algo : ZCOLL_ALGO_NONE;
}

bool share_at_least_256k(const CostQuery& q) {
  return q.total_values * q.vsize / static_cast<size_t>(std::max(1, q.size)) >= 262144;
}

int pieces_helpers(const Ctx& c) {
  return c.poll() && c.size > 1 ? 1 : 0;  // traveling streams (DataPath::travels)
}

}  // namespace zcoll::coll
