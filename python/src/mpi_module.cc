// mpi_module.cc — zcoll._mpi: the compressed collectives of include/zcoll_mpi.h
// for Python. A Comm is made from a Fortran communicator handle (mpi4py's
// Comm.py2f()) through MPI_Comm_f2c, which works whatever mpi4py's C layout;
// zcoll/_comm.py checks first that mpi4py runs on the MPI this module was built
// with. Buffers are checked here (common.h); collectives run with the GIL
// released. Each collective also has a nonblocking form (zcoll_i*): it returns
// a Request that holds the buffers (their Py_buffer views) until the call is
// complete, and whose wait() releases the GIL.
#include <mpi.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common.h"
#include "zcoll_mpi.h"

namespace nb = nanobind;
using namespace zcoll_py;

namespace {

bool mpi_usable() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  return init && !fin;
}

// MPI_FLOAT, MPI_DOUBLE, or zcoll's float16 datatype (zcoll_mpi.h; created
// with the first Comm, which checks that MPI is initialized). Runs without the
// GIL: never raises.
MPI_Datatype mpi_type(zcoll_dtype d) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (zcoll_mpi_datatype(d, &t) != ZCOLL_SUCCESS) return MPI_DATATYPE_NULL;
  return t;
}

MPI_Op mpi_op(int op) {
  switch (op) {
    case ZCOLL_OP_SUM: return MPI_SUM;
    case ZCOLL_OP_PROD: return MPI_PROD;
    case ZCOLL_OP_MAX: return MPI_MAX;
    case ZCOLL_OP_MIN: return MPI_MIN;
  }
  raise(PyExc_ValueError, "op must be one of sum, prod, max, min");
}

// An optional buffer argument: None -> no view (in place, or not significant).
struct Arg {
  View v;
  bool present = false;
  zcoll_dtype dtype = static_cast<zcoll_dtype>(0);
  size_t n = 0;
  void* ptr() const { return present ? v.data() : nullptr; }
};

// bfloat16 values as bits in 2-byte items (common.h's bf16_array).
Arg bf16_arg(nb::handle h, const char* name, bool writable) {
  Arg a;
  if (h.is_none()) return a;
  a.v = bf16_array(h, name, writable, &a.n);
  a.dtype = ZCOLL_BFLOAT16;
  a.present = true;
  return a;
}

Arg arg(nb::handle h, const char* name, bool writable, bool bfloat16 = false) {
  if (bfloat16) return bf16_arg(h, name, writable);
  Arg a;
  if (h.is_none()) return a;
  a.v = float_array(h, name, writable, &a.dtype, &a.n, /*half=*/true);
  a.present = true;
  return a;
}

void same_dtype(const Arg& a, const Arg& b) {
  if (a.present && b.present && a.dtype != b.dtype) {
    raise(PyExc_TypeError,
          std::string("sendbuf is ") + dtype_name(a.dtype) + ", recvbuf is " + dtype_name(b.dtype));
  }
}

[[noreturn]] void size_error(const char* what, size_t want, size_t got) {
  raise(PyExc_ValueError, std::string(what) + ": expected " + std::to_string(want) +
                              " values, got " + std::to_string(got));
}

nb::dict report_dict(const zcoll_report& r) {
  nb::dict d;
  d["collective"] = zcoll_collective_name(r.collective);
  d["mode"] = zcoll_mode_name(r.mode);
  d["algorithm"] = zcoll_algorithm_name(r.algorithm);
  d["status"] = static_cast<int>(r.status);
  d["comm_size"] = r.comm_size;
  d["reason"] = std::string(r.reason);
  d["count"] = r.count;
  d["bytes_sent"] = r.bytes_sent;
  d["bytes_uncompressed"] = r.bytes_uncompressed;
  d["time_total"] = r.time_total;
  d["time_compress"] = r.time_compress;
  d["time_comm"] = r.time_comm;
  d["time_reduce"] = r.time_reduce;
  d["eb_per_compression"] = r.eb_per_compression;
  d["error_bound"] = r.error_bound;
  d["error_factor"] = r.error_factor;
  d["compressions"] = r.compressions;
  d["hom_adds"] = r.hom_adds;
  d["time_predicted"] = r.time_predicted;
  d["ratio_estimate"] = r.ratio_estimate;
  d["time_range"] = r.time_range;
  d["time_first_send"] = r.time_first_send;
  d["time_after_recv"] = r.time_after_recv;
  d["codec"] = r.codec == ZCOLL_CODEC_DENSE ? "dense" : "fast";
  return d;
}

// A nonblocking call in flight (zcoll_request): it holds the views of the
// call's buffers until the call is complete, so that neither the array nor its
// memory goes while the library uses it. Dropping a pending Request waits for
// the call first (with the GIL released).
class Request {
 public:
  Request(zcoll_request* q, std::vector<View> views, std::string op)
      : q_(q), views_(std::move(views)), op_(std::move(op)) {}
  Request(const Request&) = delete;
  Request& operator=(const Request&) = delete;
  ~Request() {
    if (!q_) return;
    if (!done_) {
      nb::gil_scoped_release unlocked;
      zcoll_wait(q_, nullptr);
    }
    zcoll_request_free(q_);
  }

  // True once complete (raises ZcollError if the call failed); never blocks.
  bool test() {
    if (done_) return finish();
    int done = 0;
    const zcoll_status s = zcoll_test(q_, &done);
    if (!done) return false;
    done_ = true;
    status_ = s;
    zcoll_wait(q_, &rep_);  // complete: returns at once with the report
    if (s != ZCOLL_SUCCESS) error_ = zcoll_last_error();
    return finish();
  }
  // Block (GIL released) until complete; raises ZcollError if the call failed.
  void wait() {
    if (!done_) {
      zcoll_status s;
      std::string error;
      {
        nb::gil_scoped_release unlocked;
        s = zcoll_wait(q_, &rep_);
        if (s != ZCOLL_SUCCESS) error = zcoll_last_error();
      }
      done_ = true;
      status_ = s;
      error_ = error;
    }
    finish();
  }
  bool done() const { return done_; }
  // The call's report (as Comm.last_report) once complete.
  nb::dict report() const {
    if (!done_) raise(PyExc_RuntimeError, "the request is not complete: wait() or test() first");
    return report_dict(rep_);
  }

 private:
  // Complete: the buffers go back to Python; a failure raises (every time asked).
  bool finish() {
    views_.clear();
    if (status_ != ZCOLL_SUCCESS) raise_status_text(status_, error_, op_.c_str());
    return true;
  }
  zcoll_request* q_;
  std::vector<View> views_;
  std::string op_;
  bool done_ = false;
  zcoll_status status_ = ZCOLL_SUCCESS;
  std::string error_;
  zcoll_report rep_ = ZCOLL_REPORT_INITIALIZER;
};

class Comm {
 public:
  // codec: -1 the default, 0 fast, 1 dense, 2 auto (ZCOLL_CODEC)
  Comm(int64_t fortran_handle, int mode, int eb_mode, double error_bound, int threads,
       int64_t min_bytes, int64_t chunk_size, int bound, int codec) {
    if (!mpi_usable()) raise(PyExc_RuntimeError, "MPI is not initialized (import mpi4py.MPI)");
    MPI_Datatype t16 = MPI_DATATYPE_NULL;  // the 16-bit types, created here with the GIL held
    if (zcoll_status s = zcoll_mpi_datatype(ZCOLL_FLOAT16, &t16)) raise_status(s, "Comm");
    MPI_Comm comm = MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_handle));
    zcoll_comm_config cfg;
    zcoll_comm_config_init(&cfg);
    if (mode >= 0) cfg.mode = static_cast<zcoll_mode>(mode);
    if (eb_mode >= 0) cfg.eb_mode = static_cast<zcoll_eb_mode>(eb_mode);
    if (error_bound >= 0) cfg.error_bound = error_bound;
    if (threads >= 0) cfg.threads = threads;
    if (min_bytes >= 0) cfg.min_bytes = static_cast<size_t>(min_bytes);
    if (chunk_size >= 0) cfg.chunk_size = static_cast<uint32_t>(chunk_size);
    if (bound >= 0) cfg.bound = static_cast<zcoll_bound_semantics>(bound);
    if (codec >= 0)
      cfg.codec_flags = (cfg.codec_flags & ZCOLL_FLAG_CHECKSUM) |
                        (codec == 1 ? ZCOLL_FORMAT_FLAG_DENSE : 0) |
                        (codec == 2 ? ZCOLL_CODEC_FLAG_AUTO : 0);
    zcoll_status s;
    {
      nb::gil_scoped_release unlocked;
      s = zcoll_comm_create(comm, &cfg, &zc_);
    }
    if (s != ZCOLL_SUCCESS) raise_status(s, "Comm");
  }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  // Freeing is collective; after MPI_Finalize the handle is only forgotten.
  ~Comm() {
    if (zc_ && mpi_usable()) zcoll_comm_free(zc_);
  }

  void free() {
    if (!zc_) return;
    zcoll_comm* zc = zc_;
    zc_ = nullptr;
    if (!mpi_usable()) return;
    zcoll_status s;
    {
      nb::gil_scoped_release unlocked;
      s = zcoll_comm_free(zc);
    }
    if (s != ZCOLL_SUCCESS) raise_status(s, "free");
  }

  zcoll_comm* get() const {
    if (!zc_) raise(PyExc_ValueError, "the Comm has been freed");
    if (!mpi_usable()) raise(PyExc_RuntimeError, "MPI is finalized");
    return zc_;
  }
  int size() const {
    int v = 0;
    zcoll_comm_size(get(), &v);
    return v;
  }
  int rank() const {
    int v = 0;
    zcoll_comm_rank(get(), &v);
    return v;
  }

  template <class F>
  void run(const char* op, F&& f) {
    zcoll_comm* zc = get();
    zcoll_status s;
    {
      nb::gil_scoped_release unlocked;
      s = f(zc);
    }
    if (s != ZCOLL_SUCCESS) raise_status(s, op);
  }

  // A collective, blocking (returns None) or started (returns a Request that
  // keeps the buffers): f(zc, q) runs the blocking call when q is nullptr and
  // starts the nonblocking one into *q otherwise.
  template <class F>
  nb::object go(const char* op, bool nonblocking, std::initializer_list<Arg*> bufs, F&& f) {
    if (!nonblocking) {
      run(op, [&](zcoll_comm* zc) { return f(zc, nullptr); });
      return nb::none();
    }
    zcoll_comm* zc = get();
    zcoll_request* q = nullptr;
    zcoll_status s;
    {
      nb::gil_scoped_release unlocked;
      s = f(zc, &q);
    }
    if (s != ZCOLL_SUCCESS) raise_status(s, op);
    std::vector<View> views;
    for (Arg* a : bufs)
      if (a->present) views.push_back(std::move(a->v));
    return nb::cast(new Request(q, std::move(views), op), nb::rv_policy::take_ownership);
  }

  // sendbuf None = MPI_IN_PLACE (input in recvbuf); bfloat16: the buffers hold
  // bfloat16 bits (bf16_arg)
  nb::object allreduce(nb::handle send, nb::handle recv, int op, bool nonblocking, bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    if (sb.present && sb.n != rb.n) size_error("recvbuf", sb.n, rb.n);
    MPI_Op o = mpi_op(op);
    return go("allreduce", nonblocking, {&sb, &rb}, [&](zcoll_comm* zc, zcoll_request** q) {
      const void* s = sb.present ? sb.ptr() : MPI_IN_PLACE;
      const MPI_Datatype t = mpi_type(rb.dtype);
      return q ? zcoll_iallreduce(zc, s, rb.ptr(), rb.n, t, o, q)
               : zcoll_allreduce(zc, s, rb.ptr(), rb.n, t, o);
    });
  }

  // recvbuf holds recvcount values; sendbuf size*recvcount (None: in place,
  // recvbuf then holds size*recvcount and the result lands at its start)
  nb::object reduce_scatter_block(nb::handle send, nb::handle recv, size_t recvcount, int op,
                                  bool nonblocking, bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    const size_t total = recvcount * static_cast<size_t>(size());
    if (sb.present) {
      if (sb.n != total) size_error("sendbuf", total, sb.n);
      if (rb.n < recvcount) size_error("recvbuf", recvcount, rb.n);
    } else if (rb.n != total) {
      size_error("recvbuf (in place)", total, rb.n);
    }
    MPI_Op o = mpi_op(op);
    return go("reduce_scatter_block", nonblocking, {&sb, &rb},
              [&](zcoll_comm* zc, zcoll_request** q) {
                const void* s = sb.present ? sb.ptr() : MPI_IN_PLACE;
                const MPI_Datatype t = mpi_type(rb.dtype);
                return q ? zcoll_ireduce_scatter_block(zc, s, rb.ptr(), recvcount, t, o, q)
                         : zcoll_reduce_scatter_block(zc, s, rb.ptr(), recvcount, t, o);
              });
  }

  nb::object reduce_scatter(nb::handle send, nb::handle recv, std::vector<size_t> counts, int op,
                            bool nonblocking, bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    const int p = size();
    if (counts.size() != static_cast<size_t>(p)) {
      raise(PyExc_ValueError, "recvcounts: expected " + std::to_string(p) + " entries, got " +
                                  std::to_string(counts.size()));
    }
    size_t total = 0;
    for (size_t c : counts) total += c;
    const size_t mine = counts[static_cast<size_t>(rank())];
    if (sb.present) {
      if (sb.n != total) size_error("sendbuf", total, sb.n);
      if (rb.n < mine) size_error("recvbuf", mine, rb.n);
    } else if (rb.n != total) {
      size_error("recvbuf (in place)", total, rb.n);
    }
    MPI_Op o = mpi_op(op);
    return go("reduce_scatter", nonblocking, {&sb, &rb}, [&](zcoll_comm* zc, zcoll_request** q) {
      const void* s = sb.present ? sb.ptr() : MPI_IN_PLACE;
      const MPI_Datatype t = mpi_type(rb.dtype);
      return q ? zcoll_ireduce_scatter(zc, s, rb.ptr(), counts.data(), t, o, q)
               : zcoll_reduce_scatter(zc, s, rb.ptr(), counts.data(), t, o);
    });
  }

  // sendbuf None: each rank's block already at recvbuf[rank*count:]
  nb::object allgather(nb::handle send, nb::handle recv, bool nonblocking, bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    const size_t p = static_cast<size_t>(size());
    if (rb.n % p != 0) {
      raise(PyExc_ValueError, "recvbuf: its size must be a multiple of the communicator size");
    }
    const size_t count = rb.n / p;
    if (sb.present && sb.n != count) size_error("sendbuf", count, sb.n);
    return go("allgather", nonblocking, {&sb, &rb}, [&](zcoll_comm* zc, zcoll_request** q) {
      const void* s = sb.present ? sb.ptr() : MPI_IN_PLACE;
      const MPI_Datatype t = mpi_type(rb.dtype);
      return q ? zcoll_iallgather(zc, s, rb.ptr(), count, t, q)
               : zcoll_allgather(zc, s, rb.ptr(), count, t);
    });
  }

  nb::object bcast(nb::handle buf, int root, bool nonblocking, bool bfloat16) {
    Arg b = arg(buf, "buf", true, bfloat16);
    if (!b.present) raise(PyExc_TypeError, "buf: expected an array, got None");
    return go("bcast", nonblocking, {&b}, [&](zcoll_comm* zc, zcoll_request** q) {
      const MPI_Datatype t = mpi_type(b.dtype);
      return q ? zcoll_ibcast(zc, b.ptr(), b.n, t, root, q)
               : zcoll_bcast(zc, b.ptr(), b.n, t, root);
    });
  }

  // At root sendbuf holds size*count values; recvbuf None at root = in place.
  nb::object scatter(nb::handle send, nb::handle recv, size_t count, int root, bool nonblocking,
                     bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    const bool is_root = rank() == root;
    const size_t p = static_cast<size_t>(size());
    if (is_root && !sb.present) raise(PyExc_TypeError, "sendbuf: required at the root");
    if (is_root && sb.n != count * p) size_error("sendbuf", count * p, sb.n);
    if (!is_root && !rb.present) raise(PyExc_TypeError, "recvbuf: required on every non-root");
    if (rb.present && rb.n != count) size_error("recvbuf", count, rb.n);
    const zcoll_dtype dt = rb.present ? rb.dtype : sb.dtype;
    return go("scatter", nonblocking, {&sb, &rb}, [&](zcoll_comm* zc, zcoll_request** q) {
      void* r = rb.present ? rb.ptr() : MPI_IN_PLACE;
      return q ? zcoll_iscatter(zc, sb.ptr(), r, count, mpi_type(dt), root, q)
               : zcoll_scatter(zc, sb.ptr(), r, count, mpi_type(dt), root);
    });
  }

  // recvbuf significant at root only; sendbuf None at root = in place.
  nb::object reduce(nb::handle send, nb::handle recv, int op, int root, bool nonblocking,
                    bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    const bool is_root = rank() == root;
    if (is_root && !rb.present) raise(PyExc_TypeError, "recvbuf: required at the root");
    if (!sb.present && !is_root) raise(PyExc_TypeError, "sendbuf: required on every non-root");
    const size_t count = sb.present ? sb.n : rb.n;
    if (is_root && rb.n != count) size_error("recvbuf", count, rb.n);
    const zcoll_dtype dt = sb.present ? sb.dtype : rb.dtype;
    MPI_Op o = mpi_op(op);
    return go("reduce", nonblocking, {&sb, &rb}, [&](zcoll_comm* zc, zcoll_request** q) {
      const void* s = sb.present ? sb.ptr() : MPI_IN_PLACE;
      return q ? zcoll_ireduce(zc, s, rb.ptr(), count, mpi_type(dt), o, root, q)
               : zcoll_reduce(zc, s, rb.ptr(), count, mpi_type(dt), o, root);
    });
  }

  // root's recvbuf holds size*count values; sendbuf None at root = in place.
  nb::object gather(nb::handle send, nb::handle recv, size_t count, int root, bool nonblocking,
                    bool bfloat16) {
    Arg sb = arg(send, "sendbuf", false, bfloat16), rb = arg(recv, "recvbuf", true, bfloat16);
    same_dtype(sb, rb);
    const bool is_root = rank() == root;
    const size_t p = static_cast<size_t>(size());
    if (is_root && !rb.present) raise(PyExc_TypeError, "recvbuf: required at the root");
    if (is_root && rb.n != count * p) size_error("recvbuf", count * p, rb.n);
    if (!is_root && !sb.present) raise(PyExc_TypeError, "sendbuf: required on every non-root");
    if (sb.present && sb.n != count) size_error("sendbuf", count, sb.n);
    const zcoll_dtype dt = sb.present ? sb.dtype : rb.dtype;
    return go("gather", nonblocking, {&sb, &rb}, [&](zcoll_comm* zc, zcoll_request** q) {
      const void* s = sb.present ? sb.ptr() : MPI_IN_PLACE;
      return q ? zcoll_igather(zc, s, rb.ptr(), count, mpi_type(dt), root, q)
               : zcoll_gather(zc, s, rb.ptr(), count, mpi_type(dt), root);
    });
  }

  void set_mode(int mode) {
    run("set_mode",
        [&](zcoll_comm* zc) { return zcoll_comm_set_mode(zc, static_cast<zcoll_mode>(mode)); });
  }
  void set_error_bound(int eb_mode, double eb) {
    run("set_error_bound", [&](zcoll_comm* zc) {
      return zcoll_comm_set_error_bound(zc, static_cast<zcoll_eb_mode>(eb_mode), eb);
    });
  }
  void set_average(bool on) {
    run("set_average", [&](zcoll_comm* zc) { return zcoll_comm_set_average(zc, on ? 1 : 0); });
  }
  void set_shape(const std::vector<uint64_t>& dims) {
    run("set_shape", [&](zcoll_comm* zc) {
      return zcoll_comm_set_shape(zc, static_cast<uint32_t>(dims.size()), dims.data());
    });
  }
  void set_algorithm(int coll, int algo) {
    run("set_algorithm", [&](zcoll_comm* zc) {
      return zcoll_comm_set_algorithm(zc, static_cast<zcoll_collective>(coll),
                                      static_cast<zcoll_algorithm>(algo));
    });
  }

  nb::dict config() const {
    zcoll_comm_config c;
    zcoll_comm_config_init(&c);
    zcoll_status s = zcoll_comm_get_config(get(), &c);
    if (s != ZCOLL_SUCCESS) raise_status(s, "config");
    nb::dict d;
    d["mode"] = zcoll_mode_name(c.mode);
    d["eb_mode"] = c.eb_mode == ZCOLL_EB_ABS ? "abs" : "rel";
    d["error_bound"] = c.error_bound;
    d["bound"] = c.bound == ZCOLL_BOUND_RESULT ? "result" : "per_compression";
    d["threads"] = c.threads;
    d["min_bytes"] = c.min_bytes;
    d["chunk_size"] = c.chunk_size;
    d["codec"] = (c.codec_flags & ZCOLL_CODEC_FLAG_AUTO)     ? "auto"
                 : (c.codec_flags & ZCOLL_FORMAT_FLAG_DENSE) ? "dense"
                                                             : "fast";
    return d;
  }

  nb::dict last_report() const {
    zcoll_report r = ZCOLL_REPORT_INITIALIZER;
    zcoll_status s;
    {
      nb::gil_scoped_release unlocked;  // waits for pending nonblocking calls
      s = zcoll_comm_last_report(get(), &r);
    }
    if (s != ZCOLL_SUCCESS) raise_status(s, "last_report");
    return report_dict(r);
  }

  bool progress_thread() const {
    int threaded = 0;
    zcoll_comm_progress(get(), &threaded);
    return threaded != 0;
  }

 private:
  zcoll_comm* zc_ = nullptr;
};

std::string library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
  int len = 0;
  MPI_Get_library_version(buf, &len);
  return std::string(buf, static_cast<size_t>(len));
}

// The MPI implementation and version of the headers this module was compiled with.
nb::tuple built_with() {
#if defined(MPICH_VERSION)
  return nb::make_tuple("MPICH", MPICH_VERSION);
#elif defined(OMPI_MAJOR_VERSION)
  return nb::make_tuple("Open MPI", std::to_string(OMPI_MAJOR_VERSION) + "." +
                                        std::to_string(OMPI_MINOR_VERSION) + "." +
                                        std::to_string(OMPI_RELEASE_VERSION));
#else
  return nb::make_tuple("unknown", "");
#endif
}

}  // namespace

NB_MODULE(_mpi, m) {
  m.doc() = "zcoll's compressed MPI collectives (include/zcoll_mpi.h); use zcoll.Comm";
  error_class() = nb::module_::import_("zcoll._error").attr("ZcollError");
  m.def("library_version", &library_version);
  m.def("built_with", &built_with);
  m.def("mode_from_name", [](const std::string& name) {
    zcoll_mode mode;
    zcoll_status s = zcoll_mode_from_name(name.c_str(), &mode);
    if (s != ZCOLL_SUCCESS) raise_status(s, "mode");
    return static_cast<int>(mode);
  });
  // names from the library's tables (the algorithm table, the collective traits)
  m.def("collective_from_name", [](const std::string& name) {
    zcoll_collective c;
    zcoll_status s = zcoll_collective_from_name(name.c_str(), &c);
    if (s != ZCOLL_SUCCESS) raise_status(s, "collective");
    return static_cast<int>(c);
  });
  m.def("algorithm_from_name", [](int coll, const std::string& name) {
    zcoll_algorithm a;
    zcoll_status s =
        zcoll_algorithm_from_name(static_cast<zcoll_collective>(coll), name.c_str(), &a);
    if (s != ZCOLL_SUCCESS) raise_status(s, "algorithm");
    return static_cast<int>(a);
  });
  m.def("algorithms_of", [](int coll) {
    zcoll_algorithm list[64];
    const int n = std::min(64, zcoll_algorithms_of(static_cast<zcoll_collective>(coll), list, 64));
    std::vector<std::string> names;
    for (int i = 0; i < n; ++i) names.emplace_back(zcoll_algorithm_name(list[i]));
    return names;
  });
  nb::class_<Request>(m, "Request")
      .def("test", &Request::test)
      .def("wait", &Request::wait)
      .def_prop_ro("done", &Request::done)
      .def("report", &Request::report);
  nb::class_<Comm>(m, "Comm")
      .def(nb::init<int64_t, int, int, double, int, int64_t, int64_t, int, int>(),
           nb::arg("fortran_handle"), nb::arg("mode"), nb::arg("eb_mode"), nb::arg("error_bound"),
           nb::arg("threads"), nb::arg("min_bytes"), nb::arg("chunk_size"), nb::arg("bound"),
           nb::arg("codec"))
      .def("free", &Comm::free)
      .def_prop_ro("size", &Comm::size)
      .def_prop_ro("rank", &Comm::rank)
      .def("allreduce", &Comm::allreduce, nb::arg("sendbuf").none(), nb::arg("recvbuf"),
           nb::arg("op"), nb::arg("nonblocking") = false, nb::arg("bfloat16") = false)
      .def("reduce_scatter_block", &Comm::reduce_scatter_block, nb::arg("sendbuf").none(),
           nb::arg("recvbuf"), nb::arg("recvcount"), nb::arg("op"), nb::arg("nonblocking") = false,
           nb::arg("bfloat16") = false)
      .def("reduce_scatter", &Comm::reduce_scatter, nb::arg("sendbuf").none(), nb::arg("recvbuf"),
           nb::arg("recvcounts"), nb::arg("op"), nb::arg("nonblocking") = false,
           nb::arg("bfloat16") = false)
      .def("allgather", &Comm::allgather, nb::arg("sendbuf").none(), nb::arg("recvbuf"),
           nb::arg("nonblocking") = false, nb::arg("bfloat16") = false)
      .def("bcast", &Comm::bcast, nb::arg("buf"), nb::arg("root"), nb::arg("nonblocking") = false,
           nb::arg("bfloat16") = false)
      .def("scatter", &Comm::scatter, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(),
           nb::arg("count"), nb::arg("root"), nb::arg("nonblocking") = false,
           nb::arg("bfloat16") = false)
      .def("reduce", &Comm::reduce, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(),
           nb::arg("op"), nb::arg("root"), nb::arg("nonblocking") = false,
           nb::arg("bfloat16") = false)
      .def("gather", &Comm::gather, nb::arg("sendbuf").none(), nb::arg("recvbuf").none(),
           nb::arg("count"), nb::arg("root"), nb::arg("nonblocking") = false,
           nb::arg("bfloat16") = false)
      .def_prop_ro("progress_thread", &Comm::progress_thread)
      .def("set_mode", &Comm::set_mode)
      .def("set_error_bound", &Comm::set_error_bound)
      .def("set_average", &Comm::set_average)
      .def("set_shape", &Comm::set_shape)
      .def("set_algorithm", &Comm::set_algorithm)
      .def("config", &Comm::config)
      .def("last_report", &Comm::last_report);
}
