// sim_cost.cc — the SMPI simulation hooks (compiled only with ZCOLL_WITH_SMPI;
// see sim_cost.h and docs/scale.md).
#include "coll/datapath/sim_cost.h"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <strings.h>
#include <vector>

#include "coll/datapath/context.h"
#include "coll/datapath/data_ops.h"
#include "core/error.h"
#include "core/config.h"
#include "zcoll.h"

namespace zcoll::coll::sim {

namespace {

// A curve over log2(terms), piecewise linear, clamped at both ends.
struct Curve {
  std::map<int, double> pts;
  double at(int terms) const {
    if (pts.empty()) return 0;
    if (terms <= pts.begin()->first) return pts.begin()->second;
    if (terms >= pts.rbegin()->first) return pts.rbegin()->second;
    auto hi = pts.lower_bound(terms);
    if (hi->first == terms) return hi->second;
    auto lo = std::prev(hi);
    const double x0 = std::log2(lo->first), x1 = std::log2(hi->first), x = std::log2(terms);
    return lo->second + (hi->second - lo->second) * (x - x0) / (x1 - x0);
  }
};

const char* kKindNames[kKinds] = {"compress", "decompress", "accumulate",
                                  "hom_add",  "reduce",     "copy"};

struct Profile {
  int mode = 0;                                   // 0 off, 1 charge, 2 model
  std::map<int, std::array<Curve, kKinds>> tput;  // threads -> kind -> GB/s(terms)
  Curve ratio;                                    // terms -> compression ratio
};

[[noreturn]] void die(const std::string& msg) {
  std::fprintf(stderr, "zcoll sim: %s\n", msg.c_str());
  std::abort();
}

const Profile& profile() {
  static Profile p = [] {
    Profile q;
    const char* m = "off";
    if (config::get_choice(config::kSimCodec, &m) != ZCOLL_SUCCESS) die(zcoll_last_error());
    const std::string mode = m;
    if (strcasecmp(m, "off") == 0) return q;
    q.mode = strcasecmp(m, "charge") == 0 ? 1 : 2;
    const char* path = nullptr;
    config::get_path(config::kSimProfile, &path);
    if (!path) die("ZCOLL_SIM_CODEC=" + mode + " needs ZCOLL_SIM_PROFILE");
    std::ifstream f(path);
    if (!f) die(std::string("cannot read ZCOLL_SIM_PROFILE ") + path);
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream ss(line);
      std::string key;
      if (!(ss >> key) || key[0] == '#') continue;
      if (key == "tput") {
        int threads = 0, terms = 0;
        std::string kind;
        double gbps = 0;
        if (!(ss >> threads >> kind >> terms >> gbps) || threads < 1 || terms < 1 || !(gbps > 0))
          die("bad profile line: " + line);
        int k = -1;
        for (int i = 0; i < kKinds; ++i)
          if (kind == kKindNames[i]) k = i;
        if (k < 0) die("unknown kind in profile line: " + line);
        q.tput[threads][k].pts[terms] = gbps;
      } else if (key == "ratio") {
        int terms = 0;
        double r = 0;
        if (!(ss >> terms >> r) || terms < 1 || !(r > 0)) die("bad profile line: " + line);
        q.ratio.pts[terms] = r;
      }
    }
    if (q.tput.empty()) die(std::string("no throughputs in ") + path);
    for (auto& [t, kinds] : q.tput)
      for (int i = 0; i < kKinds; ++i)
        if (kinds[i].pts.empty())
          die("profile " + std::string(path) + ": no " + kKindNames[i] + " throughput for " +
              std::to_string(t) + " threads");
    if (q.mode == 2 && q.ratio.pts.empty()) die(std::string("no ratios in ") + path);
    return q;
  }();
  return p;
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::vector<std::array<double, kKinds>>& totals() {
  static std::vector<std::array<double, kKinds>> t;
  return t;
}

std::array<double, kKinds>& my_totals() {
  auto& t = totals();
  const size_t r = static_cast<size_t>(world_rank());
  if (t.size() <= r) t.resize(r + 1, std::array<double, kKinds>{});
  return t[r];
}

}  // namespace

bool model() { return profile().mode == 2; }
bool charging() { return profile().mode >= 1; }

void charge(const Ctx& c, Kind k, size_t bytes) {
  const Profile& p = profile();
  if (p.mode == 0 || bytes == 0) return;
  // the entry for the largest profiled thread count <= the call's threads
  const int want = std::max(1, c.threads);
  auto it = p.tput.upper_bound(want);
  if (it != p.tput.begin()) --it;
  const double gbps = it->second[k].at(std::max(1, c.piece_terms));
  const double s = static_cast<double>(bytes) / (gbps * 1e9);
  my_totals()[k] += s;
  smpi_execute_benched(s);
}

size_t stream_size(const Ctx& c, size_t n, int terms) {
  const double r = profile().ratio.at(std::max(1, terms));
  const size_t raw = n * c.vsize;
  size_t sz = static_cast<size_t>(std::ceil(static_cast<double>(raw) / r));
  sz = std::max(sz, zcoll_header_size(
                        n, c.params.chunk_size ? c.params.chunk_size : ZCOLL_DEFAULT_CHUNK_SIZE));
  sz = (sz + 7) / 8 * 8;
  return std::min(sz, zcoll_compress_bound(n, c.dtype));
}

const double* charged_seconds() { return my_totals().data(); }
void reset_charged() { my_totals() = std::array<double, kKinds>{}; }

namespace {
// Data slots of at least 64 KiB in SMPI shared memory (model mode only).
class SharedBuffers final : public BufferSource {
 public:
  ~SharedBuffers() override {
    for (int i = 0; i < kSlots; ++i)
      if (p_[i]) SMPI_SHARED_FREE(p_[i]);
  }
  uint8_t* get(int slot, bool data, size_t bytes) override {
    if (!data || bytes < 65536) return nullptr;
    if (slot < 0 || slot >= kSlots) die("shared buffer slot out of range");
    if (n_[slot] < bytes) {
      if (p_[slot]) SMPI_SHARED_FREE(p_[slot]);
      n_[slot] = bytes + bytes / 8;
      p_[slot] = SMPI_SHARED_MALLOC(n_[slot]);
      if (!p_[slot]) die("SMPI_SHARED_MALLOC failed");
    }
    return static_cast<uint8_t*>(p_[slot]);
  }

 private:
  static constexpr int kSlots = 32;
  void* p_[kSlots] = {};
  size_t n_[kSlots] = {};
};
}  // namespace

std::unique_ptr<BufferSource> make_buffer_source() {
  if (!model()) return nullptr;
  return std::make_unique<SharedBuffers>();
}

namespace {
// The simulation's DataOps: the measured cost of each step is charged around
// the CPU's work (charge), or instead of it (model: the data is never touched,
// streams are placeholders sized by the measured ratio of a sum of
// c.piece_terms inputs, Ctx::describe_piece).
class SimOps final : public DataOps {
 public:
  zcoll_status compress(Ctx& c, const void* src, size_t n, uint8_t* dst, size_t cap,
                        size_t* size) override {
    charge(c, kCompress, n * c.vsize);
    if (!model()) return cpu().compress(c, src, n, dst, cap, size);
    *size = sim::stream_size(c, n, c.piece_terms);
    return ZCOLL_SUCCESS;
  }
  zcoll_status decompress(Ctx& c, const uint8_t* src, size_t size, void* dst, size_t n,
                          bool accumulate) override {
    charge(c, accumulate ? kAccumulate : kDecompress, n * c.vsize);
    return model() ? ZCOLL_SUCCESS : cpu().decompress(c, src, size, dst, n, accumulate);
  }
  zcoll_status hom_add(Ctx& c, const uint8_t* a, size_t a_size, const uint8_t* b, size_t b_size,
                       uint8_t* out, size_t cap, size_t* out_size) override {
    // the piece comes from Ctx::describe_piece
    if (c.piece_n == 0) return fail(ZCOLL_ERR_INTERNAL, "hom_add of an undescribed piece");
    charge(c, kHomAdd, c.piece_n * c.vsize);
    if (!model()) return cpu().hom_add(c, a, a_size, b, b_size, out, cap, out_size);
    *out_size = sim::stream_size(c, c.piece_n, c.piece_terms);
    return ZCOLL_SUCCESS;
  }
  zcoll_status set_divisor(Ctx& c, uint8_t* stream, size_t size, uint32_t divisor) override {
    return cpu().set_divisor(c, stream, size, divisor);
  }
  zcoll_status stream_size(Ctx& c, const uint8_t* src, size_t bytes, size_t n,
                           size_t* size) override {
    return cpu().stream_size(c, src, bytes, n, size);
  }
  zcoll_status reduce_ordered(Ctx& c, void* out, const void* lo, const void* hi,
                              size_t n) override {
    charge(c, kReduce, n * c.vsize);
    return model() ? ZCOLL_SUCCESS : cpu().reduce_ordered(c, out, lo, hi, n);
  }
  zcoll_status scale(Ctx& c, void* data, size_t n, double divisor) override {
    charge(c, kReduce, n * c.vsize);
    return model() ? ZCOLL_SUCCESS : cpu().scale(c, data, n, divisor);
  }
  zcoll_status move_bytes(Ctx& c, void* dst, const void* src, size_t bytes) override {
    return cpu().move_bytes(c, dst, src, bytes);
  }
  zcoll_status copy_values(Ctx& c, void* dst, const void* src, size_t n) override {
    charge(c, kCopy, n * c.vsize);
    return model() ? ZCOLL_SUCCESS : cpu().copy_values(c, dst, src, n);
  }
  bool peek(void* host_dst, const void* src, size_t bytes) override {
    return cpu().peek(host_dst, src, bytes);
  }
  zcoll_status stats(Ctx& c, const void* data, size_t n, bool sampled, double* mn, double* mx,
                     double* maxabs) override {
    return cpu().stats(c, data, n, sampled, mn, mx, maxabs);
  }
  double estimate_ratio(const void* data, size_t n, zcoll_dtype dtype, double eb) override {
    return cpu().estimate_ratio(data, n, dtype, eb);
  }
  double estimate_ratio_dense(const void* data, size_t n, zcoll_dtype dtype, double eb,
                              uint32_t chunk) override {
    return cpu().estimate_ratio_dense(data, n, dtype, eb, chunk);
  }
  zcoll_status run_native(zcoll_comm* zc, const Call& call, bool average,
                          zcoll_dtype dtype) override {
    return cpu().run_native(zc, call, average, dtype);
  }
  bool placeholder_streams() const override { return model(); }

 private:
  static DataOps& cpu() { return cpu_ops(); }
};
}  // namespace

DataOps* ops() {
  static SimOps ops;
  return charging() ? &ops : nullptr;
}

}  // namespace zcoll::coll::sim
