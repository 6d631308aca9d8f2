// struct_io.h — the one rule for the public structs that can grow (zcoll.h,
// "Extensible structs"): every such struct begins with size_t struct_size, set
// by the caller. The library reads and writes only the first
// min(struct_size, sizeof(T)) bytes:
//   input,  smaller (older) struct: the fields it lacks take their defaults;
//   input,  larger (newer) struct: accepted if the unknown tail is all zero;
//   output, smaller struct: the fields it lacks are not written;
//   output, larger struct: the unknown tail is zeroed;
//   struct_size below the first version's size: ZCOLL_ERR_INVALID_ARG.
// Used by both libraries (zcoll_params, zcoll_info, zcoll_quality,
// zcoll_hom_stats here; the MPI structs in libzcoll_mpi).
#pragma once

#include <cstddef>

#include "zcoll.h"

// Bytes of the first version of a struct: up to the end of its last field then.
#define ZCOLL_STRUCT_V1_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)nullptr)->last_field))

namespace zcoll {

// The caller's struct_size of the struct at p (which must not be NULL).
size_t struct_size_of(const void* p);

// Copy a caller's input struct into out, which holds the library's defaults
// (own = sizeof of the library's struct, v1 = its first version's size). On
// success out's struct_size is own.
zcoll_status read_struct(const void* in, size_t own, size_t v1, const char* name, void* out);

// For a struct that is both read and written (zcoll_hom_stats accumulates):
// copy the first min(struct_size, own) bytes of in over out (which holds the
// defaults); out's struct_size stays own. check_out_struct() must have passed.
void read_struct_prefix(const void* in, size_t own, void* out);

// Check an output struct's struct_size (>= v1) before the call does any work.
zcoll_status check_out_struct(const void* out, size_t v1, const char* name);

// Write value (own bytes) into the caller's struct at out: the first
// min(struct_size, own) bytes, struct_size kept as the caller set it, and an
// unknown tail (struct_size > own) zeroed. check_out_struct() must have passed.
void write_struct(void* out, const void* value, size_t own);

// Typed forms.
template <typename T>
zcoll_status read_struct(const T* in, size_t v1, const char* name, T* out) {
  return read_struct(in, sizeof(T), v1, name, out);
}
template <typename T>
void write_struct(T* out, const T& value) {
  write_struct(out, &value, sizeof(T));
}

}  // namespace zcoll
