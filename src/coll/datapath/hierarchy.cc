// hierarchy.cc — see hierarchy.h.
#include "coll/datapath/hierarchy.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "coll/datapath/data_path.h"
#include "coll/datapath/primitives.h"
#include "core/error.h"

namespace zcoll::coll {

zcoll_status hierarchy(transport::Transport& tp, Hierarchy* h) {
  ZCOLL_CHECK(tp.locality(&h->loc));
  ZCOLL_CHECK(tp.node_transport(&h->node));
  ZCOLL_CHECK(tp.rail_transport(&h->rail));
  if (!h->node || !h->rail)
    return fail(ZCOLL_ERR_INTERNAL, "no node or rail transport for rank %d", tp.rank());
  h->lanes = std::max(1, h->loc->min_local_size);
  return ZCOLL_SUCCESS;
}

void set_layout(const transport::Locality& l, ModelIn* m) {
  m->nodes = l.nodes;
  m->min_local = l.min_local_size;
  m->max_local = l.max_local_size;
}

void set_layout(const transport::Locality& l, CostQuery* q) {
  q->nodes = l.nodes;
  q->min_local = l.min_local_size;
  q->max_local = l.max_local_size;
}

zcoll_status Composition::fail_no_memory() {
  return fail(ZCOLL_ERR_NO_MEMORY, "node-aware algorithm: out of memory for scratch space");
}

void Composition::step(const Algorithm& alg, transport::Transport* tp, zcoll_mode mode,
                       const Args& a, int terms) {
  Ctx s = c_;
  s.tp = tp;
  s.rank = tp->rank();
  s.size = tp->size();
  s.mode = mode;
  s.average = false;  // the composition divides once, by the call's size
  s.input_terms = c_.input_terms * std::max(1, terms);
  if (mode == ZCOLL_MODE_RAW) {
    s.eb = 0;
    if (s.seg_values == SIZE_MAX) {  // the call is cpr_p2p: raw steps still pipeline
      const size_t chunk = c_.params.chunk_size ? c_.params.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE;
      s.seg_values = pipeline_segment_values(4 * chunk, std::max<size_t>(a.count, 1));
    }
  }
  s.t_codec = s.t_reduce = 0;
  s.logical_bytes = 0;
  s.compressions = s.hom_adds = 0;
  s.helper_collectives = 0;
  s.failed = c_.failed;
  // rule 2: a rank that knows of a failure enters the step and aborts it at
  // once; run_algorithm then makes the helper collectives alg would have made
  Algorithm run = alg;
  if (c_.failed != ZCOLL_SUCCESS) run.run = [](Ctx& x, const Args&) { return x.failed; };
  // the sub-transport's accounting, added to the call's transport (the report)
  const uint64_t sent0 = tp->bytes_sent;
  const double time0 = tp->time_in_calls;
  tp->first_send_at = tp->last_recv_at = 0;
  const zcoll_status st = run_algorithm(run, s, a);
  transport::Transport& p = *c_.tp;
  p.bytes_sent += tp->bytes_sent - sent0;
  p.time_in_calls += tp->time_in_calls - time0;
  if (tp->first_send_at > 0 && (p.first_send_at == 0 || tp->first_send_at < p.first_send_at))
    p.first_send_at = tp->first_send_at;
  p.last_recv_at = std::max(p.last_recv_at, tp->last_recv_at);
  c_.t_codec += s.t_codec;
  c_.t_reduce += s.t_reduce;
  c_.logical_bytes += s.logical_bytes;
  c_.compressions += s.compressions;
  c_.hom_adds += s.hom_adds;
  if (st != ZCOLL_SUCCESS && c_.failed == ZCOLL_SUCCESS) c_.failed = st;
}

// ---- raw steps inside a node ---------------------------------------------------------

namespace {

uint8_t* at(const void* base, size_t values, size_t vsize) {
  return static_cast<uint8_t*>(const_cast<void*>(base)) + values * vsize;
}

// Post every send and receive of a set of raw point-to-point transfers, then
// wait for all of them.
class Transfers {
 public:
  explicit Transfers(Ctx& c) : c_(c) {}
  zcoll_status send(const void* buf, size_t n, int peer) {
    if (n == 0) return ZCOLL_SUCCESS;
    reqs_.push_back(transport::kNoReq);
    return coll::send(c_, buf, n * c_.vsize, n * c_.vsize, peer, &reqs_.back());
  }
  zcoll_status recv(void* buf, size_t n, int peer) {
    if (n == 0) return ZCOLL_SUCCESS;
    reqs_.push_back(transport::kNoReq);
    return c_.tp->irecv(buf, n * c_.vsize, peer, c_.tag, &reqs_.back());
  }
  zcoll_status wait_all() {
    for (transport::Req& r : reqs_) ZCOLL_CHECK(c_.tp->wait(r, nullptr));
    reqs_.clear();
    return ZCOLL_SUCCESS;
  }

 private:
  Ctx& c_;
  std::vector<transport::Req> reqs_;
};

zcoll_status root_scatter_run(Ctx& c, const Args& a) {
  Transfers t(c);
  if (c.rank == a.root) {
    for (int k = 0; k < c.size; ++k)
      if (k != a.root) ZCOLL_CHECK(t.send(at(a.out, a.displs[k], c.vsize), a.counts[k], k));
  } else {
    ZCOLL_CHECK(t.recv(at(a.out, a.displs[c.rank], c.vsize), a.counts[c.rank], a.root));
  }
  return t.wait_all();
}

zcoll_status root_gather_run(Ctx& c, const Args& a) {
  Transfers t(c);
  if (c.rank == a.root) {
    for (int k = 0; k < c.size; ++k)
      if (k != a.root) ZCOLL_CHECK(t.recv(at(a.out, a.displs[k], c.vsize), a.counts[k], k));
  } else {
    ZCOLL_CHECK(t.send(a.in, a.counts[c.rank], a.root));
  }
  return t.wait_all();
}

zcoll_status root_deal_run(Ctx& c, const Args& a) {
  Transfers t(c);
  if (c.rank == a.root) {
    for (int k = 0; k < c.size; ++k)
      if (k != a.root) ZCOLL_CHECK(t.send(at(a.in, a.displs[k], c.vsize), a.counts[k], k));
  } else {
    ZCOLL_CHECK(t.recv(a.out, a.counts[c.rank], a.root));
  }
  return t.wait_all();
}

zcoll_status lanes_scatter_run(Ctx& c, const Args& a) {
  const int B = static_cast<int>(a.count);
  Transfers t(c);
  if (c.rank < B) {
    for (int k = B; k < c.size; ++k)
      if (k % B == c.rank) ZCOLL_CHECK(t.send(at(a.in, a.displs[k], c.vsize), a.counts[k], k));
  } else {
    ZCOLL_CHECK(t.recv(a.out, a.counts[c.rank], c.rank % B));
  }
  return t.wait_all();
}

zcoll_status lanes_gather_run(Ctx& c, const Args& a) {
  const int B = static_cast<int>(a.count);
  Transfers t(c);
  if (c.rank < B) {
    for (int k = B; k < c.size; ++k)
      if (k % B == c.rank) ZCOLL_CHECK(t.recv(at(a.out, a.displs[k], c.vsize), a.counts[k], k));
  } else {
    ZCOLL_CHECK(t.send(a.in, a.counts[c.rank], c.rank % B));
  }
  return t.wait_all();
}

ErrState exact_model(const ModelIn& m) { return leaf(m); }
double no_cost(const CostTerms&, const CostQuery&, zcoll_mode) { return 0; }

zcoll_status allgatherv_run(Ctx& c, const Args& a) {
  return ring_allgatherv(c, a.out, a.counts, a.displs);
}
ErrState allgatherv_model(const ModelIn& m) {
  return find_algorithm(ZCOLL_COLL_ALLGATHER, ZCOLL_ALGO_RING)->model(m);
}

// Rows of the composition's own steps (not in the table).
const Algorithm kRootScatter = {ZCOLL_COLL_BCAST,
                                ZCOLL_ALGO_NONE,
                                "node_root_scatter",
                                nullptr,
                                kNoRestriction,
                                "a node's root sends each rank its block",
                                "node_root_scatter",
                                root_scatter_run,
                                exact_model,
                                no_cost,
                                nullptr,
                                nullptr,
                                ""};
const Algorithm kRootGather = {ZCOLL_COLL_GATHER,
                               ZCOLL_ALGO_NONE,
                               "node_root_gather",
                               nullptr,
                               kNoRestriction,
                               "each rank of a node sends the root its block",
                               "node_root_gather",
                               root_gather_run,
                               exact_model,
                               no_cost,
                               nullptr,
                               nullptr,
                               ""};
const Algorithm kRootDeal = {ZCOLL_COLL_SCATTER,
                             ZCOLL_ALGO_NONE,
                             "node_root_deal",
                             nullptr,
                             kNoRestriction,
                             "a node's root sends each rank its part",
                             "node_root_deal",
                             root_deal_run,
                             exact_model,
                             no_cost,
                             nullptr,
                             nullptr,
                             ""};
const Algorithm kLanesScatter = {ZCOLL_COLL_SCATTER,
                                 ZCOLL_ALGO_NONE,
                                 "node_lanes_scatter",
                                 nullptr,
                                 kNoRestriction,
                                 "each lane's rank sends the ranks it serves their blocks",
                                 "node_lanes_scatter",
                                 lanes_scatter_run,
                                 exact_model,
                                 no_cost,
                                 nullptr,
                                 nullptr,
                                 ""};
const Algorithm kLanesGather = {ZCOLL_COLL_GATHER,
                                ZCOLL_ALGO_NONE,
                                "node_lanes_gather",
                                nullptr,
                                kNoRestriction,
                                "the ranks a lane serves send it their blocks",
                                "node_lanes_gather",
                                lanes_gather_run,
                                exact_model,
                                no_cost,
                                nullptr,
                                nullptr,
                                ""};
const Algorithm kAllgatherv = {ZCOLL_COLL_ALLGATHER,
                               ZCOLL_ALGO_NONE,
                               "allgatherv",
                               nullptr,
                               kNoRestriction,
                               "ring allgather of blocks of any size",
                               "ring_allgatherv",
                               allgatherv_run,
                               allgatherv_model,
                               no_cost,
                               pieces_helpers,
                               nullptr,
                               ""};

}  // namespace

const Algorithm& node_root_scatter() { return kRootScatter; }
const Algorithm& node_root_gather() { return kRootGather; }
const Algorithm& node_root_deal() { return kRootDeal; }
const Algorithm& node_lanes_scatter() { return kLanesScatter; }
const Algorithm& node_lanes_gather() { return kLanesGather; }
const Algorithm& allgatherv_step() { return kAllgatherv; }

// ---- models ----------------------------------------------------------------------------

namespace {
// The rail step's ModelIn: one input per node.
ModelIn rail_input(const ModelIn& m) {
  ModelIn r = m;
  r.size = m.nodes > 0 ? m.nodes : m.size;
  r.average = false;
  r.nodes = r.min_local = r.max_local = 0;
  return r;
}
}  // namespace

ErrState rail_reduction_model(ModelFn flat, const ModelIn& m) {
  ModelIn r = rail_input(m);
  if (m.op == ZCOLL_OP_PROD) {
    // a node's partial product of up to max_local inputs (at least min_local)
    const double hi = std::pow(m.max_abs, std::max(1, m.max_local));
    const double lo = std::pow(m.max_abs, std::max(1, m.min_local));
    r.max_abs = std::max(hi, lo);
  }
  return averaged(m, flat(r));
}

ErrState rail_movement_model(ModelFn flat, const ModelIn& m) { return flat(rail_input(m)); }

// ---- rooted lanes ----------------------------------------------------------------------

RootLanes::RootLanes(const Hierarchy& hi, size_t values)
    : h(hi), n(values), lanes(hi.lanes), nodes(hi.nodes()) {
  for (int m = 0; m < nodes; ++m) pmax = std::max(pmax, h.loc->node_size[m]);
}

void RootLanes::fill(size_t* w) {
  const int P = h.local_size();
  slot_counts = w;
  slot_displs = slot_counts + P;
  lane_counts = slot_displs + P;
  lane_at = lane_counts + P;
  total_ = 0;
  for (int l = 0; l < P; ++l) {
    slot_counts[l] = n;
    slot_displs[l] = static_cast<size_t>(l / lanes) * n;
    lane_counts[l] = l < lanes ? static_cast<size_t>(nodes) * slots(l) * n : 0;
    lane_at[l] = total_;
    total_ += lane_counts[l];
  }
}

// ---- costs -----------------------------------------------------------------------------

Levels levels_of(const CostQuery& q) {
  Levels lv;
  lv.nodes = q.nodes > 0 ? q.nodes : q.size;
  lv.ppn = q.max_local > 0 ? q.max_local : 1;
  lv.lanes = q.min_local > 0 ? q.min_local : 1;
  return lv;
}

CostTerms rail_terms(const CostTerms& t, const Levels& lv) {
  CostTerms r = t;
  // every lane of a node crosses the node's link at once
  r.b = t.br > 0 ? t.br : t.b * lv.lanes;
  return r;
}

CostTerms node_terms(const CostTerms& t) {
  CostTerms r = t;
  r.a = t.an;
  r.b = t.bn;
  return r;
}

double step_sync(const CostTerms& t, int n) { return n > 1 ? 2 * ceil_log2(n) * t.a : 0; }

double rail_step_cost(const Algorithm& flat, const CostTerms& tr, const CostQuery& q, int nodes,
                      size_t values, int terms, zcoll_mode mode) {
  CostQuery r = q;
  r.size = nodes;
  r.total_values = values;
  r.input_terms = terms;
  r.nodes = r.min_local = r.max_local = 0;  // one rank per node: the flat model
  const double cost = flat.cost(tr, r, mode);
  return cost < 0 ? cost : cost + step_sync(tr, nodes);
}

double root_lanes_cost(const Algorithm& rail, const CostTerms& t, const CostQuery& q,
                       zcoll_mode mode) {
  const Levels lv = levels_of(q);
  const int P = lv.ppn, B = lv.lanes, M = lv.nodes;
  const double D = buffer_bytes(q);
  const CostTerms tn = node_terms(t);
  double s = D * t.g;  // lane order <-> rank order at the root
  if (P > 1) {
    s += tn.a + D * tn.b + step_sync(tn, P);                 // the lanes and the root
    if (P > B) s += tn.a + D / M * tn.b + step_sync(tn, P);  // the extra ranks' blocks
  }
  if (M > 1) {
    const size_t per_rank = q.total_values / std::max(1, q.size);
    const double cost = rail_step_cost(rail, rail_terms(t, lv), q, M,
                                       static_cast<size_t>(M) * ((P + B - 1) / B) * per_rank,
                                       q.input_terms, mode);
    if (cost < 0) return cost;
    s += cost;
  }
  return s;
}

}  // namespace zcoll::coll
