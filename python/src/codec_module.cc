// codec_module.cc — zcoll._codec: the compressor of include/zcoll.h for Python.
// Arguments are checked here (common.h); the Python layer (zcoll/codec.py)
// adds keyword handling and shapes. Every call into the library runs with the
// GIL released, on buffers held through the buffer protocol.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <utility>
#include <vector>

#include "common.h"
#include "zcoll.h"

namespace nb = nanobind;
using namespace zcoll_py;

namespace {

// A new bytes object of `capacity` bytes, filled by fill(char*, capacity) -> (status, size)
// with the GIL released, then shrunk to size.
template <class Fill>
nb::object make_bytes(size_t capacity, const char* op, Fill&& fill) {
  PyObject* out = PyBytes_FromStringAndSize(nullptr, static_cast<Py_ssize_t>(capacity));
  if (!out) throw nb::python_error();
  std::pair<zcoll_status, size_t> r;
  {
    nb::gil_scoped_release unlocked;
    r = fill(PyBytes_AS_STRING(out), capacity);  // not yet visible to any other thread
  }
  if (r.first != ZCOLL_SUCCESS) {
    Py_DECREF(out);
    raise_status(r.first, op);
  }
  if (_PyBytes_Resize(&out, static_cast<Py_ssize_t>(r.second)) != 0) throw nb::python_error();
  return nb::steal(out);
}

// Whether two buffers share a byte.
bool overlap(const View& a, const View& b) {
  const auto* pa = static_cast<const char*>(a.data());
  const auto* pb = static_cast<const char*>(b.data());
  return a.bytes() && b.bytes() && pa < pb + b.bytes() && pb < pa + a.bytes();
}

// fill(char*, bytes) -> (status, size) into the caller's writable buffer `out` (at
// least `capacity` bytes, sharing no byte with the inputs: the operations read
// them while writing), GIL released; returns the size.
template <class Fill>
size_t fill_out(nb::handle out, size_t capacity, const char* op,
                const std::vector<const View*>& inputs, Fill&& fill) {
  View o = byte_buffer(out, std::string(op) + ": out", /*writable=*/true);
  if (o.bytes() < capacity) {
    raise(PyExc_ValueError,
          std::string(op) + ": out holds " + std::to_string(o.bytes()) +
              " bytes, needs compress_bound(n, dtype) = " + std::to_string(capacity));
  }
  for (const View* in : inputs) {
    if (overlap(o, *in)) {
      raise(PyExc_ValueError, std::string(op) + ": out overlaps an input stream");
    }
  }
  std::pair<zcoll_status, size_t> r;
  {
    nb::gil_scoped_release unlocked;
    r = fill(static_cast<char*>(o.data()), o.bytes());
  }
  if (r.first != ZCOLL_SUCCESS) raise_status(r.first, op);
  return r.second;
}

// A new bytes object, or the caller's buffer (out not None: returns the size).
template <class Fill>
nb::object bytes_or_out(nb::handle out, size_t capacity, const char* op,
                        const std::vector<const View*>& inputs, Fill&& fill) {
  if (out.is_none()) return make_bytes(capacity, op, fill);
  return nb::int_(fill_out(out, capacity, op, inputs, fill));
}

zcoll_info inspect(const View& v, const char* op) {
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  zcoll_status s;
  {
    nb::gil_scoped_release unlocked;
    s = zcoll_inspect(v.data(), v.bytes(), &info);
  }
  if (s != ZCOLL_SUCCESS) raise_status(s, op);
  return info;
}

// dtype and n from a stream's header (docs/format.md §1: magic, version 1, dtype,
// n at offset 16, little-endian) without walking the index and chunk framing;
// the library call that follows validates all of it. A header that does not
// parse goes through zcoll_inspect for the library's own error.
std::pair<zcoll_dtype, uint64_t> peek(const View& v, const char* op) {
  const auto* p = static_cast<const unsigned char*>(v.data());
  if (v.bytes() >= 48 && std::memcmp(p, "ZCOL", 4) == 0 && p[4] == 1 && p[5] >= ZCOLL_FLOAT32 &&
      p[5] <= ZCOLL_FLOAT16) {
    uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | p[16 + i];
    return {static_cast<zcoll_dtype>(p[5]), n};
  }
  zcoll_info info = inspect(v, op);  // raises; a valid header does not get here
  return {info.dtype, info.n};
}

// The values of a call: float32, float64 or float16 arrays, or with bfloat16
// the bits of bfloat16 values in 2-byte items (common.h).
View values(nb::handle array, const char* name, bool writable, bool bfloat16, zcoll_dtype* dt,
            size_t* n) {
  if (!bfloat16) return float_array(array, name, writable, dt, n, /*half=*/true);
  *dt = ZCOLL_BFLOAT16;
  return bf16_array(array, name, writable, n);
}

// The compress parameters of a call (dims: the array's shape, slowest first;
// empty = flat; more than ZCOLL_MAX_DIMS is the caller's to fold).
zcoll_params make_params(int eb_mode, double error_bound, uint32_t chunk_size, int codec,
                         const std::vector<uint64_t>& dims) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = static_cast<zcoll_eb_mode>(eb_mode);
  p.error_bound = error_bound;
  p.chunk_size = chunk_size;
  p.codec = static_cast<zcoll_codec>(codec);
  if (dims.size() > ZCOLL_MAX_DIMS)
    raise(PyExc_ValueError, "dims: at most " + std::to_string(ZCOLL_MAX_DIMS) + " entries, got " +
                                std::to_string(dims.size()));
  p.ndims = static_cast<uint32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) p.dims[d] = dims[d];
  return p;
}

// Compress into a writable bytes-like `out` of at least compress_bound bytes;
// returns the stream size (no allocation: for repeated calls on large arrays).
size_t compress_into(nb::handle array, nb::handle out, int eb_mode, double error_bound,
                     uint32_t chunk_size, int threads, bool bfloat16, int codec,
                     const std::vector<uint64_t>& dims) {
  zcoll_dtype dt;
  size_t n;
  View in = values(array, "array", false, bfloat16, &dt, &n);
  const zcoll_params p = make_params(eb_mode, error_bound, chunk_size, codec, dims);
  // no minimum: the library says when out is too small for this stream
  return fill_out(out, 0, "compress", {&in}, [&](char* dst, size_t bytes) {
    size_t size = 0;
    zcoll_status s = zcoll_compress(&p, dt, in.data(), n, dst, bytes, &size, threads);
    return std::make_pair(s, size);
  });
}

nb::object compress(nb::handle array, int eb_mode, double error_bound, uint32_t chunk_size,
                    int threads, bool bfloat16, int codec, const std::vector<uint64_t>& dims) {
  zcoll_dtype dt;
  size_t n;
  View in = values(array, "array", false, bfloat16, &dt, &n);
  const zcoll_params p = make_params(eb_mode, error_bound, chunk_size, codec, dims);
  const size_t cap = zcoll_compress_bound(n, dt);
  return make_bytes(cap, "compress", [&](char* dst, size_t) {
    size_t size = 0;
    zcoll_status s = zcoll_compress(&p, dt, in.data(), n, dst, cap, &size, threads);
    return std::make_pair(s, size);
  });
}

// The stream's dtype name and value count (header checked).
nb::tuple header(nb::handle buf) {
  View v = byte_buffer(buf, "buf");
  auto h = peek(v, "decompress");
  return nb::make_tuple(dtype_name(h.first), h.second);
}

// Decompress into out, which must be a writable C-contiguous array of the
// stream's dtype holding exactly its n values (bfloat16: its bits in a uint16
// or int16 array; not float16, which would read as other values).
void decompress_into(nb::handle buf, nb::handle out, int threads) {
  View v = byte_buffer(buf, "buf");
  auto h = peek(v, "decompress");
  zcoll_dtype dt = ZCOLL_BFLOAT16;
  size_t n;
  View o = h.first == ZCOLL_BFLOAT16 ? bf16_array(out, "out", true, &n, /*half=*/false)
                                     : float_array(out, "out", true, &dt, &n, /*half=*/true);
  if (dt != h.first) {
    raise(PyExc_TypeError, std::string("out: the stream holds ") + dtype_name(h.first) +
                               ", out is " + dtype_name(dt));
  }
  if (n != h.second) {
    raise(PyExc_ValueError, "out: the stream holds " + std::to_string(h.second) +
                                " values, out has " + std::to_string(n));
  }
  zcoll_status s;
  {
    nb::gil_scoped_release unlocked;
    s = zcoll_decompress(v.data(), v.bytes(), o.data(), n, threads);
  }
  if (s != ZCOLL_SUCCESS) raise_status(s, "decompress");
}

nb::dict info(nb::handle buf) {
  View v = byte_buffer(buf, "buf");
  zcoll_info i = inspect(v, "info");
  nb::dict d;
  d["format_version"] = i.format_version;
  d["dtype"] = dtype_name(i.dtype);
  d["block_size"] = i.block_size;
  d["chunk_size"] = i.chunk_size;
  d["n"] = i.n;
  d["chunks"] = i.chunks;
  d["raw_chunks"] = i.raw_chunks;
  d["error_bound"] = i.error_bound;
  d["quantum"] = i.quantum;
  d["divisor"] = i.divisor;
  d["terms"] = i.terms;
  d["header_size"] = i.header_size;
  d["stream_size"] = i.stream_size;
  d["format_flags"] = i.format_flags;  // ZCOLL_FLAG_CHECKSUM 1, ZCOLL_FORMAT_FLAG_DENSE 2
  d["codec"] = (i.format_flags & ZCOLL_FORMAT_FLAG_DENSE) ? "dense" : "fast";
  const size_t raw = static_cast<size_t>(i.n) * zcoll_dtype_size(i.dtype);
  d["ratio"] = i.stream_size ? static_cast<double>(raw) / static_cast<double>(i.stream_size) : 0.0;
  return d;
}

nb::dict quality(nb::handle a, nb::handle b, size_t compressed_bytes, int threads, bool bfloat16) {
  zcoll_dtype da, db;
  size_t na, nb_;
  View va = values(a, "a", false, bfloat16, &da, &na);
  View vb = values(b, "b", false, bfloat16, &db, &nb_);
  if (da != db) {
    raise(PyExc_TypeError, std::string("a is ") + dtype_name(da) + ", b is " + dtype_name(db));
  }
  if (na != nb_) {
    raise(PyExc_ValueError,
          "a has " + std::to_string(na) + " values, b has " + std::to_string(nb_));
  }
  zcoll_quality q = ZCOLL_QUALITY_INITIALIZER;
  zcoll_status s;
  {
    nb::gil_scoped_release unlocked;
    s = zcoll_quality_compare(da, va.data(), vb.data(), na, compressed_bytes, &q, threads);
  }
  if (s != ZCOLL_SUCCESS) raise_status(s, "quality");
  nb::dict d;
  d["n"] = q.n;
  d["nonfinite"] = q.nonfinite;
  d["nonfinite_mismatch"] = q.nonfinite_mismatch;
  d["max_abs_error"] = q.max_abs_error;
  d["rmse"] = q.rmse;
  d["value_range"] = q.value_range;
  d["nrmse"] = q.nrmse;
  d["psnr"] = q.psnr;
  d["compression_ratio"] = q.compression_ratio;
  d["bits_per_value"] = q.bits_per_value;
  return d;
}

// a + b, a - b (sign = -1) on compressed streams.
nb::object hom_binary(nb::handle a, nb::handle b, nb::handle out, int threads, bool subtract) {
  const char* op = subtract ? "hom_sub" : "hom_add";
  View va = byte_buffer(a, "a");
  View vb = byte_buffer(b, "b");
  zcoll_info ia = inspect(va, op);
  const size_t cap = zcoll_compress_bound(ia.n, ia.dtype);
  return bytes_or_out(out, cap, op, {&va, &vb}, [&](char* dst, size_t) {
    size_t size = 0;
    zcoll_status s = subtract ? zcoll_hom_sub(va.data(), va.bytes(), vb.data(), vb.bytes(), dst,
                                              cap, &size, nullptr, threads)
                              : zcoll_hom_add(va.data(), va.bytes(), vb.data(), vb.bytes(), dst,
                                              cap, &size, nullptr, threads);
    return std::make_pair(s, size);
  });
}

// The sum of k >= 1 streams; with mean, the divisor is multiplied by k so that
// decompression yields their mean.
nb::object hom_sum(nb::handle streams, nb::handle out, int threads, bool mean) {
  const char* op = mean ? "mean" : "hom_sum";
  std::vector<View> views;
  for (nb::handle h : streams) views.push_back(byte_buffer(h, "streams[i]"));
  if (views.empty()) raise(PyExc_ValueError, std::string(op) + ": needs at least one stream");
  zcoll_info first = inspect(views[0], op);
  const size_t cap = zcoll_compress_bound(first.n, first.dtype);
  const uint64_t k = views.size();
  if (mean && static_cast<uint64_t>(first.divisor) * k > UINT32_MAX) {
    raise(PyExc_ValueError, "mean: divisor overflow");
  }
  std::vector<const View*> inputs;
  for (const View& v : views) inputs.push_back(&v);
  return bytes_or_out(
      out, cap, op, inputs, [&](char* dst, size_t) -> std::pair<zcoll_status, size_t> {
        size_t size = views[0].bytes();
        if (k == 1) {  // the stream itself (its bytes, without any trailing ones)
          if (size > cap) {
            zcoll_stream_size(views[0].data(), views[0].bytes(), &size);
            if (size > cap) return {ZCOLL_ERR_CORRUPT, 0};
          }
          std::memcpy(dst, views[0].data(), size);
        }
        // k - 1 additions, their results alternating between dst and a scratch
        // stream (from three streams on), so that the last lands in dst
        std::vector<char> tmp;
        if (k >= 3) {
          try {
            tmp.resize(cap);
          } catch (...) {
            return {ZCOLL_ERR_NO_MEMORY, 0};
          }
        }
        char* to = (k - 1) % 2 == 1 ? dst : tmp.data();
        const void* sum = views[0].data();
        for (size_t i = 1; i < k; ++i) {
          size_t out = 0;
          zcoll_status s = zcoll_hom_add(sum, size, views[i].data(), views[i].bytes(), to, cap,
                                         &out, nullptr, threads);
          if (s != ZCOLL_SUCCESS) return {s, 0};
          sum = to;
          size = out;
          to = to == dst ? tmp.data() : dst;
        }
        if (mean) {
          zcoll_status s =
              zcoll_hom_set_divisor(dst, size, static_cast<uint32_t>(first.divisor * k));
          if (s != ZCOLL_SUCCESS) return {s, 0};
        }
        return {ZCOLL_SUCCESS, size};
      });
}

}  // namespace

NB_MODULE(_codec, m) {
  m.doc() = "zcoll's compressor (include/zcoll.h); use the zcoll package, not this module";
  error_class() = nb::module_::import_("zcoll._error").attr("ZcollError");
  m.def("compress", &compress, nb::arg("array"), nb::arg("eb_mode"), nb::arg("error_bound"),
        nb::arg("chunk_size"), nb::arg("threads"), nb::arg("bfloat16") = false,
        nb::arg("codec") = 0, nb::arg("dims") = std::vector<uint64_t>{});
  m.def("compress_into", &compress_into, nb::arg("array"), nb::arg("out"), nb::arg("eb_mode"),
        nb::arg("error_bound"), nb::arg("chunk_size"), nb::arg("threads"),
        nb::arg("bfloat16") = false, nb::arg("codec") = 0,
        nb::arg("dims") = std::vector<uint64_t>{});
  m.def("header", &header, nb::arg("buf"));
  m.def("decompress_into", &decompress_into, nb::arg("buf"), nb::arg("out"), nb::arg("threads"));
  m.def("info", &info, nb::arg("buf"));
  m.def("quality", &quality, nb::arg("a"), nb::arg("b"), nb::arg("compressed_bytes"),
        nb::arg("threads"), nb::arg("bfloat16") = false);
  m.def(
      "hom_add",
      [](nb::handle a, nb::handle b, nb::handle o, int t) { return hom_binary(a, b, o, t, false); },
      nb::arg("a"), nb::arg("b"), nb::arg("out").none(), nb::arg("threads"));
  m.def(
      "hom_sub",
      [](nb::handle a, nb::handle b, nb::handle o, int t) { return hom_binary(a, b, o, t, true); },
      nb::arg("a"), nb::arg("b"), nb::arg("out").none(), nb::arg("threads"));
  m.def(
      "hom_sum", [](nb::handle s, nb::handle o, int t) { return hom_sum(s, o, t, false); },
      nb::arg("streams"), nb::arg("out").none(), nb::arg("threads"));
  m.def(
      "mean", [](nb::handle s, nb::handle o, int t) { return hom_sum(s, o, t, true); },
      nb::arg("streams"), nb::arg("out").none(), nb::arg("threads"));
  m.def("compress_bound", [](size_t n, int dtype) {
    return zcoll_compress_bound(n, static_cast<zcoll_dtype>(dtype));
  });
  m.def("version", []() { return std::string(zcoll_version_string()); });
  m.attr("EB_ABS") = static_cast<int>(ZCOLL_EB_ABS);
  m.attr("EB_REL") = static_cast<int>(ZCOLL_EB_REL);
  m.attr("FLOAT32") = static_cast<int>(ZCOLL_FLOAT32);
  m.attr("FLOAT64") = static_cast<int>(ZCOLL_FLOAT64);
  m.attr("BFLOAT16") = static_cast<int>(ZCOLL_BFLOAT16);
  m.attr("FLOAT16") = static_cast<int>(ZCOLL_FLOAT16);
  m.attr("DEFAULT_CHUNK_SIZE") = ZCOLL_DEFAULT_CHUNK_SIZE;
}
