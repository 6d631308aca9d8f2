// half_coll_test.cc — the collectives on bfloat16 / float16 buffers (zcoll 1.2),
// under mpiexec -n 1..5: every collective, every mode and every algorithm of the
// table on every file of data/ converted to 16 bits (rank p takes its own slice
// of the file), checked value by value against the exact result of the 16-bit
// inputs (computed in double) within the reported bound, plus the float32
// arithmetic's own rounding on top (as for float32 calls, zcoll_mpi.h). Also:
// zcoll's 16-bit MPI datatypes, the float16 overflow, bit-identical Allreduce
// results on all ranks, a user-defined op, and MPI's refusal of MPI_SUM on the
// 16-bit datatype. Exit status != 0 on failure.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "harness.h"
#include "zcoll_mpi.h"

namespace {

using zcoll_testing::g_rank;
int g_size = 1;

// ---- 16-bit values (written here from the definitions, not the library's) -------
float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
double value16(uint16_t h, bool bf) {
  if (bf) return bits_float(uint32_t{h} << 16);
  const int e = (h >> 10) & 31, m = h & 1023;
  const double s = (h & 0x8000) ? -1 : 1;
  if (e == 31) return m ? NAN : s * INFINITY;
  if (e == 0) return s * std::ldexp(m, -24);
  return s * std::ldexp(1024 + m, e - 25);
}
// float -> 16 bits, round to nearest even (through double: exact for these inputs)
uint16_t to16(float f, bool bf) {
  if (std::isnan(f)) return bf ? 0x7FC0 : 0x7E00;
  const int p = bf ? 8 : 11, emin = bf ? -126 : -14;
  const double maxf = bf ? 3.3895313892515355e38 : 65504.0;
  double x = std::fabs(static_cast<double>(f));
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (x != 0 && std::isfinite(x)) {
    int e;
    std::frexp(x, &e);
    const double ulp = std::ldexp(1.0, std::max(e - 1, emin) - (p - 1));
    x = std::nearbyint(x / ulp) * ulp;
  }
  if (!(x <= maxf)) return sign | (bf ? 0x7F80 : 0x7C00);
  if (bf) return static_cast<uint16_t>(float_bits(static_cast<float>(x)) >> 16 | sign);
  if (x == 0) return sign;
  int e;
  const double m = std::frexp(x, &e);
  if (e - 1 < emin) return sign | static_cast<uint16_t>(std::ldexp(x, 24));
  return sign | static_cast<uint16_t>((e - 1 + 15) << 10 |
                                      static_cast<uint32_t>(std::ldexp(m * 2 - 1, 10)));
}

std::vector<float> load(const std::string& name) {
  for (std::string dir : {std::string(ZCOLL_TEST_SOURCE_DIR) + "/../shared/data",
                          std::string(ZCOLL_TEST_SOURCE_DIR) + "/data"}) {
    std::ifstream f(dir + "/" + name, std::ios::binary | std::ios::ate);
    if (!f.good()) continue;
    std::vector<float> v(static_cast<size_t>(f.tellg()) / 4);
    f.seekg(0);
    f.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
    return v;
  }
  return {};
}

zcoll_report last(zcoll_comm* zc) {
  zcoll_report r = ZCOLL_REPORT_INITIALIZER;
  zcoll_comm_last_report(zc, &r);
  return r;
}

struct Setup {
  MPI_Comm comm;
  int rank, size;
  bool bf;          // bfloat16 (else float16)
  MPI_Datatype dt;  // zcoll's datatype
  const char* file;
  std::vector<float> data;
};

// Rank p's input: n values of the file from p's own offset, as 16 bits.
std::vector<uint16_t> input(const Setup& s, int p, size_t n) {
  std::vector<uint16_t> x(n);
  const size_t span = s.data.size() - n;
  const size_t off = (static_cast<size_t>(p) * 7919 * 131 + 17) % (span ? span : 1);
  for (size_t i = 0; i < n; ++i) x[i] = to16(s.data[off + i], s.bf);
  return x;
}

double apply(MPI_Op op, double a, double b) {
  if (op == MPI_SUM) return a + b;
  if (std::isnan(a) || std::isnan(b)) return NAN;
  return op == MPI_MAX ? (a > b ? a : b) : (a < b ? a : b);
}

// Check y (n values, global offset first) of a reduction of every rank's input.
void check_reduction(const Setup& s, const std::vector<std::vector<uint16_t>>& in, MPI_Op op,
                     bool avg, const uint16_t* y, size_t first, size_t n, const zcoll_report& rep,
                     const std::string& what) {
  long bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = value16(in[0][first + i], s.bf), sabs = std::fabs(ref);
    for (int p = 1; p < s.size; ++p) {
      const double x = value16(in[p][first + i], s.bf);
      ref = apply(op, ref, x);
      sabs += std::fabs(x);
    }
    if (avg) ref /= s.size, sabs /= s.size;
    const double v = value16(y[i], s.bf);
    bool ok;
    if (!std::isfinite(ref)) {
      ok = std::isnan(ref) ? std::isnan(v) : v == ref;
    } else {
      // the reported bound (exact arithmetic + the 16-bit rounding) plus the
      // float32 arithmetic's rounding, (N+1) u sum|x| (zcoll_mpi.h)
      const double slack = op == MPI_SUM ? (s.size + 1) * 0x1p-24 * sabs : 0;
      const double err = std::fabs(v - ref);
      ok = err <= rep.error_bound + slack || (std::isinf(v) && std::isinf(rep.error_bound));
      worst = err > worst ? err : worst;
    }
    if (!ok && ++bad <= 3)
      EXPECT(false, "%s: value %zu: got %.9g, exact %.9g, bound %.6g", what.c_str(), first + i, v,
             ref, rep.error_bound);
  }
  EXPECT(bad == 0, "%s: %ld values outside the bound", what.c_str(), bad);
  EXPECT(rep.status == ZCOLL_SUCCESS, "%s: report status %d", what.c_str(), rep.status);
}

// Data movement: within the reported bound of the original 16-bit values (exact in
// modes mpi and raw).
void check_moved(const Setup& s, const uint16_t* want, const uint16_t* y, size_t n,
                 const zcoll_report& rep, zcoll_mode mode, const std::string& what) {
  long bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const double a = value16(want[i], s.bf), b = value16(y[i], s.bf);
    const bool exact = mode == ZCOLL_MODE_MPI || mode == ZCOLL_MODE_RAW || !std::isfinite(a);
    const bool ok = exact ? want[i] == y[i] : std::fabs(a - b) <= rep.error_bound;
    if (!ok && ++bad <= 3)
      EXPECT(false, "%s: value %zu: got %.9g, sent %.9g, bound %.6g", what.c_str(), i, b, a,
             rep.error_bound);
  }
  EXPECT(bad == 0, "%s: %ld values wrong", what.c_str(), bad);
}

std::string label(const Setup& s, const char* coll, zcoll_mode m, zcoll_algorithm a, MPI_Op op,
                  const char* extra) {
  char b[256];
  std::snprintf(b, sizeof b, "%s %s %s mode=%s algo=%s op=%s%s N=%d", s.file, s.bf ? "bf16" : "f16",
                coll, zcoll_mode_name(m), zcoll_algorithm_name(a),
                op == MPI_SUM   ? "SUM"
                : op == MPI_MAX ? "MAX"
                                : "MIN",
                extra, s.size);
  return b;
}

uint64_t hash_bytes(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

const zcoll_mode kModes[] = {ZCOLL_MODE_MPI, ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC,
                             ZCOLL_MODE_HOM};

// Every algorithm of coll (the table) in every mode.
template <typename Body>
void each_algorithm(zcoll_comm* zc, zcoll_collective coll, Body body) {
  zcoll_algorithm algos[16];
  const int na = zcoll_algorithms_of(coll, algos, 16);
  for (zcoll_mode m : kModes)
    for (int i = 0; i < (m == ZCOLL_MODE_MPI ? 1 : na); ++i) {
      zcoll_comm_set_mode(zc, m);
      zcoll_comm_set_algorithm(zc, coll, m == ZCOLL_MODE_MPI ? ZCOLL_ALGO_AUTO : algos[i]);
      body(m, m == ZCOLL_MODE_MPI ? ZCOLL_ALGO_NATIVE : algos[i]);
    }
  zcoll_comm_set_algorithm(zc, coll, ZCOLL_ALGO_AUTO);
  zcoll_comm_set_mode(zc, ZCOLL_MODE_DEFAULT);
}

// One file's inputs: every rank's n values (in) and N blocks of `block` values
// (blocks), and the output buffer.
struct FileData {
  size_t n = 12000;     // Allreduce, Reduce, Bcast
  size_t block = 3001;  // per-rank blocks
  std::vector<std::vector<uint16_t>> in, blocks;
  std::vector<uint16_t> y;
};

void file_reductions(const Setup& s, zcoll_comm* zc, FileData& d) {
  const int N = s.size, r = s.rank;
  const size_t n = d.n, block = d.block;
  const std::vector<std::vector<uint16_t>>&in = d.in, &blocks = d.blocks;
  std::vector<uint16_t>& y = d.y;

  // Allreduce: SUM, MAX, averaged SUM, in place; identical on every rank
  each_algorithm(zc, ZCOLL_COLL_ALLREDUCE, [&](zcoll_mode m, zcoll_algorithm a) {
    for (int v = 0; v < 4; ++v) {
      const MPI_Op op = v == 1 ? MPI_MAX : MPI_SUM;
      const bool avg = v == 2, ip = v == 3;
      zcoll_comm_set_average(zc, avg);
      std::copy(in[r].begin(), in[r].end(), y.begin());
      const zcoll_status st =
          zcoll_allreduce(zc, ip ? MPI_IN_PLACE : in[r].data(), y.data(), n, s.dt, op);
      const std::string what = label(s, "allreduce", m, a, op,
                                     avg  ? " avg"
                                     : ip ? " in-place"
                                          : "");
      EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
      const zcoll_report rep = last(zc);
      check_reduction(s, in, op, avg, y.data(), 0, n, rep, what);
      uint64_t h = hash_bytes(y.data(), n * 2), lo = h, hi = h;
      MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, s.comm);
      MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, s.comm);
      EXPECT(lo == hi, "%s: results differ across ranks", what.c_str());
      EXPECT(std::strstr(rep.reason, s.bf ? "bfloat16 via float32" : "float16 via float32"),
             "%s: reason '%s'", what.c_str(), rep.reason);
    }
    zcoll_comm_set_average(zc, 0);
  });

  // Reduce_scatter_block (and in place)
  each_algorithm(zc, ZCOLL_COLL_REDUCE_SCATTER, [&](zcoll_mode m, zcoll_algorithm a) {
    for (int ip = 0; ip < 2; ++ip) {
      std::copy(blocks[r].begin(), blocks[r].end(), y.begin());
      const zcoll_status st = zcoll_reduce_scatter_block(zc, ip ? MPI_IN_PLACE : blocks[r].data(),
                                                         y.data(), block, s.dt, MPI_SUM);
      const std::string what = label(s, "reduce_scatter", m, a, MPI_SUM, ip ? " in-place" : "");
      EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
      check_reduction(s, blocks, MPI_SUM, false, y.data(), block * r, block, last(zc), what);
    }
  });

  // Reduce at every root in turn (MAX at root 0)
  each_algorithm(zc, ZCOLL_COLL_REDUCE, [&](zcoll_mode m, zcoll_algorithm a) {
    const int root = (N - 1) / 2;
    for (MPI_Op op : {MPI_SUM, MPI_MIN}) {
      const zcoll_status st = zcoll_reduce(zc, in[r].data(), y.data(), n, s.dt, op, root);
      const std::string what = label(s, "reduce", m, a, op, "");
      EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
      if (r == root) check_reduction(s, in, op, false, y.data(), 0, n, last(zc), what);
    }
  });
}

void file_movement(const Setup& s, zcoll_comm* zc, FileData& d) {
  const int N = s.size, r = s.rank;
  const size_t n = d.n, block = d.block;
  const std::vector<std::vector<uint16_t>>&in = d.in, &blocks = d.blocks;
  std::vector<uint16_t>& y = d.y;

  // Allgather (and in place), Gather, Scatter, Bcast
  each_algorithm(zc, ZCOLL_COLL_ALLGATHER, [&](zcoll_mode m, zcoll_algorithm a) {
    for (int ip = 0; ip < 2; ++ip) {
      std::copy(in[r].begin(), in[r].begin() + block, y.begin() + block * r);
      const zcoll_status st =
          zcoll_allgather(zc, ip ? MPI_IN_PLACE : in[r].data(), y.data(), block, s.dt);
      const std::string what = label(s, "allgather", m, a, MPI_SUM, ip ? " in-place" : "");
      EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
      for (int p = 0; p < N; ++p)
        check_moved(s, in[p].data(), y.data() + block * p, block, last(zc), m, what);
    }
  });
  each_algorithm(zc, ZCOLL_COLL_GATHER, [&](zcoll_mode m, zcoll_algorithm a) {
    const int root = N - 1;
    const zcoll_status st = zcoll_gather(zc, in[r].data(), y.data(), block, s.dt, root);
    const std::string what = label(s, "gather", m, a, MPI_SUM, "");
    EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
    if (r == root)
      for (int p = 0; p < N; ++p)
        check_moved(s, in[p].data(), y.data() + block * p, block, last(zc), m, what);
  });
  each_algorithm(zc, ZCOLL_COLL_SCATTER, [&](zcoll_mode m, zcoll_algorithm a) {
    const int root = 0;
    const zcoll_status st = zcoll_scatter(zc, blocks[root].data(), y.data(), block, s.dt, root);
    const std::string what = label(s, "scatter", m, a, MPI_SUM, "");
    EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
    check_moved(s, blocks[root].data() + block * r, y.data(), block, last(zc), m, what);
  });
  each_algorithm(zc, ZCOLL_COLL_BCAST, [&](zcoll_mode m, zcoll_algorithm a) {
    const int root = N / 2;
    std::copy(in[root].begin(), in[root].end(), y.begin());
    if (r != root) std::fill(y.begin(), y.begin() + n, uint16_t{0});
    const zcoll_status st = zcoll_bcast(zc, y.data(), n, s.dt, root);
    const std::string what = label(s, "bcast", m, a, MPI_SUM, "");
    EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what.c_str(), zcoll_last_error());
    check_moved(s, in[root].data(), y.data(), n, last(zc), m, what);
  });
}

void run_file(const Setup& s, zcoll_comm* zc) {
  const int N = s.size;
  FileData d;
  d.in.resize(N);
  d.blocks.resize(N);
  for (int p = 0; p < N; ++p)
    d.in[p] = input(s, p, d.n), d.blocks[p] = input(s, p + 11, d.block * N);
  d.y.resize(d.n * N + d.block * N);
  file_reductions(s, zc, d);
  file_movement(s, zc, d);
}

// A user-defined op on the 16-bit datatype goes to MPI with the 16-bit values.
void bf16_sum_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const uint16_t*>(in);
  auto* b = static_cast<uint16_t*>(inout);
  for (int i = 0; i < *len; ++i)
    b[i] = to16(static_cast<float>(value16(a[i], true) + value16(b[i], true)), true);
}

void check_datatypes(MPI_Comm comm, zcoll_comm* zc, int N) {
  MPI_Datatype bf = MPI_DATATYPE_NULL, h = MPI_DATATYPE_NULL, again = MPI_DATATYPE_NULL, f = 0;
  EXPECT(zcoll_mpi_datatype(ZCOLL_BFLOAT16, &bf) == ZCOLL_SUCCESS, "%s", zcoll_last_error());
  EXPECT(zcoll_mpi_datatype(ZCOLL_FLOAT16, &h) == ZCOLL_SUCCESS, "%s", zcoll_last_error());
  EXPECT(zcoll_mpi_datatype(ZCOLL_BFLOAT16, &again) == ZCOLL_SUCCESS && again == bf,
         "the bfloat16 datatype changed between calls");
  EXPECT(zcoll_mpi_datatype(ZCOLL_FLOAT32, &f) == ZCOLL_SUCCESS && f == MPI_FLOAT, "float32");
  EXPECT(zcoll_mpi_datatype(static_cast<zcoll_dtype>(9), &f) == ZCOLL_ERR_INVALID_ARG, "dtype 9");
  int size = 0;
  MPI_Type_size(bf, &size);
  EXPECT(size == 2 && bf != h, "bfloat16 datatype of %d bytes", size);
  // plain MPI cannot sum it: an error, not an integer sum
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  uint16_t one[4] = {0x3F80, 0x3F80, 0x3F80, 0x3F80}, out[4] = {0, 0, 0, 0};
  EXPECT(MPI_Allreduce(one, out, 4, bf, MPI_SUM, dup) != MPI_SUCCESS,
         "MPI_SUM on the bfloat16 datatype succeeded in plain MPI");
  MPI_Comm_free(&dup);
  // a user-defined op through zcoll: MPI on the 16-bit values
  MPI_Op op;
  MPI_Op_create(bf16_sum_op, 1, &op);
  EXPECT(zcoll_allreduce(zc, one, out, 4, bf, op) == ZCOLL_SUCCESS, "%s", zcoll_last_error());
  EXPECT(value16(out[0], true) == N && last(zc).mode == ZCOLL_MODE_MPI, "user op: %g (mode %s)",
         value16(out[0], true), zcoll_mode_name(last(zc).mode));
  MPI_Op_free(&op);
  // float16 overflow: the sum of N >= 2 values of 40000 is Inf, and so is the bound
  if (N >= 2) {
    std::vector<uint16_t> big(4096, to16(40000.0f, false)), res(4096);
    for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_HOM}) {
      zcoll_comm_set_mode(zc, m);
      EXPECT(zcoll_allreduce(zc, big.data(), res.data(), big.size(), h, MPI_SUM) == ZCOLL_SUCCESS,
             "%s", zcoll_last_error());
      EXPECT(std::isinf(value16(res[0], false)) && std::isinf(last(zc).error_bound),
             "float16 overflow in %s: %g, bound %g", zcoll_mode_name(m), value16(res[0], false),
             last(zc).error_bound);
    }
    zcoll_comm_set_mode(zc, ZCOLL_MODE_DEFAULT);
  }
}

// ---- edges: NaN/Inf/-0.0, PROD, lengths 0/1/odd, mismatches, refused ops --------

// Rank p's value i for the edge cases (16 bits): noise around 1 for PROD, a
// signed spread otherwise; specials at the first positions when n >= 8.
uint16_t edge_value(int p, int N, size_t i, size_t n, MPI_Op op, bool bf) {
  if (n >= 8) {
    switch (i) {
      case 0:
        if (p == 0) return bf ? 0x7FC0 : 0x7E00;
        break;                              // NaN
      case 1: return bf ? 0x7F80 : 0x7C00;  // +Inf everywhere
      case 2:                               // +Inf + -Inf
        if (p == 0) return bf ? 0x7F80 : 0x7C00;
        if (p == N - 1) return bf ? 0xFF80 : 0xFC00;
        break;
      case 3: return 0x8000;                    // -0.0 everywhere
      case 4: return p == 0 ? 0x0000 : 0x8000;  // +0.0 and -0.0
      case 5: return 0x0001;                    // smallest subnormal
      default: break;
    }
  }
  const double x = std::sin(0.37 * static_cast<double>(i) + 1.3 * p);
  return to16(static_cast<float>(op == MPI_PROD ? 1 + x / 64 : 100 * x), bf);
}

double apply_any(MPI_Op op, double a, double b) {
  if (op == MPI_PROD) return a * b;
  return apply(op, a, b);
}

// The values of one edge case's Allreduce that are wrong: outside the reported
// bound plus float32's own arithmetic, a NaN not propagated (MPI may leave NaN
// in MAX/MIN unspecified), an infinity changed, or (exact modes) the sign of a
// zero sum of -0.0 lost. The first three are reported.
long wrong_edge_values(const std::vector<std::vector<uint16_t>>& in, const std::vector<uint16_t>& y,
                       MPI_Op op, zcoll_mode m, double bound, bool bf, const char* what) {
  const int N = static_cast<int>(in.size());
  const size_t n = y.size() - 1;
  long bad = 0;
  for (size_t i = 0; i < n; ++i) {
    double ref = value16(in[0][i], bf), sabs = std::fabs(ref);
    for (int p = 1; p < N; ++p) {
      const double x = value16(in[p][i], bf);
      ref = apply_any(op, ref, x);
      sabs += std::fabs(x);
    }
    const double v = value16(y[i], bf);
    bool ok;
    if (std::isnan(ref)) {
      // MPI leaves NaN in MAX/MIN unspecified; zcoll propagates it
      ok = std::isnan(v) || (m == ZCOLL_MODE_MPI && op != MPI_SUM && op != MPI_PROD);
    } else if (std::isinf(ref)) {
      ok = v == ref;
    } else {
      // the reported bound plus float32's own arithmetic (zcoll_mpi.h)
      const double slack = op == MPI_SUM    ? (N + 1) * 0x1p-24 * sabs
                           : op == MPI_PROD ? (N + 1) * 0x1p-24 * std::fabs(ref)
                                            : 0;
      ok = std::fabs(v - ref) <= bound + slack;
      // exact modes keep the sign of a zero sum of -0.0
      if (ok && i == 3 && n >= 8 && op == MPI_SUM && (m == ZCOLL_MODE_MPI || m == ZCOLL_MODE_RAW))
        ok = y[i] == 0x8000;
    }
    if (!ok && ++bad <= 3)
      EXPECT(false, "%s: value %zu: got %.9g (0x%04x), exact %.9g, bound %.6g", what, i, v, y[i],
             ref, bound);
  }
  return bad;
}

// Allreduce of the edge values at length n with op number o (in place: ip).
void edges_allreduce(zcoll_comm* zc, int N, int r, bool bf, MPI_Datatype dt, zcoll_mode m, size_t n,
                     int o, int ip) {
  const char* tn = bf ? "bf16" : "f16";
  const MPI_Op ops[] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
  const char* op_names[] = {"SUM", "MAX", "MIN", "PROD"};
  const MPI_Op op = ops[o];
  zcoll_comm_set_mode(zc, m);
  std::vector<std::vector<uint16_t>> in(N, std::vector<uint16_t>(n));
  for (int p = 0; p < N; ++p)
    for (size_t i = 0; i < n; ++i) in[p][i] = edge_value(p, N, i, n, op, bf);
  std::vector<uint16_t> y(n + 1, 0x1234);  // one guard value past the end
  if (ip) std::copy(in[r].begin(), in[r].end(), y.begin());
  char what[160];
  std::snprintf(what, sizeof what, "edges %s allreduce mode=%s op=%s n=%zu%s N=%d", tn,
                zcoll_mode_name(m), op_names[o], n, ip ? " in-place" : "", N);
  const zcoll_status st =
      zcoll_allreduce(zc, ip ? MPI_IN_PLACE : in[r].data(), y.data(), n, dt, op);
  EXPECT(st == ZCOLL_SUCCESS, "%s: %s", what, zcoll_last_error());
  EXPECT(y[n] == 0x1234, "%s: wrote past the end", what);
  const zcoll_report rep = last(zc);
  const long bad = wrong_edge_values(in, y, op, m, rep.error_bound, bf, what);
  EXPECT(bad == 0, "%s: %ld values wrong", what, bad);
  EXPECT(rep.status == ZCOLL_SUCCESS && rep.error_bound >= 0, "%s: report", what);
}

// Reduce_scatter_block, Allgather, Bcast at lengths 0, 1 and 7 (default algorithms)
void edges_other_collectives(MPI_Comm comm, zcoll_comm* zc, int N, int r, bool bf,
                             MPI_Datatype dt) {
  const char* tn = bf ? "bf16" : "f16";
  for (zcoll_mode m : kModes)
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}}) {
      zcoll_comm_set_mode(zc, m);
      char what[160];
      std::snprintf(what, sizeof what, "edges %s mode=%s n=%zu N=%d", tn, zcoll_mode_name(m), n, N);
      std::vector<std::vector<uint16_t>> in(N, std::vector<uint16_t>(n * N));
      for (int p = 0; p < N; ++p)
        for (size_t i = 0; i < n * N; ++i) in[p][i] = edge_value(p, N, i + 8, n * N, MPI_SUM, bf);
      std::vector<uint16_t> y(n * N + 1, 0x1234);
      EXPECT(
          zcoll_reduce_scatter_block(zc, in[r].data(), y.data(), n, dt, MPI_SUM) == ZCOLL_SUCCESS,
          "%s reduce_scatter: %s", what, zcoll_last_error());
      check_reduction(Setup{comm, r, N, bf, dt, "", {}}, in, MPI_SUM, false, y.data(), n * r, n,
                      last(zc), std::string(what) + " reduce_scatter");
      EXPECT(y[n] == 0x1234, "%s reduce_scatter: wrote past the end", what);
      y.assign(n * N + 1, 0x1234);
      EXPECT(zcoll_allgather(zc, in[r].data(), y.data(), n, dt) == ZCOLL_SUCCESS,
             "%s allgather: %s", what, zcoll_last_error());
      for (int p = 0; p < N; ++p)
        check_moved(Setup{comm, r, N, bf, dt, "", {}}, in[p].data(), y.data() + n * p, n, last(zc),
                    m, std::string(what) + " allgather");
      EXPECT(y[n * N] == 0x1234, "%s allgather: wrote past the end", what);
      const int root = N - 1;
      y.assign(n + 1, 0x1234);
      if (r == root) std::copy(in[root].begin(), in[root].begin() + n, y.begin());
      EXPECT(zcoll_bcast(zc, y.data(), n, dt, root) == ZCOLL_SUCCESS, "%s bcast: %s", what,
             zcoll_last_error());
      check_moved(Setup{comm, r, N, bf, dt, "", {}}, in[root].data(), y.data(), n, last(zc), m,
                  std::string(what) + " bcast");
      EXPECT(y[n] == 0x1234, "%s bcast: wrote past the end", what);
    }
}

// Bcast leaves the root's buffer bit for bit (a signaling NaN, -0.0); the
// others get a NaN and a zero
void edges_bcast_root(zcoll_comm* zc, int r, bool bf, MPI_Datatype dt) {
  const char* tn = bf ? "bf16" : "f16";
  for (zcoll_mode m : kModes) {
    zcoll_comm_set_mode(zc, m);
    const uint16_t snan = bf ? 0x7F81 : 0x7C01;
    std::vector<uint16_t> b(4096, bf ? 0x3F80 : 0x3C00);
    if (r == 0) b[0] = snan, b[1] = 0x8000;
    EXPECT(zcoll_bcast(zc, b.data(), b.size(), dt, 0) == ZCOLL_SUCCESS, "%s bcast snan: %s", tn,
           zcoll_last_error());
    if (r == 0)
      EXPECT(b[0] == snan && b[1] == 0x8000, "%s bcast mode %s: root's buffer changed (0x%04x)", tn,
             zcoll_mode_name(m), b[0]);
    else
      EXPECT(std::isnan(value16(b[0], bf)) && value16(b[1], bf) == 0,
             "%s bcast mode %s: 0x%04x 0x%04x", tn, zcoll_mode_name(m), b[0], b[1]);
  }
  zcoll_comm_set_mode(zc, ZCOLL_MODE_DEFAULT);
}

// MPI's other predefined ops are refused on every rank, before any MPI call
void edges_refused_ops(zcoll_comm* zc, bool bf, MPI_Datatype dt) {
  const char* tn = bf ? "bf16" : "f16";
  std::vector<uint16_t> x(64, 0x3F80), y(64, 0);
  for (MPI_Op op : {MPI_BAND, MPI_LOR, MPI_MAXLOC}) {
    const zcoll_status st = zcoll_allreduce(zc, x.data(), y.data(), x.size(), dt, op);
    EXPECT(st == ZCOLL_ERR_UNSUPPORTED, "%s: a bitwise/logical/loc op gave %d, not UNSUPPORTED", tn,
           st);
    EXPECT(y[0] == 0, "%s: refused op wrote the result", tn);
  }
}

// A datatype that differs across ranks: ZCOLL_ERR_MISMATCH on every rank in
// the zcoll modes (float16 vs bfloat16, and 16-bit vs MPI_FLOAT)
void edges_mismatched_types(MPI_Comm comm, zcoll_comm* zc, int N, int r, bool bf, MPI_Datatype dt) {
  const char* tn = bf ? "bf16" : "f16";
  MPI_Datatype other16 = MPI_DATATYPE_NULL;
  zcoll_mpi_datatype(bf ? ZCOLL_FLOAT16 : ZCOLL_BFLOAT16, &other16);
  for (zcoll_mode m : {ZCOLL_MODE_RAW, ZCOLL_MODE_CPR_P2P, ZCOLL_MODE_DOC, ZCOLL_MODE_HOM})
    for (int against_f32 = 0; against_f32 < 2; ++against_f32) {
      zcoll_comm_set_mode(zc, m);
      const size_t n = 4096;
      std::vector<float> xf(n, 1.0f), yf(n, 0.0f);  // big enough for either type
      std::vector<uint16_t> x(n, bf ? 0x3F80 : 0x3C00), y(n, 0);
      const bool odd_one = r == N - 1;
      MPI_Datatype mine = !odd_one ? dt : against_f32 ? MPI_FLOAT : other16;
      const zcoll_status st = mine == MPI_FLOAT
                                  ? zcoll_allreduce(zc, xf.data(), yf.data(), n, mine, MPI_SUM)
                                  : zcoll_allreduce(zc, x.data(), y.data(), n, mine, MPI_SUM);
      int ok = st == ZCOLL_ERR_MISMATCH, all = 0;
      MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
      EXPECT(ok, "%s vs %s in mode %s: status %d, not MISMATCH (%s)", tn,
             against_f32 ? "float32" : "the other 16-bit type", zcoll_mode_name(m), st,
             zcoll_last_error());
      EXPECT(all, "%s mismatch in mode %s: not refused on every rank", tn, zcoll_mode_name(m));
    }
  zcoll_comm_set_mode(zc, ZCOLL_MODE_DEFAULT);
  // the handle still works after the refusals
  std::vector<uint16_t> x(512, bf ? 0x3F80 : 0x3C00), y(512, 0);
  EXPECT(zcoll_allreduce(zc, x.data(), y.data(), x.size(), dt, MPI_SUM) == ZCOLL_SUCCESS &&
             std::fabs(value16(y[7], bf) - N) <= last(zc).error_bound,
         "%s: allreduce after the mismatches: %g (%s)", tn, value16(y[7], bf), zcoll_last_error());
}

void check_edges(MPI_Comm comm, zcoll_comm* zc, int N, int r, bool bf, MPI_Datatype dt) {
  for (zcoll_mode m : kModes)
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{1001}})
      for (int o = 0; o < 4; ++o)
        for (int ip = 0; ip < 2; ++ip) edges_allreduce(zc, N, r, bf, dt, m, n, o, ip);
  edges_other_collectives(comm, zc, N, r, bf, dt);
  edges_bcast_root(zc, r, bf, dt);
  edges_refused_ops(zc, bf, dt);
  if (N >= 2) edges_mismatched_types(comm, zc, N, r, bf, dt);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const double t0 = MPI_Wtime();
  bool only_bf = argc > 1 && std::strcmp(argv[1], "bf16") == 0;
  bool only_f16 = argc > 1 && std::strcmp(argv[1], "f16") == 0;
  // quick: one data file (the smallest), for the larger rank counts in CI
  const bool quick = argc > 1 && std::strcmp(argv[1], "quick") == 0;
  zcoll_comm_config cfg = ZCOLL_COMM_CONFIG_INITIALIZER;
  cfg.min_bytes = 0;
  cfg.threads = 1;
  cfg.chunk_size = 1024;
  cfg.pipeline_values = 2048;
  cfg.eb_mode = ZCOLL_EB_REL;
  cfg.error_bound = 1e-3;
  zcoll_comm* zc = nullptr;
  EXPECT(zcoll_comm_create(MPI_COMM_WORLD, &cfg, &zc) == ZCOLL_SUCCESS, "%s", zcoll_last_error());
  check_datatypes(MPI_COMM_WORLD, zc, g_size);
  for (bool bf : {true, false}) {
    MPI_Datatype dt;
    zcoll_mpi_datatype(bf ? ZCOLL_BFLOAT16 : ZCOLL_FLOAT16, &dt);
    check_edges(MPI_COMM_WORLD, zc, g_size, g_rank, bf, dt);
  }
  const char* files[] = {"proj_egm96-geoid_721x1440.f32", "ncarg_rect3d-t_17x96x192.f32",
                         "ferret_fnoc-uwnd_132x73x144.f32", "hst-acs_j8bt06nyq-sci_1024x1024.f32"};
  const int nfiles = quick ? 1 : 4;
  if (quick) files[0] = "ncarg_rect3d-t_17x96x192.f32";
  int loaded = 0;
  for (int fi = 0; fi < nfiles; ++fi) {
    const char* file = files[fi];
    Setup s;
    s.comm = MPI_COMM_WORLD;
    s.rank = g_rank;
    s.size = g_size;
    s.file = file;
    s.data = load(file);
    if (s.data.empty()) continue;
    ++loaded;
    for (bool bf : {true, false}) {
      if ((only_bf && !bf) || (only_f16 && bf)) continue;
      s.bf = bf;
      zcoll_mpi_datatype(bf ? ZCOLL_BFLOAT16 : ZCOLL_FLOAT16, &s.dt);
      run_file(s, zc);
    }
  }
  EXPECT(loaded == nfiles, "found %d of the %d data files", loaded, nfiles);
  zcoll_comm_free(zc);
  long mine[2] = {zcoll_testing::g_checks.load(), zcoll_testing::g_failures.load()},
       all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  const std::string what = "zcoll 16-bit collectives (" + std::to_string(g_size) + " ranks" +
                           (argc > 1 ? std::string(", ") + argv[1] : std::string()) + ")";
  int rc = 0;
  if (g_rank == 0)
    rc = zcoll_testing::finish(what.c_str(), all[0], all[1], MPI_Wtime() - t0);
  else
    rc = all[0] > 0 && all[1] == 0 ? 0 : 1;
  MPI_Finalize();
  return rc;
}
