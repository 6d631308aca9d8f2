// device_seam_test.cc — the device seam of the collectives (coll/datapath/data_ops.h)
// checked on the CPU, where no GPU is needed: a DataOps whose "device
// memory" is host memory behind tagged pointers (bit 62 set: a non-canonical
// address, so any host access the algorithms or dispatch make to a value or
// stream buffer outside the DataOps crashes at once). Its operations untag
// and run the CPU's, so every collective x mode x dtype must give the
// same bytes as the plain CPU path on the same handle settings.
// Run under mpiexec (CTest: 2 ranks, everything; 3 ranks, "small").
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "coll/control/calibrate.h"
#include "coll/control/comm.h"
#include "coll/datapath/primitives.h"
#include "zcoll_mpi.h"

namespace {

using namespace zcoll::coll;

constexpr uintptr_t kTag = uintptr_t{1} << 62;
template <typename P>
P* tag(P* p) {
  return p ? reinterpret_cast<P*>(reinterpret_cast<uintptr_t>(p) | kTag) : p;
}
template <typename P>
P* untag(P* p) {
  return reinterpret_cast<P*>(reinterpret_cast<uintptr_t>(p) & ~kTag);
}

// Workspace data slots: host buffers handed out tagged.
class TaggedSource final : public BufferSource {
 public:
  bool off = false;  // during run_native (CudaOps stages instead)
  uint8_t* get(int slot, bool data, size_t bytes) override {
    if (!data || off) return nullptr;
    auto& v = bufs_[slot];
    if (v.size() < bytes) v.assign(bytes + bytes / 8, 0);
    return tag(v.data());
  }

 private:
  std::vector<uint8_t> bufs_[Workspace::kCount];
};

// Transport: stages every message through its own host buffer as
// libzcoll_cuda_mpi's staging transport does (a send is copied out at isend, a
// receive lands in the destination only at wait), so an algorithm that read a
// received buffer before wait() would see stale bytes and fail the comparison.
class StagingUntagTransport final : public zcoll::transport::Transport {
 public:
  explicit StagingUntagTransport(zcoll::transport::Transport* in) : in_(in) {}
  int rank() const override { return in_->rank(); }
  int size() const override { return in_->size(); }
  zcoll_status isend(const void* b, size_t n, int p, int t, zcoll::transport::Req* r) override {
    bytes_sent += n;
    std::vector<uint8_t> copy(static_cast<const uint8_t*>(untag(b)),
                              static_cast<const uint8_t*>(untag(b)) + n);
    zcoll_status s = in_->isend(copy.data(), n, p, t, r);
    if (s == ZCOLL_SUCCESS && *r >= 0) slot(*r) = {std::move(copy), nullptr};
    return s;
  }
  zcoll_status irecv(void* b, size_t n, int p, int t, zcoll::transport::Req* r) override {
    std::vector<uint8_t> stage(n + 1);
    zcoll_status s = in_->irecv(stage.data(), n, p, t, r);
    if (s == ZCOLL_SUCCESS && *r >= 0) slot(*r) = {std::move(stage), untag(b)};
    return s;
  }
  zcoll_status wait(zcoll::transport::Req r, size_t* b) override {
    size_t got = 0;
    zcoll_status s = in_->wait(r, &got);
    if (b) *b = got;
    if (r >= 0 && static_cast<size_t>(r) < pend_.size()) {
      Pending& p = pend_[r];
      if (s == ZCOLL_SUCCESS && p.dst && got) std::memcpy(p.dst, p.buf.data(), got);
      p = {};
    }
    return s;
  }
  zcoll_status test(zcoll::transport::Req r, bool* d) override { return in_->test(r, d); }
  void progress() override { in_->progress(); }
  zcoll_status allreduce_max(double* v, int n) override { return in_->allreduce_max(v, n); }
  zcoll_status allgather_u64(const uint64_t* m, int k, uint64_t* a) override {
    return in_->allgather_u64(m, k, a);
  }

 private:
  struct Pending {
    std::vector<uint8_t> buf;
    void* dst = nullptr;
  };
  Pending& slot(zcoll::transport::Req r) {
    if (pend_.size() <= static_cast<size_t>(r)) pend_.resize(r + 1);
    return pend_[r];
  }
  zcoll::transport::Transport* in_;
  std::vector<Pending> pend_;
};

int g_calls = 0;  // DataOps calls made (the seam must be used)

// Each operation: the CPU's implementation on untagged pointers.
class TaggedOps final : public DataOps {
 public:
  TaggedSource* source = nullptr;
  zcoll_status compress(Ctx& c, const void* s, size_t n, uint8_t* d, size_t cap,
                        size_t* sz) override {
    ++g_calls;
    return cpu().compress(c, untag(s), n, untag(d), cap, sz);
  }
  zcoll_status decompress(Ctx& c, const uint8_t* s, size_t sz, void* d, size_t n,
                          bool acc) override {
    ++g_calls;
    return cpu().decompress(c, untag(s), sz, untag(d), n, acc);
  }
  zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t as, const uint8_t* b, size_t bs,
                       uint8_t* out, size_t cap, size_t* os) override {
    ++g_calls;
    return cpu().hom_add(c, untag(a), as, untag(b), bs, untag(out), cap, os);
  }
  zcoll_status set_divisor(Ctx& c, uint8_t* s, size_t sz, uint32_t d) override {
    ++g_calls;
    return cpu().set_divisor(c, untag(s), sz, d);
  }
  zcoll_status stream_size(Ctx& c, const uint8_t* s, size_t b, size_t n, size_t* sz) override {
    ++g_calls;
    return cpu().stream_size(c, untag(s), b, n, sz);
  }
  zcoll_status reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi,
                              size_t n) override {
    ++g_calls;
    return cpu().reduce_ordered(c, untag(out), untag(lo), untag(hi), n);
  }
  zcoll_status scale(Ctx& c, void* d, size_t n, double div) override {
    ++g_calls;
    return cpu().scale(c, untag(d), n, div);
  }
  zcoll_status move_bytes(Ctx& c, void* d, const void* s, size_t b) override {
    ++g_calls;
    return cpu().move_bytes(c, untag(d), untag(s), b);
  }
  bool peek(void* h, const void* s, size_t b) override {
    ++g_calls;
    std::memcpy(h, untag(s), b);
    return true;
  }
  zcoll_status stats(Ctx& c, const void* data, size_t n, bool, double* mn, double* mx,
                     double* ma) override {
    ++g_calls;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, m = 0;
    for (size_t i = 0; i < n; ++i) {
      const double v = c.dtype == ZCOLL_FLOAT32 ? untag(static_cast<const float*>(data))[i]
                                                : untag(static_cast<const double*>(data))[i];
      if (!std::isfinite(v)) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      m = std::max(m, std::fabs(v));
    }
    *mn = lo;
    *mx = hi;
    *ma = m;
    return ZCOLL_SUCCESS;
  }
  double estimate_ratio(const void* d, size_t n, zcoll_dtype dt, double eb) override {
    ++g_calls;
    return cpu().estimate_ratio(untag(d), n, dt, eb);
  }
  zcoll_status run_native(zcoll_comm* zc, const Call& k, bool avg, zcoll_dtype dt) override {
    ++g_calls;
    Call h = k;
    if (h.sendbuf != MPI_IN_PLACE) h.sendbuf = untag(h.sendbuf);
    if (h.recvbuf != MPI_IN_PLACE) h.recvbuf = untag(h.recvbuf);
    source->off = true;
    zcoll_status s = cpu().run_native(zc, h, avg, dt);
    source->off = false;
    return s;
  }

 private:
  static DataOps& cpu() { return cpu_ops(); }
};

int g_rank = 0, g_size = 1, g_fail = 0;

template <typename T>
std::vector<T> field(int r, size_t n, bool prod) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = std::sin(0.003 * i + r);
    v[i] = static_cast<T>(prod ? 1 + 0.01 * x : 5 * x + r);
  }
  return v;
}

// One collective on plain host buffers and on tagged ones: same bytes out.
template <typename T>
void one(zcoll_comm* plain, zcoll_comm* dev, zcoll_collective coll, MPI_Op op, size_t n,
         bool in_place, const char* mode) {
  const int N = g_size, r = g_rank, root = N - 1;
  const bool prod = op == MPI_PROD;
  const MPI_Datatype dt = sizeof(T) == 4 ? MPI_FLOAT : MPI_DOUBLE;
  size_t in_n = n, out_n = n;
  if (coll == ZCOLL_COLL_REDUCE_SCATTER || coll == ZCOLL_COLL_SCATTER) in_n = N * n;
  if (coll == ZCOLL_COLL_ALLGATHER || coll == ZCOLL_COLL_GATHER) out_n = N * n;
  std::vector<T> in = field<T>(r, in_n, prod);
  std::vector<T> out[2];
  zcoll_status st[2];
  zcoll_report rep[2] = {ZCOLL_REPORT_INITIALIZER, ZCOLL_REPORT_INITIALIZER};
  for (int w = 0; w < 2; ++w) {
    zcoll_comm* zc = w ? dev : plain;
    std::vector<T> i2 = in, o(out_n + 1, T(-3));
    if (in_place) {
      if (coll == ZCOLL_COLL_ALLGATHER)
        std::copy(in.begin(), in.end(), o.begin() + r * n);
      else
        std::copy(in.begin(), in.end(), o.begin());
    }
    if (coll == ZCOLL_COLL_BCAST) o.assign(in.begin(), in.end()), o.push_back(T(-3));
    auto P = [&](auto* p) { return w ? tag(p) : p; };
    const void* sb = in_place ? MPI_IN_PLACE : P(i2.data());
    void* rb = P(o.data());
    switch (coll) {
      case ZCOLL_COLL_ALLREDUCE: st[w] = zcoll_allreduce(zc, sb, rb, n, dt, op); break;
      case ZCOLL_COLL_REDUCE_SCATTER:
        st[w] = zcoll_reduce_scatter_block(zc, sb, rb, n, dt, op);
        break;
      case ZCOLL_COLL_ALLGATHER: st[w] = zcoll_allgather(zc, sb, rb, n, dt); break;
      case ZCOLL_COLL_BCAST: st[w] = zcoll_bcast(zc, rb, n, dt, root); break;
      case ZCOLL_COLL_SCATTER: st[w] = zcoll_scatter(zc, P(i2.data()), rb, n, dt, root); break;
      case ZCOLL_COLL_REDUCE: st[w] = zcoll_reduce(zc, sb, rb, n, dt, op, root); break;
      case ZCOLL_COLL_GATHER: st[w] = zcoll_gather(zc, sb, rb, n, dt, root); break;
      default: st[w] = ZCOLL_ERR_INTERNAL;
    }
    out[w] = o;
    zcoll_comm_last_report(zc, &rep[w]);
  }
  // AUTO may pick differently on the two handles (its cost model probes the
  // machine); bytes are compared when both ran the same mode and algorithm
  const bool comparable = rep[0].mode == rep[1].mode && rep[0].algorithm == rep[1].algorithm;
  const bool same = st[0] == st[1] && (!comparable || std::memcmp(out[0].data(), out[1].data(),
                                                                  out[0].size() * sizeof(T)) == 0);
  if (!same || st[0] != ZCOLL_SUCCESS) {
    ++g_fail;
    std::fprintf(stderr,
                 "[rank %d] FAIL %s %s n=%zu %s%s: status %s / %s, bytes %s (ran %s/%s, %s/%s)\n",
                 g_rank, zcoll_collective_name(coll), mode, n, sizeof(T) == 4 ? "f32" : "f64",
                 in_place ? " in place" : "", zcoll_status_string(st[0]),
                 zcoll_status_string(st[1]), same ? "same" : "DIFFER", zcoll_mode_name(rep[0].mode),
                 zcoll_algorithm_name(rep[0].algorithm), zcoll_mode_name(rep[1].mode),
                 zcoll_algorithm_name(rep[1].algorithm));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  zcoll_comm_config cfg;
  zcoll_comm_config_init(&cfg);
  cfg.min_bytes = 0;
  zcoll_comm *plain = nullptr, *dev = nullptr;
  if (zcoll_comm_create(MPI_COMM_WORLD, &cfg, &plain) ||
      zcoll_comm_create(MPI_COMM_WORLD, &cfg, &dev)) {
    std::fprintf(stderr, "create failed\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  auto source = std::make_unique<TaggedSource>();
  TaggedOps ops;
  ops.source = source.get();
  dev->ws.set_source(std::move(source));
  StagingUntagTransport tp(dev->tp.get());
  DeviceBackend backend;
  backend.ops = &ops;
  backend.tp = &tp;
  dev->device = &backend;
  // "small" (odd rank counts oversubscribed in CI are slow): the compressed
  // modes and the fallback at two counts
  const bool small = argc > 1 && std::strcmp(argv[1], "small") == 0;
  const std::vector<const char*> modes =
      small ? std::vector<const char*>{"mpi", "cpr_p2p", "doc", "hom"}
            : std::vector<const char*>{"mpi", "raw", "cpr_p2p", "doc", "hom", "auto"};
  const std::vector<size_t> counts = small ? std::vector<size_t>{333, 20001}
                                           : std::vector<size_t>{0, 1, 333, 20001};
  for (zcoll_comm* zc : {plain, dev}) zcoll_comm_set_error_bound(zc, ZCOLL_EB_REL, 1e-3);
  for (const char* m : modes) {
    zcoll_mode mode;
    zcoll_mode_from_name(m, &mode);
    for (zcoll_comm* zc : {plain, dev}) zcoll_comm_set_mode(zc, mode);
    for (size_t n : counts) {
      for (zcoll_algorithm a : {ZCOLL_ALGO_RING, ZCOLL_ALGO_RECURSIVE_DOUBLING}) {
        for (zcoll_comm* zc : {plain, dev}) zcoll_comm_set_algorithm(zc, ZCOLL_COLL_ALLREDUCE, a);
        one<float>(plain, dev, ZCOLL_COLL_ALLREDUCE, MPI_SUM, n, false, m);
        one<double>(plain, dev, ZCOLL_COLL_ALLREDUCE, MPI_SUM, n, false, m);
        one<float>(plain, dev, ZCOLL_COLL_ALLREDUCE, MPI_MAX, n, false, m);
        one<double>(plain, dev, ZCOLL_COLL_ALLREDUCE, MPI_PROD, n, true, m);
      }
      for (auto coll : {ZCOLL_COLL_REDUCE_SCATTER, ZCOLL_COLL_ALLGATHER, ZCOLL_COLL_BCAST,
                        ZCOLL_COLL_SCATTER, ZCOLL_COLL_REDUCE, ZCOLL_COLL_GATHER}) {
        one<float>(plain, dev, coll, MPI_SUM, n, false, m);
        one<double>(plain, dev, coll, MPI_SUM, n, false, m);
      }
      one<float>(plain, dev, ZCOLL_COLL_ALLGATHER, MPI_SUM, n, true, m);
    }
  }
  for (zcoll_comm* zc : {plain, dev}) zcoll_comm_set_average(zc, 1);
  one<float>(plain, dev, ZCOLL_COLL_ALLREDUCE, MPI_SUM, 5000, false, "average");
  dev->device = nullptr;
  zcoll_comm_free(plain);
  zcoll_comm_free(dev);
  int f = g_fail, all = 0, calls = g_calls, min_calls = 0;
  MPI_Allreduce(&f, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&calls, &min_calls, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("device seam: %d ranks, %d failures, >= %d device-op calls per rank\n", g_size, all,
                min_calls);
  MPI_Finalize();
  return all || min_calls == 0 ? 1 : 0;
}
