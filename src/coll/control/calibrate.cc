// calibrate.cc — the cost model's parameters: environment, tuning file, probe;
// and the per-call compression-ratio estimate (see calibrate.h).
#include "coll/control/calibrate.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <strings.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/control/comm.h"
#include "coll/control/cost_model.h"
#include "core/config.h"
#include "core/error.h"
#include "core/log.h"
#include "core/units.h"
#include "transport/clock.h"

namespace zcoll::coll {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kProbeTag = 77;
constexpr int kScaleSmall = 256 * 1024, kScaleLarge = 4 * 1024 * 1024;  // MPI scale probes (bytes)
// A variable's default as declared in the registry (core/config.cc).
double declared_default(config::Var v) {
  double x = 0;
  units::parse_number(config::decl(v).def, &x);
  return x;
}
// Share of the shorter of transfer and codec time that pipelined modes hide.
// 1 would be perfect overlap; on the emulated cluster the codec competes with
// TCP for the same cores and measured times sit between o = 0 and o = 1 (0.5).
const double kDefaultOverlap = declared_default(config::kModelOverlap);
// Bits per value a compressed sum grows by per doubling of its terms: fitted
// on ring Allreduce of the FNOC wind fields at REL 1e-4 (2 and 4 ranks:
// 3.50 and 3.27 measured ratios give b1 = 8.8 bits, growth 0.7).
const double kDefaultGrowth = declared_default(config::kModelGrowth);

// The model's fields, their variables (declared with their parsers and ranges
// in core/config.cc) and, in the same order, their keys in a tuning file.
struct EnvField {
  config::Var var;
  double zcoll_model::*field;
};
const EnvField kEnv[] = {
    {config::kNetLatency, &zcoll_model::latency},
    {config::kNetSyncLatency, &zcoll_model::sync_latency},
    {config::kNetBandwidth, &zcoll_model::bandwidth},
    {config::kCompressBw, &zcoll_model::compress_bw},
    {config::kDecompressBw, &zcoll_model::decompress_bw},
    {config::kHomBw, &zcoll_model::hom_bw},
    {config::kReduceBw, &zcoll_model::reduce_bw},
    {config::kModelOverlap, &zcoll_model::overlap},
    {config::kModelGrowth, &zcoll_model::growth_bits},
    {config::kModelMpiScale, &zcoll_model::mpi_scale},
    {config::kModelMpiScaleSmall, &zcoll_model::mpi_scale_small},
    {config::kNetNodeLatency, &zcoll_model::node_latency},
    {config::kNetNodeBandwidth, &zcoll_model::node_bandwidth},
    {config::kNetRailBandwidth, &zcoll_model::rail_bandwidth},
    {config::kDenseCompressBw, &zcoll_model::dense_compress_bw},
    {config::kDenseDecompressBw, &zcoll_model::dense_decompress_bw},
};

const char* const kJsonKeys[] = {
    "latency",        "sync_latency",   "bandwidth",         "compress_bw",
    "decompress_bw",  "hom_bw",         "reduce_bw",         "overlap",
    "growth_bits",    "mpi_scale",      "mpi_scale_small",   "node_latency",
    "node_bandwidth", "rail_bandwidth", "dense_compress_bw", "dense_decompress_bw"};
static_assert(sizeof kJsonKeys / sizeof kJsonKeys[0] == sizeof kEnv / sizeof kEnv[0],
              "a tuning-file key per model field");

// The two-level fields: optional (0 = the flat value), probed only where
// ranks share nodes.
bool two_level(double zcoll_model::*f) {
  return f == &zcoll_model::node_latency || f == &zcoll_model::node_bandwidth ||
         f == &zcoll_model::rail_bandwidth;
}

// The dense codec's rates: optional (0 = not known), needed with ZCOLL_CODEC=auto.
bool dense_rate(double zcoll_model::*f) {
  return f == &zcoll_model::dense_compress_bw || f == &zcoll_model::dense_decompress_bw;
}

// Fields that may stay unset (0 after merge): no probe runs for them alone.
bool optional_field(double zcoll_model::*f) { return two_level(f) || dense_rate(f); }

zcoll_model unset_model() {
  zcoll_model m;
  std::memset(&m, 0, sizeof m);
  m.struct_size = sizeof m;
  for (const EnvField& f : kEnv) m.*(f.field) = kNaN;
  return m;
}

// Whether m has every field the model needs (need_dense: the dense codec's
// rates too, for ZCOLL_CODEC=auto).
bool complete(const zcoll_model& m, bool need_dense) {
  for (const EnvField& f : kEnv) {
    if (f.field == &zcoll_model::overlap || f.field == &zcoll_model::growth_bits ||
        f.field == &zcoll_model::sync_latency || f.field == &zcoll_model::mpi_scale ||
        f.field == &zcoll_model::mpi_scale_small || two_level(f.field) ||
        (dense_rate(f.field) && !need_dense))
      continue;
    if (std::isnan(m.*(f.field))) return false;
  }
  return true;
}

// Median of a small vector.
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Latency and time per byte of a ring exchange on tp (every rank sends to
// rank+1 while it receives from rank-1): 8 B and 1 MiB, back to back after a
// barrier (so that the skew with which ranks leave it is amortized), median of
// 3 series. Collective; tp.size() > 1.
zcoll_status ring_rates(transport::Transport& tp, double* lat, double* sec_per_byte) {
  const int N = tp.size(), r = tp.rank();
  const int to = (r + 1) % N, from = (r - 1 + N) % N;
  // one exchange: send to rank+1 while receiving from rank-1
  auto exchange = [&](const char* sb, char* rb, size_t len) {
    transport::Req rq = transport::kNoReq, sq = transport::kNoReq;
    ZCOLL_CHECK(tp.irecv(rb, len, from, kProbeTag, &rq));
    ZCOLL_CHECK(tp.isend(sb, len, to, kProbeTag, &sq));
    ZCOLL_CHECK(tp.wait(rq, nullptr));
    return tp.wait(sq, nullptr);
  };
  // the mean time of one exchange of a series
  auto ring = [&](const char* sb, char* rb, size_t len, int reps, double* sec) {
    ZCOLL_CHECK(tp.barrier());
    const double t0 = now_seconds();
    for (int i = 0; i < reps; ++i) ZCOLL_CHECK(exchange(sb, rb, len));
    *sec = (now_seconds() - t0) / reps;
    return ZCOLL_SUCCESS;
  };
  char s8[8] = {0}, r8[8];
  const size_t big = 1 << 20;
  std::vector<char> sb(big, 1), rb(big);
  double warm = 0;
  ZCOLL_CHECK(ring(s8, r8, 8, 5, &warm));
  ZCOLL_CHECK(ring(sb.data(), rb.data(), big, 1, &warm));
  std::vector<double> small(3), large(3);
  for (int rep = 0; rep < 3; ++rep) {
    ZCOLL_CHECK(ring(s8, r8, 8, 20, &small[rep]));
    ZCOLL_CHECK(ring(sb.data(), rb.data(), big, 2, &large[rep]));
  }
  *lat = median(small);
  *sec_per_byte = std::max(median(large) - *lat, 1e-9) / big;
  return ZCOLL_SUCCESS;
}

// The two-level probe, where ranks share nodes: a ring exchange inside every
// node at once (node latency and bandwidth) and on every rail at once (the
// rail bandwidth: the node's link shared by its ranks); the slowest rank's
// values on every rank. Collective on tp (it splits the node and rail
// transports the first time).
zcoll_status run_node_probe(transport::Transport& tp, zcoll_model* m) {
  const transport::Locality* l = nullptr;
  ZCOLL_CHECK(tp.locality(&l));
  transport::Transport *node = nullptr, *rail = nullptr;
  ZCOLL_CHECK(tp.node_transport(&node));
  ZCOLL_CHECK(tp.rail_transport(&rail));
  double nlat = 0, nspb = 0, rlat = 0, rspb = 0;
  if (node->size() > 1) ZCOLL_CHECK(ring_rates(*node, &nlat, &nspb));
  ZCOLL_CHECK(tp.barrier());
  if (rail->size() > 1) ZCOLL_CHECK(ring_rates(*rail, &rlat, &rspb));
  double v[3] = {nlat, nspb, rspb};
  ZCOLL_CHECK(tp.allreduce_max(v, 3));
  m->node_latency = v[0];
  m->node_bandwidth = v[1] > 0 ? 1.0 / v[1] : 0;
  m->rail_bandwidth = v[2] > 0 ? 1.0 / v[2] : 0;
  m->ranks_per_node = l->max_local_size;
  return ZCOLL_SUCCESS;
}

// The codec's seconds per uncompressed byte, measured by the probe.
struct CodecCost {
  double compress = 0, decompress = 0, hom_add = 0, reduce = 0;
  double dense_compress = 0, dense_decompress = 0;
};

// The dense codec's compression and decompression of x (n values) with p
// (ZCOLL_CODEC=auto chooses between the codecs), timed by `timed`; *st keeps
// the first failure.
template <class Timed>
void probe_dense(const zcoll_params& fast, const std::vector<float>& x, int threads, Timed timed,
                 zcoll_status* st, CodecCost* out) {
  zcoll_params p = fast;
  p.codec = ZCOLL_CODEC_DENSE;
  const size_t n = x.size();
  const size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  std::vector<uint8_t> a(cap);
  std::vector<float> z(n);
  size_t asz = 0;
  const double bytes = static_cast<double>(n * sizeof(float));
  out->dense_compress =
      timed([&] {
        *st = *st ? *st
                  : zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), n, a.data(), cap, &asz, threads);
      }) /
      bytes;
  out->dense_decompress =
      timed([&] { *st = *st ? *st : zcoll_decompress(a.data(), asz, z.data(), n, threads); }) /
      bytes;
}

// The codec part of the probe: compress, decompress, homomorphic add and the
// float reduction on 1 MiB of smooth float data with the handle's threads.
// All ranks run each kernel at the same time (a barrier first), so where
// ranks share cores the probe sees the contention the collectives will see;
// the median of 5 runs.
zcoll_status probe_codec(transport::Transport& tp, int threads, uint32_t chunk_size,
                         CodecCost* out) {
  const int r = tp.rank();
  const size_t n = size_t{1} << 18;
  std::vector<float> x(n), y(n), z(n);
  for (size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) * 1e-3;
    x[i] = static_cast<float>(100 * std::sin(t + r) + 7 * std::cos(13.7 * t));
    y[i] = static_cast<float>(90 * std::cos(0.8 * t) + 5 * std::sin(7.1 * t + r));
  }
  zcoll_params p;
  std::memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = 1e-4 * 214.0;  // REL 1e-4 of the signals' range
  p.chunk_size = chunk_size;
  const size_t cap = zcoll_compress_bound(n, ZCOLL_FLOAT32);
  std::vector<uint8_t> a(cap), b(cap), c(2 * cap);
  size_t asz = 0, bsz = 0, csz = 0;
  zcoll_status st = ZCOLL_SUCCESS, sync_st = ZCOLL_SUCCESS;  // the kernels', the barriers'
  auto timed = [&](auto fn) {
    std::vector<double> t;
    for (int rep = 0; rep < 5; ++rep) {
      const zcoll_status bs = tp.barrier();
      if (sync_st == ZCOLL_SUCCESS) sync_st = bs;
      const double t0 = now_seconds();
      fn();
      t.push_back(now_seconds() - t0);
    }
    return std::max(median(t), 1e-9);
  };
  const double tc = timed([&] {
    st = st ? st : zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), n, a.data(), cap, &asz, threads);
  });
  if (st == ZCOLL_SUCCESS)
    st = zcoll_compress(&p, ZCOLL_FLOAT32, y.data(), n, b.data(), cap, &bsz, threads);
  const double td =
      timed([&] { st = st ? st : zcoll_decompress(a.data(), asz, z.data(), n, threads); });
  const double th = timed([&] {
    st = st ? st
            : zcoll_hom_add(a.data(), asz, b.data(), bsz, c.data(), c.size(), &csz, nullptr,
                            threads);
  });
  const double tg = timed([&] {
    const int nt = std::max(1, threads);
#pragma omp parallel for num_threads(nt) if (nt > 1)
    for (int64_t i = 0; i < static_cast<int64_t>(n); ++i) z[i] += x[i];
  });
  CodecCost cost;
  probe_dense(p, x, threads, timed, &st, &cost);
  ZCOLL_CHECK(sync_st);
  if (st != ZCOLL_SUCCESS) return st;
  const double bytes = static_cast<double>(n * sizeof(float));
  cost.compress = tc / bytes;
  cost.decompress = td / bytes;
  cost.hom_add = th / bytes;
  cost.reduce = tg / bytes;
  *out = cost;
  return ZCOLL_SUCCESS;
}

// What the probe measures of the network (N > 1).
struct NetCost {
  double latency = 0, sec_per_byte = 0, sync_latency = 0;
  double mpi_small = 0, mpi_large = 0;  // the baseline's Allreduce (0: none)
};

// The baseline library's own Allreduce (MPI's) of `values` floats, median of
// 3 after a warm-up; *sec stays 0 when the transport has none.
zcoll_status time_baseline_allreduce(transport::Transport& tp, int values, double* sec) {
  std::vector<float> mx(values, 1.0f), my(values);
  std::vector<double> tm;
  for (int rep = 0; rep < 4; ++rep) {
    ZCOLL_CHECK(tp.barrier());
    const double t0 = now_seconds();
    const zcoll_status s = tp.baseline_allreduce(mx.data(), my.data(), mx.size(), ZCOLL_FLOAT32);
    if (s == ZCOLL_ERR_UNSUPPORTED) {  // the same on every rank
      clear_error();
      return ZCOLL_SUCCESS;
    }
    ZCOLL_CHECK(s);
    if (rep > 0) tm.push_back(now_seconds() - t0);
  }
  *sec = median(tm);
  return ZCOLL_SUCCESS;
}

// The network part: the ring exchange (ring_rates), the agreement's small
// allreduce, and the baseline's Allreduce of 256 KiB and 4 MiB, to scale the
// model of its collectives (their algorithms and protocols are its business).
zcoll_status probe_network(transport::Transport& tp, NetCost* out) {
  ZCOLL_CHECK(ring_rates(tp, &out->latency, &out->sec_per_byte));
  // the agreement every compressed call starts with: a max-allreduce of
  // about 35 doubles (the transport's, as dispatch.cc makes it)
  double agree[40] = {0};
  std::vector<double> sync;
  for (int rep = 0; rep < 5; ++rep) {
    ZCOLL_CHECK(tp.barrier());
    const double t0 = now_seconds();
    for (int i = 0; i < 4; ++i) ZCOLL_CHECK(tp.allreduce_max(agree, 40));
    sync.push_back((now_seconds() - t0) / 4);
  }
  out->sync_latency = median(sync);
  ZCOLL_CHECK(time_baseline_allreduce(tp, kScaleSmall / 4, &out->mpi_small));
  return time_baseline_allreduce(tp, kScaleLarge / 4, &out->mpi_large);
}

// The probe: the codec's and the network's costs (all through the transport),
// the slowest rank's values in the model, so every rank makes the same choices.
zcoll_status run_probe(transport::Transport& tp, int threads, uint32_t chunk_size, zcoll_model* m) {
  const int N = tp.size();
  CodecCost codec;
  ZCOLL_CHECK(probe_codec(tp, threads, chunk_size, &codec));
  NetCost net;
  if (N > 1)
    ZCOLL_CHECK(probe_network(tp, &net));
  else
    net.sec_per_byte = 1e-15;  // nothing is sent: any finite bandwidth
  double v[11] = {net.latency,   net.sec_per_byte,     codec.compress,        codec.decompress,
                  codec.hom_add, codec.reduce,         net.sync_latency,      net.mpi_small,
                  net.mpi_large, codec.dense_compress, codec.dense_decompress};
  ZCOLL_CHECK(tp.allreduce_max(v, 11));
  m->latency = v[0];
  m->bandwidth = 1.0 / v[1];
  m->compress_bw = 1.0 / v[2];
  m->decompress_bw = 1.0 / v[3];
  m->hom_bw = 1.0 / v[4];
  m->reduce_bw = 1.0 / v[5];
  m->sync_latency = v[6];
  m->dense_compress_bw = 1.0 / v[9];
  m->dense_decompress_bw = 1.0 / v[10];
  m->mpi_scale = 1;
  m->mpi_scale_small = 0;
  if (N > 1) {
    m->overlap = kDefaultOverlap;
    m->growth_bits = kDefaultGrowth;
    auto scale = [&](size_t bytes, double measured) {
      CostQuery q;
      q.coll = ZCOLL_COLL_ALLREDUCE;
      q.size = N;
      q.total_values = bytes / 4;
      q.vsize = 4;
      const double model =
          predict_seconds(*m, q, ZCOLL_MODE_MPI, ZCOLL_ALGO_NATIVE);  // scale 1 here
      return model > 0 && measured > 0 ? std::min(2.0, std::max(0.5, measured / model)) : 1.0;
    };
    m->mpi_scale = scale(kScaleLarge, v[8]);
    m->mpi_scale_small = scale(kScaleSmall, v[7]);
  }
  return ZCOLL_SUCCESS;
}

// Fixed fields (tune file / env) over probed ones; defaults for the rest.
void merge(const zcoll_model& fixed, zcoll_model* m) {
  for (const EnvField& f : kEnv)
    if (!std::isnan(fixed.*(f.field))) m->*(f.field) = fixed.*(f.field);
  if (std::isnan(m->overlap)) m->overlap = kDefaultOverlap;
  if (std::isnan(m->sync_latency)) m->sync_latency = 0;
  if (std::isnan(m->mpi_scale)) m->mpi_scale = 1;
  if (std::isnan(m->mpi_scale_small)) m->mpi_scale_small = 0;
  if (std::isnan(m->growth_bits)) m->growth_bits = kDefaultGrowth;
  for (const EnvField& f : kEnv)
    if (optional_field(f.field) && std::isnan(m->*(f.field))) m->*(f.field) = 0;
}

}  // namespace

double model_hash(const zcoll_model& m) {
  double h = 0;
  for (const EnvField& f : kEnv) {
    const double v = m.*(f.field);
    const double w = std::isfinite(v) ? std::log2(std::fabs(v) + 1e-300) : 1e3;
    h = std::fmod(h * 31.0 + w * 1e6, 9007199254740881.0);
  }
  return std::floor(h);
}

zcoll_status read_tune_file(const char* path, zcoll_model* m) {
  std::ifstream in(path);
  if (!in) return fail(ZCOLL_ERR_INVALID_ARG, "ZCOLL_TUNE_FILE=%s: cannot open", path);
  nlohmann::json j;
  try {
    in >> j;
  } catch (const std::exception& e) {
    return fail(ZCOLL_ERR_INVALID_ARG, "ZCOLL_TUNE_FILE=%s: not JSON (%s)", path, e.what());
  }
  if (!j.is_object() || !j.contains("zcoll_tune"))
    return fail(ZCOLL_ERR_INVALID_ARG, "ZCOLL_TUNE_FILE=%s: not a zcoll-tune file", path);
  for (size_t i = 0; i < sizeof kJsonKeys / sizeof kJsonKeys[0]; ++i) {
    if (!j.contains(kJsonKeys[i])) continue;
    const nlohmann::json& v = j[kJsonKeys[i]];
    // what the probe measured: finite and >= 0 (its MPI scales are 0 on one
    // rank), rates > 0, the overlap in [0, 1]
    const double x = v.is_number() ? v.get<double>() : -1;
    if (!(x >= 0) || !std::isfinite(x) ||
        (config::decl(kEnv[i].var).kind == config::Kind::kRate && !(x > 0)) ||
        (kEnv[i].var == config::kModelOverlap && x > 1))
      return fail(ZCOLL_ERR_INVALID_ARG, "ZCOLL_TUNE_FILE=%s: bad value for \"%s\"", path,
                  kJsonKeys[i]);
    m->*(kEnv[i].field) = v.get<double>();
  }
  if (j.contains("threads") && j["threads"].is_number_integer())
    m->threads = j["threads"].get<int>();
  if (j.contains("ranks_per_node") && j["ranks_per_node"].is_number_integer())
    m->ranks_per_node = std::max(0, j["ranks_per_node"].get<int>());
  return ZCOLL_SUCCESS;
}

zcoll_status write_tune_file(const char* path, const zcoll_model& m) {
  nlohmann::json j;
  j["zcoll_tune"] = 1;
  for (size_t i = 0; i < sizeof kJsonKeys / sizeof kJsonKeys[0]; ++i)
    if (!optional_field(kEnv[i].field) || m.*(kEnv[i].field) > 0)  // 0: not set
      j[kJsonKeys[i]] = m.*(kEnv[i].field);
  j["threads"] = m.threads;
  if (m.ranks_per_node > 0) j["ranks_per_node"] = m.ranks_per_node;
  std::ofstream out(path);
  if (!out) return fail(ZCOLL_ERR_INVALID_ARG, "cannot write %s", path);
  out << j.dump(2) << "\n";
  return out ? ZCOLL_SUCCESS : fail(ZCOLL_ERR_INVALID_ARG, "cannot write %s", path);
}

zcoll_status model_from_env(zcoll_model* partial) {
  zcoll_model m = unset_model();
  const char* file = nullptr;
  ZCOLL_CHECK(config::get_path(config::kTuneFile, &file));
  if (file) ZCOLL_CHECK(read_tune_file(file, &m));
  for (const EnvField& f : kEnv) {
    double v = 0;
    bool set = false;
    ZCOLL_CHECK(config::get_double(f.var, &v, &set));
    if (set) m.*(f.field) = v;
  }
  *partial = m;
  return ZCOLL_SUCCESS;
}

zcoll_status probe_model(transport::Transport& tp, int threads, uint32_t chunk_size,
                         const zcoll_model& fixed, zcoll_model* out) {
  zcoll_model m = unset_model();
  ZCOLL_CHECK(run_probe(tp, threads, chunk_size, &m));
  merge(fixed, &m);
  m.threads = threads;
  m.source = ZCOLL_MODEL_SOURCE_PROBE;
  *out = m;
  return ZCOLL_SUCCESS;
}

zcoll_status calibrate(zcoll_comm* zc) {
  zcoll_model m;
  const double t0 = now_seconds();
  ZCOLL_CHECK(probe_model(*zc->tp, zc->cfg.threads, zc->cfg.chunk_size, zc->model_fixed, &m));
  // the two-level model where ranks share nodes (the fixed fields win)
  const transport::Locality* l = nullptr;
  ZCOLL_CHECK(zc->tp->locality(&l));
  if (l->nodes > 1 && l->max_local_size > 1) {
    zcoll_model two = m;
    ZCOLL_CHECK(run_node_probe(*zc->tp, &two));
    for (const EnvField& f : kEnv)
      if (two_level(f.field) && std::isnan(zc->model_fixed.*(f.field)))
        m.*(f.field) = two.*(f.field);
    m.ranks_per_node = two.ranks_per_node;
  }
  zc->model = m;
  zc->model_ready = true;
  if (zc->tp->rank() == 0)
    ZCOLL_LOG(
        log::kInfo, 0, zc->tp->size(),
        "model probe (%.1f ms): latency %.2f us, sync %.2f us, bandwidth %.3g GB/s, compress %.3g "
        "GB/s, "
        "decompress %.3g GB/s, hom %.3g GB/s, reduce %.3g GB/s, MPI scale %.2f (256K) %.2f (4M), "
        "threads %d; node latency %.2f us, node bandwidth %.3g GB/s, rail bandwidth %.3g GB/s, "
        "%d ranks per node; dense compress %.3g GB/s, decompress %.3g GB/s",
        (now_seconds() - t0) * 1e3, m.latency * 1e6, m.sync_latency * 1e6, m.bandwidth * 1e-9,
        m.compress_bw * 1e-9, m.decompress_bw * 1e-9, m.hom_bw * 1e-9, m.reduce_bw * 1e-9,
        m.mpi_scale_small, m.mpi_scale, m.threads, m.node_latency * 1e6, m.node_bandwidth * 1e-9,
        m.rail_bandwidth * 1e-9, m.ranks_per_node, m.dense_compress_bw * 1e-9,
        m.dense_decompress_bw * 1e-9);
  return ZCOLL_SUCCESS;
}

zcoll_status agree_locality(transport::Transport& tp, bool local_model, int* single_node) {
  // whether the group is one node (the transport's locality: the same on every
  // rank), and the ZCOLL_AUTO_LOCAL setting as (v, -v) under max
  const transport::Locality* l = nullptr;
  ZCOLL_CHECK(tp.locality(&l));
  const double m = local_model ? 1 : 0;
  double v[2] = {m, -m};
  ZCOLL_CHECK(tp.allreduce_max(v, 2));
  if (v[0] != -v[1]) return fail(ZCOLL_ERR_MISMATCH, "ZCOLL_AUTO_LOCAL differs across ranks");
  *single_node = l->nodes == 1 && !local_model ? 1 : 0;
  return ZCOLL_SUCCESS;
}

zcoll_status ensure_locality(zcoll_comm* zc) {
  if (zc->single_node >= 0) return ZCOLL_SUCCESS;
  return agree_locality(*zc->tp, zc->local_model, &zc->single_node);
}

zcoll_status ensure_model(zcoll_comm* zc) {
  if (zc->model_ready) return ZCOLL_SUCCESS;
  // whether any rank needs the probe, and whether the fixed parameters (tune
  // file, environment) agree: they decide, without communication, which calls
  // go straight to MPI, so ranks with different ones could diverge
  const double h = model_hash(zc->model_fixed);
  const bool need_dense = (zc->cfg.codec_flags & ZCOLL_CODEC_FLAG_AUTO) != 0;
  double v[3] = {complete(zc->model_fixed, need_dense) ? 0.0 : 1.0, h, -h};
  ZCOLL_CHECK(zc->tp->allreduce_max(v, 3));
  if (v[1] != -v[2])
    return fail(ZCOLL_ERR_MISMATCH,
                "the cost model's parameters (ZCOLL_TUNE_FILE, ZCOLL_NET_*, ZCOLL_*_BW, "
                "ZCOLL_MODEL_*) differ across ranks");
  if (v[0] > 0) return calibrate(zc);
  zcoll_model m = unset_model();
  merge(zc->model_fixed, &m);
  m.threads = zc->cfg.threads;
  m.source = config::env_text(config::kTuneFile) ? ZCOLL_MODEL_SOURCE_TUNE_FILE
                                                 : ZCOLL_MODEL_SOURCE_SET;
  zc->model = m;
  zc->model_ready = true;
  return ZCOLL_SUCCESS;
}

double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb, zcoll_codec codec,
                      uint32_t chunk) {
  if (!data || n == 0 || !(eb > 0) || !std::isfinite(eb)) return 0;
  const size_t vs = zcoll_dtype_size(dtype);
  const size_t win = 4096, windows = 16;
  zcoll_params p;
  std::memset(&p, 0, sizeof p);
  p.struct_size = sizeof p;
  p.eb_mode = ZCOLL_EB_ABS;
  p.error_bound = eb;
  p.chunk_size = chunk > 0 && chunk < win ? chunk : static_cast<uint32_t>(win);
  p.codec = codec;
  thread_local std::vector<uint8_t> buf;
  buf.resize(zcoll_compress_bound(win, dtype));
  double in = 0, out = 0;
  const size_t count = std::min(windows, (n + win - 1) / win);
  for (size_t w = 0; w < count; ++w) {
    // windows evenly spread; the last one ends at n
    const size_t start = count == 1 ? 0 : (n - std::min(n, win)) * w / (count - 1);
    const size_t len = std::min(win, n - start);
    size_t sz = 0;
    if (zcoll_compress(&p, dtype, static_cast<const uint8_t*>(data) + start * vs, len, buf.data(),
                       buf.size(), &sz, 1) != ZCOLL_SUCCESS)
      return 0;
    in += static_cast<double>(len * vs);
    out += static_cast<double>(sz - zcoll_header_size(len, p.chunk_size));
  }
  return out > 0 ? in / out : 0;
}

}  // namespace zcoll::coll
