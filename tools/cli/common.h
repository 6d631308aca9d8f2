// common.h — shared helpers of the zcoll command-line tool: errors, raw file
// I/O, data types and timing.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "zcoll.h"

namespace zcoll_cli {

// Any failure of a command. main() prints what() as one line on stderr and
// exits with status 1.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throw Error("<context>: <status string>: <last error>") unless s is SUCCESS.
void check(zcoll_status s, const std::string& context);

// "f32" / "f64" / "bf16" / "f16" <-> zcoll_dtype.
zcoll_dtype parse_dtype(const std::string& name);
const char* dtype_name(zcoll_dtype dtype);

// A whole file in memory. The storage is a vector of 8-byte words so that the
// bytes can be used as float or double arrays without misalignment.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes) { resize(bytes); }
  // at least one word, so that data() is never NULL (even for an empty file)
  void resize(size_t bytes) {
    words_.resize(bytes / 8 + 1);
    size_ = bytes;
  }
  uint8_t* data() { return reinterpret_cast<uint8_t*>(words_.data()); }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(words_.data()); }
  size_t size() const { return size_; }

 private:
  std::vector<uint64_t> words_;
  size_t size_ = 0;
};

Buffer read_file(const std::string& path);
void write_file(const std::string& path, const void* data, size_t bytes);

// Read a raw little-endian array of dtype; fails unless the size is a
// multiple of the value size. *n receives the value count.
Buffer read_raw_values(const std::string& path, zcoll_dtype dtype, size_t* n);

// Read a compressed file and validate it with zcoll_inspect.
Buffer read_stream(const std::string& path, zcoll_info* info);

// Seconds elapsed on a monotonic clock since `start`.
inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace zcoll_cli
