// zcoll_simscale.cc — the driver of the at-scale study (docs/scale.md): times
// zcoll's collectives and the MPI library's own ones on a simulated cluster
// under SimGrid's SMPI (build with -DZCOLL_SMPI=ON; run with smpirun, see
// tools/simscale/study.py). It also runs under a real MPI, where it is just a
// small benchmark.
//
//   smpirun ... zcoll-simscale --coll allreduce --sizes 64M,646M --modes mpi,raw,hom
//                              --threads 1,2 [--json rows.jsonl] [--label TEXT]
//
// Sizes are bytes of the collective's buffer as zcoll-bench defines them: the
// vector of allreduce / bcast, the input of reduce_scatter and scatter, the
// output of allgather. One row per size, thread count and mode: the simulated
// time of one call (max end - min start over all ranks), the speedup over the
// `mpi` row of the same size, bytes sent over all ranks and the compression
// ratio they imply, and the local work charged per rank (sim_cost.h).
//
// Data: with ZCOLL_SIM_CODEC=model the buffers are SMPI shared memory (one
// physical copy for all ranks, contents meaningless) and nothing reads them;
// otherwise every rank fills its buffer from --data (rank r starts r/N of the
// way into the file, as zcoll-bench does) and the error bound is --rel times
// the data's range.
//
// The `mpi` rows call the MPI collective directly. For reductions they pass a
// user-defined SUM whose time is charged at the profile's measured float-add
// throughput (1 thread, as MPI reduces); SMPI's built-in MPI_SUM would take
// no simulated time with computation simulation off, which would flatter MPI.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "../common/split.h"
#include "core/config.h"
#include "core/units.h"
#include "zcoll_mpi.h"
#ifdef ZCOLL_WITH_SMPI
#include "coll/datapath/sim_cost.h"
#endif

namespace {

int g_rank = 0, g_size = 1;
bool g_model = false;      // ZCOLL_SIM_CODEC=model
bool g_charge = false;     // model or charge
double g_reduce_gbps = 0;  // profile: float add, 1 thread
std::string g_codec = "off";

using zcoll::tools::split;

// Sizes follow core/units.h: "64M" = 64 MiB, "646MB" = 646 000 000 bytes.
size_t parse_size(const std::string& t) {
  uint64_t v = 0;
  if (!zcoll::units::parse_size(t.c_str(), &v)) throw std::runtime_error("bad size " + t);
  return static_cast<size_t>(v);
}

// Float SUM whose cost is charged in the simulation (the `mpi` baseline).
void costed_sum(void* in, void* inout, int* len, MPI_Datatype* dt) {
  const size_t n = static_cast<size_t>(*len);
  const bool f32 = *dt == MPI_FLOAT;
#ifdef ZCOLL_WITH_SMPI
  if (g_charge && g_reduce_gbps > 0)
    smpi_execute_benched(static_cast<double>(n * (f32 ? 4 : 8)) / (g_reduce_gbps * 1e9));
#endif
  if (g_model) return;  // shared garbage: nothing to add
  if (f32) {
    auto* a = static_cast<const float*>(in);
    auto* b = static_cast<float*>(inout);
    for (size_t i = 0; i < n; ++i) b[i] += a[i];
  } else {
    auto* a = static_cast<const double*>(in);
    auto* b = static_cast<double*>(inout);
    for (size_t i = 0; i < n; ++i) b[i] += a[i];
  }
}

double profile_reduce_gbps() {
  const char* path = nullptr;
  zcoll::config::get_path(zcoll::config::kSimProfile, &path);
  if (!path) return 0;
  std::ifstream f(path);
  std::string line;
  double best = 0;
  while (std::getline(f, line)) {
    std::istringstream ss(line);
    std::string key, kind;
    int threads = 0, terms = 0;
    double gbps = 0;
    if (ss >> key >> threads >> kind >> terms >> gbps && key == "tput" && threads == 1 &&
        kind == "reduce" && terms == 1)
      best = gbps;
  }
  return best;
}

void* alloc(size_t bytes) {
#ifdef ZCOLL_WITH_SMPI
  if (g_model) return SMPI_SHARED_MALLOC(bytes);
#endif
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::runtime_error("out of memory");
  return p;
}
void release(void* p) {
#ifdef ZCOLL_WITH_SMPI
  if (g_model) {
    SMPI_SHARED_FREE(p);
    return;
  }
#endif
  std::free(p);
}

std::vector<float> load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot open " + path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  if (v.empty()) throw std::runtime_error(path + " holds no values");
  return v;
}

struct Opt {
  std::string coll = "allreduce";
  std::string sizes = "1M";
  std::string modes = "mpi,raw,cpr_p2p,doc,hom";
  std::string threads = "1";
  std::string data;
  std::string json, label;
  double rel = 1e-4;
  int iters = 1, warmup = 0;
};

int usage() {
  if (g_rank == 0)
    std::fprintf(stderr,
                 "usage: zcoll-simscale --coll allreduce|reduce_scatter|allgather|bcast|scatter\n"
                 "       [--sizes 1M,646MB] [--modes mpi,raw,cpr_p2p,doc,hom] [--threads 1,2]\n"
                 "       [--data FILE.f32] [--rel 1e-4] [--iters 1] [--warmup 0]\n"
                 "       [--json FILE] [--label TEXT]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  Opt o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--coll")
      o.coll = next();
    else if (a == "--sizes")
      o.sizes = next();
    else if (a == "--modes")
      o.modes = next();
    else if (a == "--threads")
      o.threads = next();
    else if (a == "--data")
      o.data = next();
    else if (a == "--json")
      o.json = next();
    else if (a == "--label")
      o.label = next();
    else if (a == "--rel")
      o.rel = std::stod(next());
    else if (a == "--iters")
      o.iters = std::stoi(next());
    else if (a == "--warmup")
      o.warmup = std::stoi(next());
    else {
      int rc = usage();
      MPI_Finalize();
      return rc;
    }
  }
  const char* codec = "off";
  if (zcoll::config::get_choice(zcoll::config::kSimCodec, &codec) != ZCOLL_SUCCESS) {
    if (g_rank == 0) std::fprintf(stderr, "zcoll-simscale: %s\n", zcoll_last_error());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  g_codec = codec;
#ifdef ZCOLL_WITH_SMPI
  g_model = zcoll::coll::sim::model();
  g_charge = zcoll::coll::sim::charging();
#endif
  g_reduce_gbps = profile_reduce_gbps();
  if (g_charge && !(g_reduce_gbps > 0)) {
    if (g_rank == 0) std::fprintf(stderr, "zcoll-simscale: no 'tput 1 reduce 1' in the profile\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::map<std::string, zcoll_collective> colls = {
      {"allreduce", ZCOLL_COLL_ALLREDUCE},
      {"reduce_scatter", ZCOLL_COLL_REDUCE_SCATTER},
      {"allgather", ZCOLL_COLL_ALLGATHER},
      {"bcast", ZCOLL_COLL_BCAST},
      {"scatter", ZCOLL_COLL_SCATTER}};
  if (!colls.count(o.coll)) {
    int rc = usage();
    MPI_Finalize();
    return rc;
  }
  const zcoll_collective coll = colls.at(o.coll);
  const int N = g_size;
  std::vector<size_t> sizes;
  for (auto& s : split(o.sizes, ',')) sizes.push_back(parse_size(s));
  std::vector<int> threads;
  for (auto& t : split(o.threads, ',')) threads.push_back(std::stoi(t));
  const std::vector<std::string> modes = split(o.modes, ',');

  // buffers for the largest size: in (send), out (receive)
  size_t max_bytes = 0;
  for (size_t b : sizes) max_bytes = std::max(max_bytes, b);
  const size_t max_count = max_bytes / 4 / N * N;  // whole blocks per rank
  size_t in_vals = max_count, out_vals = max_count;
  if (coll == ZCOLL_COLL_REDUCE_SCATTER) out_vals = max_count / N;
  if (coll == ZCOLL_COLL_ALLGATHER) in_vals = max_count / N;
  if (coll == ZCOLL_COLL_SCATTER) out_vals = max_count / N;
  auto* in = static_cast<float*>(alloc(in_vals * 4 + 64));
  auto* out = static_cast<float*>(alloc(out_vals * 4 + 64));
  double eb = o.rel;  // model: any positive bound (no data is read)
  if (!g_model) {
    std::vector<float> src;
    if (!o.data.empty())
      src = load(o.data);
    else {
      src.resize(1 << 20);
      for (size_t i = 0; i < src.size(); ++i)
        src[i] = static_cast<float>(10 * std::sin(i * 1e-4) + std::cos(7.3e-4 * i));
    }
    const size_t n = src.size();
    const size_t start = static_cast<size_t>(g_rank) * (n / N) + static_cast<size_t>(g_rank) * 7919;
    for (size_t i = 0; i < in_vals; ++i) in[i] = src[(i + start) % n];
    float lo = src[0], hi = src[0];
    for (float v : src)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    eb = o.rel * (static_cast<double>(hi) - lo);
  }

  MPI_Op costed;
  MPI_Op_create(&costed_sum, 1, &costed);

  std::FILE* jf = nullptr;
  if (g_rank == 0 && !o.json.empty()) {
    jf = std::fopen(o.json.c_str(), "a");
    if (!jf) {
      std::fprintf(stderr, "zcoll-simscale: cannot append to %s\n", o.json.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (g_rank == 0)
    std::printf(
        "# zcoll-simscale %s N=%d codec=%s label=%s\n# %10s %4s %8s %6s %14s %8s %9s %14s\n",
        o.coll.c_str(), N, g_codec.c_str(), o.label.c_str(), "bytes", "thr", "mode", "algo",
        "sim_seconds", "speedup", "ratio", "bytes_sent");

  int failures = 0;
  for (size_t bytes : sizes) {
    const size_t count = bytes / 4 / N * N;  // values of the collective's buffer
    const size_t per = count / N;
    double t_mpi = 0;
    for (int th : threads) {
      zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
      zcoll_comm_config_init(&cfg);
      cfg.eb_mode = ZCOLL_EB_ABS;
      cfg.error_bound = eb;
      cfg.threads = th;
      cfg.min_bytes = 0;
      zcoll_comm* zc = nullptr;
      if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) != ZCOLL_SUCCESS) {
        std::fprintf(stderr, "rank %d: zcoll_comm_create: %s\n", g_rank, zcoll_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
      zcoll_comm_config eff = ZCOLL_COMM_CONFIG_INITIALIZER;
      zcoll_comm_config_init(&eff);
      zcoll_comm_get_config(zc, &eff);  // after the ZCOLL_* environment
      const size_t pipeline =
          eff.pipeline_values
              ? eff.pipeline_values
              : size_t{4} * (eff.chunk_size ? eff.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE);
      for (const std::string& mname : modes) {
        const bool is_mpi = mname == "mpi";
        if (is_mpi && th != threads.front()) continue;  // MPI does not use threads
        zcoll_mode mode = ZCOLL_MODE_HOM;
        if (!is_mpi && zcoll_mode_from_name(mname.c_str(), &mode) != ZCOLL_SUCCESS) {
          if (g_rank == 0) std::fprintf(stderr, "unknown mode %s\n", mname.c_str());
          MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (!is_mpi) zcoll_comm_set_mode(zc, mode);
        double t_best = 1e300, charged[8] = {0};
        unsigned long long sent = 0, logical = 0;
        zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
        std::memset(&rep, 0, sizeof rep);
        rep.struct_size = sizeof rep;
        int st = 0;
        for (int it = 0; it < o.warmup + o.iters; ++it) {
#ifdef ZCOLL_WITH_SMPI
          zcoll::coll::sim::reset_charged();
#endif
          MPI_Barrier(MPI_COMM_WORLD);
          const double t0 = MPI_Wtime();
          int rc = 0;
          switch (coll) {
            case ZCOLL_COLL_ALLREDUCE:
              rc = is_mpi ? MPI_Allreduce(in, out, static_cast<int>(count), MPI_FLOAT, costed,
                                          MPI_COMM_WORLD)
                          : zcoll_allreduce(zc, in, out, count, MPI_FLOAT, MPI_SUM);
              break;
            case ZCOLL_COLL_REDUCE_SCATTER:
              rc = is_mpi ? MPI_Reduce_scatter_block(in, out, static_cast<int>(per), MPI_FLOAT,
                                                     costed, MPI_COMM_WORLD)
                          : zcoll_reduce_scatter_block(zc, in, out, per, MPI_FLOAT, MPI_SUM);
              break;
            case ZCOLL_COLL_ALLGATHER:
              rc = is_mpi ? MPI_Allgather(in, static_cast<int>(per), MPI_FLOAT, out,
                                          static_cast<int>(per), MPI_FLOAT, MPI_COMM_WORLD)
                          : zcoll_allgather(zc, in, out, per, MPI_FLOAT);
              break;
            case ZCOLL_COLL_BCAST:
              rc = is_mpi ? MPI_Bcast(in, static_cast<int>(count), MPI_FLOAT, 0, MPI_COMM_WORLD)
                          : zcoll_bcast(zc, in, count, MPI_FLOAT, 0);
              break;
            case ZCOLL_COLL_SCATTER:
              rc = is_mpi ? MPI_Scatter(in, static_cast<int>(per), MPI_FLOAT, out,
                                        static_cast<int>(per), MPI_FLOAT, 0, MPI_COMM_WORLD)
                          : zcoll_scatter(zc, in, out, per, MPI_FLOAT, 0);
              break;
            default: break;
          }
          const double t1 = MPI_Wtime();
          if (rc != 0) {
            st = 1;
            std::fprintf(stderr, "rank %d: %s %s failed: %s\n", g_rank, o.coll.c_str(),
                         mname.c_str(), is_mpi ? "MPI error" : zcoll_last_error());
          }
          double lo_hi[2] = {-t0, t1}, g[2];
          MPI_Allreduce(lo_hi, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
          if (it >= o.warmup) t_best = std::min(t_best, g[1] + g[0]);
          if (!is_mpi) zcoll_comm_last_report(zc, &rep);
        }
        unsigned long long mine[2] = {is_mpi ? 0ULL : rep.bytes_sent,
                                      is_mpi ? 0ULL : rep.bytes_uncompressed};
        unsigned long long tot[2];
        MPI_Reduce(mine, tot, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
        sent = tot[0];
        logical = tot[1];
        double my_charged[8] = {0};
#ifdef ZCOLL_WITH_SMPI
        const double* cs = zcoll::coll::sim::charged_seconds();
        for (int k = 0; k < zcoll::coll::sim::kKinds; ++k) my_charged[k] = cs[k];
#endif
        MPI_Reduce(my_charged, charged, 8, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        int any = 0;
        MPI_Allreduce(&st, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        failures += any;
        if (is_mpi) t_mpi = t_best;
        if (g_rank == 0) {
          const double speedup = t_mpi > 0 ? t_mpi / t_best : 0;
          const double ratio = sent ? static_cast<double>(logical) / sent : 0;
          const char* algo = is_mpi ? "native" : zcoll_algorithm_name(rep.algorithm);
          const char* ran = is_mpi ? "mpi" : zcoll_mode_name(rep.mode);
          std::printf("  %10zu %4d %8s %6s %14.6f %8.3f %9.3f %14llu%s\n", count * 4, th, ran, algo,
                      t_best, speedup, ratio, sent, any ? "  FAILED" : "");
          if (jf) {
            std::fprintf(jf,
                         "{\"label\":\"%s\",\"nodes\":%d,\"collective\":\"%s\",\"mode\":\"%s\","
                         "\"mode_ran\":\"%s\",\"algorithm\":\"%s\",\"threads\":%d,\"bytes\":%zu,"
                         "\"sim_seconds\":%.9g,\"mpi_seconds\":%.9g,\"speedup_vs_mpi\":%.6g,"
                         "\"bytes_sent\":%llu,\"bytes_uncompressed\":%llu,\"ratio_sent\":%.6g,"
                         "\"codec\":\"%s\",\"charged_max_rank_s\":{\"compress\":%.6g,"
                         "\"decompress\":%.6g,\"accumulate\":%.6g,\"hom_add\":%.6g,\"reduce\":%.6g,"
                         "\"copy\":%.6g},\"pipeline_values\":%zu,\"failed\":%s}\n",
                         o.label.c_str(), N, o.coll.c_str(), mname.c_str(), ran, algo,
                         is_mpi ? 1 : th, count * 4, t_best, t_mpi, speedup, sent, logical, ratio,
                         g_codec.c_str(), charged[0], charged[1], charged[2], charged[3],
                         charged[4], charged[5], pipeline, any ? "true" : "false");
            std::fflush(jf);
          }
          std::fflush(stdout);
        }
      }
      zcoll_comm_free(zc);
    }
  }
  if (jf) std::fclose(jf);
  MPI_Op_free(&costed);
  release(in);
  release(out);
  MPI_Finalize();
  return failures ? 1 : 0;
}
