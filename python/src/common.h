// common.h — what both extension modules share: buffer acquisition with strict
// checks (dtype, C-contiguity, writability; never a silent copy or cast) and the
// conversion of a zcoll_status into zcoll.ZcollError. Every function here runs
// with the GIL held.
#pragma once

#include <nanobind/nanobind.h>

#include <cstring>
#include <string>

#include "zcoll.h"

namespace zcoll_py {

namespace nb = nanobind;

// A Py_buffer released on scope exit (the exporter keeps the memory alive and
// unresizable while we hold it, also while the GIL is released).
struct View {
  Py_buffer view{};
  bool held = false;
  View() = default;
  View(const View&) = delete;
  View& operator=(const View&) = delete;
  View(View&& o) noexcept : view(o.view), held(o.held) { o.held = false; }
  View& operator=(View&& o) noexcept {
    if (this != &o) {
      if (held) PyBuffer_Release(&view);
      view = o.view;
      held = o.held;
      o.held = false;
    }
    return *this;
  }
  ~View() {
    if (held) PyBuffer_Release(&view);
  }
  void* data() const { return view.buf; }
  size_t bytes() const { return static_cast<size_t>(view.len); }
};

// zcoll.ZcollError (defined in zcoll/_error.py), looked up once per module.
inline nb::object& error_class() {
  static nb::object cls;
  return cls;
}

// Raise zcoll.ZcollError(status, status text, detailed message, operation).
// The last error is per thread, and the GIL is taken back on the thread that
// made the call, so it is still this call's message.
// (raise_status_text: with the message given, e.g. one a nonblocking call's
// request recorded on another thread.)
[[noreturn]] inline void raise_status_text(zcoll_status s, const std::string& message,
                                           const char* op) {
  nb::object err = error_class()(static_cast<int>(s), zcoll_status_string(s), message, op);
  PyErr_SetObject(error_class().ptr(), err.ptr());
  throw nb::python_error();
}
[[noreturn]] inline void raise_status(zcoll_status s, const char* op) {
  raise_status_text(s, std::string(zcoll_last_error()), op);
}

[[noreturn]] inline void raise(PyObject* type, const std::string& msg) {
  PyErr_SetString(type, msg.c_str());
  throw nb::python_error();
}

inline std::string py_type_name(nb::handle h) { return Py_TYPE(h.ptr())->tp_name; }

// A buffer's format code without its byte-order prefix where that order is the
// host's ('@', '=', or '<' on a little-endian host); "B" where there is none.
inline const char* native_format(const char* fmt) {
  if (!fmt) return "B";
  const bool little = [] {
    const uint16_t one = 1;
    unsigned char b;
    std::memcpy(&b, &one, 1);
    return b == 1;
  }();
  if (*fmt == '@' || *fmt == '=' || (*fmt == '<' && little)) ++fmt;
  return fmt;
}

// Whether a buffer holds 2-byte integers (uint16 or int16: bfloat16 bits).
inline bool is_int16_format(const char* fmt) {
  const char* f = native_format(fmt);
  return std::strcmp(f, "H") == 0 || std::strcmp(f, "h") == 0;
}

// The dtype of a buffer format string: "f"/"d" (and "e", float16, with half)
// in the host's byte order; 0 if none.
inline zcoll_dtype dtype_of_format(const char* fmt, Py_ssize_t itemsize, bool half = false) {
  const char* f = native_format(fmt);
  if (std::strcmp(f, "f") == 0 && itemsize == 4) return ZCOLL_FLOAT32;
  if (std::strcmp(f, "d") == 0 && itemsize == 8) return ZCOLL_FLOAT64;
  if (half && std::strcmp(f, "e") == 0 && itemsize == 2) return ZCOLL_FLOAT16;
  return static_cast<zcoll_dtype>(0);
}

// An array's layout: C-contiguous, and writable where it is written (ValueError).
inline void check_layout(const View& v, const char* name, bool writable) {
  if (!PyBuffer_IsContiguous(&v.view, 'C')) {
    raise(PyExc_ValueError,
          std::string(name) + ": array must be C-contiguous (use numpy.ascontiguousarray)");
  }
  if (writable && v.view.readonly) {
    raise(PyExc_ValueError, std::string(name) + ": array is read-only");
  }
}

inline const char* dtype_name(zcoll_dtype d) {
  return d == ZCOLL_FLOAT32    ? "float32"
         : d == ZCOLL_FLOAT64  ? "float64"
         : d == ZCOLL_FLOAT16  ? "float16"
         : d == ZCOLL_BFLOAT16 ? "bfloat16"
                               : "?";
}

// A float32/float64 (with half: or float16) C-contiguous array (anything with
// the buffer protocol: numpy arrays, memoryviews, array.array). TypeError for
// another type or dtype, ValueError for a non-contiguous or (with writable)
// read-only one.
inline View float_array(nb::handle obj, const char* name, bool writable, zcoll_dtype* dtype,
                        size_t* n, bool half = false) {
  const char* kinds = half ? "float32, float64 or float16" : "float32 or float64";
  View v;
  if (PyObject_GetBuffer(obj.ptr(), &v.view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    raise(PyExc_TypeError, std::string(name) + ": expected a numpy array of " + kinds + ", got " +
                               py_type_name(obj));
  }
  v.held = true;
  zcoll_dtype d = dtype_of_format(v.view.format, v.view.itemsize, half);
  if (d == 0) {
    // 2-byte integers are most likely bfloat16 bits: say how to pass them
    const bool bits = half && is_int16_format(v.view.format);
    raise(PyExc_TypeError, std::string(name) + ": dtype must be " + kinds +
                               " (native byte "
                               "order), got buffer format '" +
                               (v.view.format ? v.view.format : "B") +
                               "'; convert explicitly, "
                               "e.g. a.astype(numpy.float32)" +
                               (bits ? ", or give bfloat16 bits with dtype='bfloat16'" : ""));
  }
  check_layout(v, name, writable);
  *dtype = d;
  *n = v.bytes() / static_cast<size_t>(v.view.itemsize);
  return v;
}

// bfloat16 values in a buffer of 2-byte items: numpy has no bfloat16 buffer
// format, so the bits come in a uint16 or int16 array (with half: or a float16
// view of them, as the collectives' dtype='bfloat16' takes), C-contiguous.
inline View bf16_array(nb::handle obj, const char* name, bool writable, size_t* n,
                       bool half = true) {
  const char* kinds = half ? "a uint16, int16 or float16" : "a uint16 or int16";
  View v;
  if (PyObject_GetBuffer(obj.ptr(), &v.view, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    raise(PyExc_TypeError,
          std::string(name) + ": expected an array of bfloat16 bits, got " + py_type_name(obj));
  }
  v.held = true;
  const bool float16 = dtype_of_format(v.view.format, v.view.itemsize, true) == ZCOLL_FLOAT16;
  if (v.view.itemsize != 2 || !(is_int16_format(v.view.format) || (half && float16)))
    raise(PyExc_TypeError, std::string(name) + ": bfloat16 takes the bits in " + kinds +
                               " array (e.g. a.view(numpy.uint16)), got buffer format '" +
                               native_format(v.view.format) + "'");
  check_layout(v, name, writable);
  *n = v.bytes() / 2;
  return v;
}

// Bytes-like input (a compressed stream): bytes, bytearray, memoryview, numpy
// uint8 arrays; must be contiguous. writable: an output buffer (a read-only one
// is a ValueError).
inline View byte_buffer(nb::handle obj, const std::string& name, bool writable = false) {
  View v;
  if (PyObject_GetBuffer(obj.ptr(), &v.view, writable ? PyBUF_WRITABLE : PyBUF_SIMPLE) != 0) {
    PyErr_Clear();
    if (writable) {
      raise(PyExc_ValueError, name +
                                  ": expected a writable contiguous bytes-like object "
                                  "(bytearray, numpy uint8 array), got " +
                                  py_type_name(obj));
    }
    raise(PyExc_TypeError, name +
                               ": expected a contiguous bytes-like object (bytes, bytearray, "
                               "memoryview), got " +
                               py_type_name(obj));
  }
  v.held = true;
  return v;
}

}  // namespace zcoll_py
