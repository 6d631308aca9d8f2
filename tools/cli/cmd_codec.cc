// cmd_codec.cc — `zcoll compress` and `zcoll decompress`: raw array <-> stream.
#include <cstdio>
#include <string>

#include "commands.h"
#include "common.h"

namespace zcoll_cli {

namespace {

// "17x96x192" -> p.dims (1..ZCOLL_MAX_DIMS positive integers).
void parse_dims(const std::string& text, zcoll_params* p) {
  const std::string what = "--dims '" + text + "': ";
  size_t at = 0;
  p->ndims = 0;
  while (true) {
    const size_t x = text.find('x', at);
    const std::string part = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 19)
      throw Error(what + "expected positive integers separated by 'x', e.g. 17x96x192");
    const unsigned long long d = std::stoull(part);
    if (d == 0) throw Error(what + "a dimension is 0");
    if (p->ndims == ZCOLL_MAX_DIMS)
      throw Error(what + "at most " + std::to_string(ZCOLL_MAX_DIMS) + " dimensions");
    p->dims[p->ndims++] = d;
    if (x == std::string::npos) break;
    at = x + 1;
  }
}

}  // namespace

zcoll_params make_params(const BoundOptions& bound, uint32_t chunk_size, const std::string& codec,
                         const std::string& dims) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.codec = codec == "dense" ? ZCOLL_CODEC_DENSE : ZCOLL_CODEC_FAST;
  p.eb_mode = bound.rel > 0 ? ZCOLL_EB_REL : ZCOLL_EB_ABS;
  p.error_bound = bound.rel > 0 ? bound.rel : bound.abs;
  p.chunk_size = chunk_size;
  if (!dims.empty()) parse_dims(dims, &p);
  return p;
}

int run_compress(const CompressOptions& o) {
  const zcoll_dtype dtype = parse_dtype(o.type);
  size_t n = 0;
  const Buffer in = read_raw_values(o.input, dtype, &n);
  const zcoll_params p = make_params(o.bound, o.chunk_size, o.codec, o.dims);
  Buffer out(zcoll_compress_bound(n, dtype));
  size_t written = 0;
  check(zcoll_compress(&p, dtype, in.data(), n, out.data(), out.size(), &written, o.threads),
        "compressing '" + o.input + "'");
  write_file(o.output, out.data(), written);
  return 0;
}

int run_decompress(const DecompressOptions& o) {
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  const Buffer in = read_stream(o.input, &info);
  if (info.stream_size < in.size())
    std::fprintf(stderr, "zcoll: warning: '%s': %llu bytes after the end of the stream ignored\n",
                 o.input.c_str(), static_cast<unsigned long long>(in.size() - info.stream_size));
  const size_t vb = zcoll_dtype_size(info.dtype);
  Buffer out(static_cast<size_t>(info.n) * vb);
  check(zcoll_decompress(in.data(), in.size(), out.data(), static_cast<size_t>(info.n), o.threads),
        "decompressing '" + o.input + "'");
  write_file(o.output, out.data(), out.size());
  return 0;
}

}  // namespace zcoll_cli
