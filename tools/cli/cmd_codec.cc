// cmd_codec.cc — `zcoll compress` and `zcoll decompress`: raw array <-> stream.
#include <cstdio>

#include "commands.h"
#include "common.h"

namespace zcoll_cli {

zcoll_params make_params(const BoundOptions& bound, uint32_t chunk_size, const std::string& codec) {
  zcoll_params p;
  zcoll_params_init(&p);
  p.codec = codec == "dense" ? ZCOLL_CODEC_DENSE : ZCOLL_CODEC_FAST;
  p.eb_mode = bound.rel > 0 ? ZCOLL_EB_REL : ZCOLL_EB_ABS;
  p.error_bound = bound.rel > 0 ? bound.rel : bound.abs;
  p.chunk_size = chunk_size;
  return p;
}

int run_compress(const CompressOptions& o) {
  const zcoll_dtype dtype = parse_dtype(o.type);
  size_t n = 0;
  const Buffer in = read_raw_values(o.input, dtype, &n);
  const zcoll_params p = make_params(o.bound, o.chunk_size, o.codec);
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
