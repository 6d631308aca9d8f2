// result_digest.cc — one line per collective call: the case, and a digest of
// every rank's status, report (mode, algorithm, bounds) and result bytes. Two
// builds print the same lines exactly when every collective x mode x algorithm
// gives bit-identical results and reports on the same inputs: a refactor of the
// control layer diffs the output of the old and the new build
// (scripts/result_digest.sh). Uses the public C API only, so that it builds
// against older versions of the library too.
//
//   mpiexec -n N result_digest [DATA_FILE]
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "zcoll_mpi.h"

namespace {

uint64_t fnv(const void* p, size_t n, uint64_t h = 1469598103934665603ull) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

std::vector<float> g_field;  // a real field (data/), if given

// Rank p's input value i: a slice of the field (or a smooth signal) with a
// little rank-dependent noise; PROD inputs near 1; specials: NaN / +-Inf.
double value(int p, size_t i, bool prod, bool specials) {
  if (specials && p == 0 && i % 997 == 3) return std::nan("");
  if (specials && p == 1 % 2 && i % 1999 == 5) return (i / 1999) % 2 ? INFINITY : -INFINITY;
  const double noise = std::fmod(std::sin(i * 12.9898 + p * 78.233) * 43758.5453, 1.0);
  if (prod) return 0.95 + 0.1 * std::fabs(noise);
  const double base = g_field.empty()
                          ? 20 * std::sin(i * 1e-3 + p)
                          : g_field[(i + static_cast<size_t>(p) * 7919) % g_field.size()];
  return base + 0.01 * noise * (p + 1);
}

struct Coll {
  zcoll_collective coll;
  const char* name;
  std::vector<zcoll_algorithm> algos;
  bool reduction, rooted;
};

int g_rank = 0, g_size = 1;

// Runs one call on handle zc and prints its line on rank 0.
void run(zcoll_comm* zc, const char* pipe_name, const Coll& c, zcoll_algorithm algo,
         zcoll_mode mode, MPI_Datatype dt, MPI_Op op, const char* op_name, size_t count,
         bool in_place, bool specials, zcoll_eb_mode ebm, double eb, bool average) {
  const int N = g_size, r = g_rank;
  const bool f32 = dt == MPI_FLOAT;
  const size_t vs = f32 ? 4 : 8;
  const bool prod = op == MPI_PROD;
  const int root = c.rooted ? N - 1 - static_cast<int>(count % static_cast<size_t>(N)) : 0;
  size_t n_in = count, n_out = count;
  switch (c.coll) {
    case ZCOLL_COLL_REDUCE_SCATTER: n_in = count * N; break;
    case ZCOLL_COLL_ALLGATHER:
    case ZCOLL_COLL_GATHER: n_out = count * N; break;
    case ZCOLL_COLL_SCATTER: n_in = count * N; break;
    default: break;
  }
  std::vector<uint8_t> in(n_in * vs + 8), out(std::max(n_in, n_out) * vs + 8);
  for (size_t i = 0; i < n_in; ++i) {
    const double v = value(r, i, prod, specials);
    if (f32) {
      const float x = static_cast<float>(v);
      std::memcpy(&in[i * vs], &x, 4);
    } else {
      std::memcpy(&in[i * vs], &v, 8);
    }
  }
  zcoll_comm_set_mode(zc, mode);
  zcoll_comm_set_algorithm(zc, c.coll, algo);
  zcoll_comm_set_error_bound(zc, ebm, eb);
  zcoll_comm_set_average(zc, average);
  const void* sb = in.data();
  void* rb = out.data();
  if (in_place) {  // the input where MPI_IN_PLACE wants it
    sb = MPI_IN_PLACE;
    switch (c.coll) {
      case ZCOLL_COLL_ALLGATHER:
        std::memcpy(out.data() + static_cast<size_t>(r) * count * vs, in.data(), count * vs);
        break;
      case ZCOLL_COLL_GATHER:
        if (r == root)
          std::memcpy(out.data() + static_cast<size_t>(r) * count * vs, in.data(), count * vs);
        else
          sb = in.data();
        break;
      case ZCOLL_COLL_REDUCE:
        if (r == root)
          std::memcpy(out.data(), in.data(), count * vs);
        else
          sb = in.data();
        break;
      case ZCOLL_COLL_SCATTER:
        if (r == root) rb = MPI_IN_PLACE;
        sb = in.data();
        break;
      default: std::memcpy(out.data(), in.data(), n_in * vs); break;
    }
  }
  zcoll_status s = ZCOLL_SUCCESS;
  switch (c.coll) {
    case ZCOLL_COLL_ALLREDUCE: s = zcoll_allreduce(zc, sb, rb, count, dt, op); break;
    case ZCOLL_COLL_REDUCE_SCATTER:
      s = zcoll_reduce_scatter_block(zc, sb, rb, count, dt, op);
      break;
    case ZCOLL_COLL_ALLGATHER: s = zcoll_allgather(zc, sb, rb, count, dt); break;
    case ZCOLL_COLL_BCAST:
      if (r == root) std::memcpy(out.data(), in.data(), count * vs);
      s = zcoll_bcast(zc, out.data(), count, dt, root);
      break;
    case ZCOLL_COLL_SCATTER: s = zcoll_scatter(zc, sb, rb, count, dt, root); break;
    case ZCOLL_COLL_REDUCE: s = zcoll_reduce(zc, sb, rb, count, dt, op, root); break;
    case ZCOLL_COLL_GATHER: s = zcoll_gather(zc, sb, rb, count, dt, root); break;
    default: break;
  }
  zcoll_report rep = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(zc, &rep);
  // the bytes this rank's result occupies
  const uint8_t* res = out.data();
  size_t res_bytes = n_out * vs;
  if ((c.coll == ZCOLL_COLL_REDUCE || c.coll == ZCOLL_COLL_GATHER) && r != root) res_bytes = 0;
  if (c.coll == ZCOLL_COLL_SCATTER && rb == MPI_IN_PLACE) {
    res = in.data() + static_cast<size_t>(r) * count * vs;
    res_bytes = count * vs;
  }
  uint64_t h = fnv(res, res_bytes);
  const int rep_fields[3] = {static_cast<int>(s), static_cast<int>(rep.mode),
                             static_cast<int>(rep.algorithm)};
  h = fnv(rep_fields, sizeof rep_fields, h);
  h = fnv(&rep.eb_per_compression, sizeof(double), h);
  h = fnv(&rep.error_bound, sizeof(double), h);
  std::vector<unsigned long long> all(static_cast<size_t>(N));
  unsigned long long mine = h;
  MPI_Gather(&mine, 1, MPI_UNSIGNED_LONG_LONG, all.data(), 1, MPI_UNSIGNED_LONG_LONG, 0,
             MPI_COMM_WORLD);
  if (r == 0) {
    const uint64_t total = fnv(all.data(), all.size() * sizeof(unsigned long long));
    std::printf(
        "N=%d %s %s/%s %s %s op=%s n=%zu%s%s eb=%s:%g%s -> %s/%s status=%d bound=%.6g "
        "%016llx\n",
        N, c.name, zcoll_mode_name(mode), zcoll_algorithm_name(algo), pipe_name,
        f32 ? "f32" : "f64", op_name, count, in_place ? " in_place" : "",
        specials ? " specials" : "", ebm == ZCOLL_EB_REL ? "rel" : "abs", eb, average ? " avg" : "",
        zcoll_mode_name(rep.mode), zcoll_algorithm_name(rep.algorithm), static_cast<int>(s),
        rep.error_bound, static_cast<unsigned long long>(total));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  if (argc > 1) {
    if (FILE* f = std::fopen(argv[1], "rb")) {
      std::fseek(f, 0, SEEK_END);
      g_field.resize(static_cast<size_t>(std::ftell(f)) / 4);
      std::fseek(f, 0, SEEK_SET);
      g_field.resize(std::fread(g_field.data(), 4, g_field.size(), f));
      std::fclose(f);
    }
  }
  const Coll colls[] = {
      {ZCOLL_COLL_ALLREDUCE,
       "allreduce",
       {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING},
       true,
       false},
      {ZCOLL_COLL_REDUCE_SCATTER, "reduce_scatter", {ZCOLL_ALGO_RING}, true, false},
      {ZCOLL_COLL_ALLGATHER, "allgather", {ZCOLL_ALGO_RING}, false, false},
      {ZCOLL_COLL_BCAST, "bcast", {ZCOLL_ALGO_BINOMIAL, ZCOLL_ALGO_CHAIN}, false, true},
      {ZCOLL_COLL_SCATTER, "scatter", {ZCOLL_ALGO_BINOMIAL}, false, true},
      {ZCOLL_COLL_REDUCE, "reduce", {ZCOLL_ALGO_BINOMIAL}, true, true},
      {ZCOLL_COLL_GATHER, "gather", {ZCOLL_ALGO_BINOMIAL}, false, true},
  };
  const zcoll_mode modes[] = {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM};
  const struct {
    MPI_Op op;
    const char* name;
  } ops[] = {{MPI_SUM, "sum"}, {MPI_MAX, "max"}, {MPI_MIN, "min"}, {MPI_PROD, "prod"}};
  // three handles: the default pipeline segment, a short one (many segments),
  // and the default with the bound on the result (ZCOLL_BOUND_RESULT)
  zcoll_comm* handles[3];
  const char* pipe_names[3] = {"pipe=default", "pipe=1000", "bound=result"};
  for (int h = 0; h < 3; ++h) {
    zcoll_comm_config cfg;
    zcoll_comm_config_init(&cfg);
    cfg.min_bytes = 0;
    cfg.threads = 1;
    cfg.pipeline_values = h == 1 ? 1000 : 0;
    cfg.chunk_size = h == 1 ? 1024 : 0;
    if (h == 2) cfg.bound = ZCOLL_BOUND_RESULT;
    if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &handles[h]) != ZCOLL_SUCCESS) {
      std::fprintf(stderr, "result_digest: %s\n", zcoll_last_error());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  const size_t counts[] = {1, 37, 5003, 70001};
  for (const Coll& c : colls)
    for (zcoll_algorithm algo : c.algos)
      for (zcoll_mode mode : modes)
        for (int d = 0; d < 2; ++d) {
          const MPI_Datatype dt = d ? MPI_DOUBLE : MPI_FLOAT;
          for (const auto& op : ops) {
            if (!c.reduction && op.op != MPI_SUM) continue;
            const char* on = c.reduction ? op.name : "-";
            for (size_t count : counts) {
              const int h = count == 70001 ? 1 : 0;
              // the plain call, REL per compression
              run(handles[h], pipe_names[h], c, algo, mode, dt, op.op, on, count, false, false,
                  ZCOLL_EB_REL, 1e-3, false);
              if (count != 5003) continue;
              // in place, ABS, average; NaN/Inf on some ranks
              run(handles[h], pipe_names[h], c, algo, mode, dt, op.op, on, count, true, false,
                  ZCOLL_EB_ABS, 1e-2, c.reduction && op.op == MPI_SUM);
              run(handles[h], pipe_names[h], c, algo, mode, dt, op.op, on, count, false, true,
                  ZCOLL_EB_ABS, 1e-2, false);
              run(handles[2], pipe_names[2], c, algo, mode, dt, op.op, on, count, false, false,
                  ZCOLL_EB_REL, 1e-3, false);
            }
          }
        }
  for (zcoll_comm* zc : handles) zcoll_comm_free(zc);
  MPI_Finalize();
  return 0;
}
