// common.cc — error formatting and raw file I/O of the zcoll tool.
#include "common.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <sys/stat.h>

namespace zcoll_cli {

void check(zcoll_status s, const std::string& context) {
  if (s == ZCOLL_SUCCESS) return;
  std::string msg = context + ": " + zcoll_status_string(s);
  const char* detail = zcoll_last_error();
  if (detail && *detail) msg += std::string(": ") + detail;
  throw Error(msg);
}

zcoll_dtype parse_dtype(const std::string& name) {
  if (name == "f32") return ZCOLL_FLOAT32;
  if (name == "f64") return ZCOLL_FLOAT64;
  if (name == "bf16") return ZCOLL_BFLOAT16;
  if (name == "f16") return ZCOLL_FLOAT16;
  throw Error("unknown type '" + name + "' (expected f32, f64, bf16 or f16)");
}

const char* dtype_name(zcoll_dtype dtype) {
  switch (dtype) {
    case ZCOLL_FLOAT32: return "f32";
    case ZCOLL_FLOAT64: return "f64";
    case ZCOLL_BFLOAT16: return "bf16";
    case ZCOLL_FLOAT16: return "f16";
  }
  return "unknown";
}

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string os_error(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

}  // namespace

Buffer read_file(const std::string& path) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) throw Error(os_error("cannot open", path));
  // fopen succeeds on a directory: only regular files have a meaningful size
  struct stat st;
  if (fstat(fileno(f.get()), &st) != 0) throw Error(os_error("cannot read", path));
  if (!S_ISREG(st.st_mode)) throw Error("cannot read '" + path + "': not a regular file");
  Buffer buf(static_cast<size_t>(st.st_size));
  if (buf.size() && std::fread(buf.data(), 1, buf.size(), f.get()) != buf.size())
    throw Error(std::ferror(f.get()) ? os_error("cannot read", path)
                                     : "cannot read '" + path + "': file shrank while reading");
  return buf;
}

void write_file(const std::string& path, const void* data, size_t bytes) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) throw Error(os_error("cannot create", path));
  bool ok = bytes == 0 || std::fwrite(data, 1, bytes, f.get()) == bytes;
  // fclose flushes: a full disk may only show up here
  ok = std::fclose(f.release()) == 0 && ok;
  if (!ok) {
    std::string msg = os_error("cannot write", path);
    std::remove(path.c_str());  // do not leave a partial output behind
    throw Error(msg);
  }
}

Buffer read_raw_values(const std::string& path, zcoll_dtype dtype, size_t* n) {
  Buffer buf = read_file(path);
  const size_t vb = zcoll_dtype_size(dtype);
  if (buf.size() % vb != 0)
    throw Error("'" + path + "' has " + std::to_string(buf.size()) +
                " bytes, not a multiple of the " + std::to_string(vb) + "-byte " +
                dtype_name(dtype) + " value size");
  *n = buf.size() / vb;
  return buf;
}

Buffer read_stream(const std::string& path, zcoll_info* info) {
  Buffer buf = read_file(path);
  info->struct_size = sizeof *info;
  check(zcoll_inspect(buf.data(), buf.size(), info), "'" + path + "'");
  return buf;
}

}  // namespace zcoll_cli
