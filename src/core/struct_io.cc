// struct_io.cc — the struct_size rule of the public structs (struct_io.h).
#include "core/struct_io.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/error.h"

namespace zcoll {

size_t struct_size_of(const void* p) {
  size_t size;
  std::memcpy(&size, p, sizeof size);
  return size;
}

zcoll_status read_struct(const void* in, size_t own, size_t v1, const char* name, void* out) {
  if (!in) return fail(ZCOLL_ERR_INVALID_ARG, "%s is NULL", name);
  const size_t size = struct_size_of(in);
  if (size < v1)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "%s.struct_size is %zu, below the smallest version (%zu bytes): set it to sizeof",
                name, size, v1);
  const auto* bytes = static_cast<const uint8_t*>(in);
  for (size_t i = own; i < size; ++i)
    if (bytes[i] != 0)
      return fail(ZCOLL_ERR_INVALID_ARG,
                  "%s.struct_size is %zu and byte %zu, beyond the %zu bytes this library knows, "
                  "is not zero",
                  name, size, i, own);
  std::memcpy(out, in, std::min(size, own));
  std::memcpy(out, &own, sizeof own);
  return ZCOLL_SUCCESS;
}

void read_struct_prefix(const void* in, size_t own, void* out) {
  const size_t size = struct_size_of(in);
  if (size > sizeof size)
    std::memcpy(static_cast<uint8_t*>(out) + sizeof size,
                static_cast<const uint8_t*>(in) + sizeof size, std::min(size, own) - sizeof size);
}

zcoll_status check_out_struct(const void* out, size_t v1, const char* name) {
  if (!out) return fail(ZCOLL_ERR_INVALID_ARG, "%s is NULL", name);
  const size_t size = struct_size_of(out);
  if (size < v1)
    return fail(ZCOLL_ERR_INVALID_ARG,
                "%s.struct_size is %zu, below the smallest version (%zu bytes): set it to sizeof",
                name, size, v1);
  return ZCOLL_SUCCESS;
}

void write_struct(void* out, const void* value, size_t own) {
  const size_t size = struct_size_of(out);
  auto* bytes = static_cast<uint8_t*>(out);
  // struct_size (the first field) stays the caller's
  if (size > sizeof size)
    std::memcpy(bytes + sizeof size, static_cast<const uint8_t*>(value) + sizeof size,
                std::min(size, own) - sizeof size);
  if (size > own) std::memset(bytes + own, 0, size - own);
}

}  // namespace zcoll
