// cmd_info.cc — `zcoll info`: the header fields of a compressed file.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"

namespace zcoll_cli {

int run_info(const InfoOptions& o) {
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
  const Buffer in = read_stream(o.input, &info);
  const double raw_bytes = static_cast<double>(info.n) * zcoll_dtype_size(info.dtype);
  const double ratio = info.stream_size ? raw_bytes / static_cast<double>(info.stream_size) : 0;
  const double bits = info.n ? 8.0 * static_cast<double>(info.stream_size) / info.n : 0;

  if (o.json) {
    nlohmann::ordered_json j;
    j["file"] = o.input;
    j["file_size"] = in.size();
    j["format_version"] = info.format_version;
    j["dtype"] = dtype_name(info.dtype);
    j["n"] = info.n;
    j["block_size"] = info.block_size;
    j["chunk_size"] = info.chunk_size;
    j["chunks"] = info.chunks;
    j["raw_chunks"] = info.raw_chunks;
    j["error_bound"] = info.error_bound;
    j["quantum"] = info.quantum;
    j["divisor"] = info.divisor;
    j["terms"] = info.terms;
    j["header_size"] = info.header_size;
    j["stream_size"] = info.stream_size;
    j["uncompressed_size"] = static_cast<uint64_t>(raw_bytes);
    j["ratio"] = ratio;
    j["bits_per_value"] = bits;
    std::cout << j.dump(2) << '\n';
    return 0;
  }

  const auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("file              %s\n", o.input.c_str());
  std::printf("format version    %u\n", info.format_version);
  std::printf("dtype             %s\n", dtype_name(info.dtype));
  std::printf("values (n)        %llu\n", u(info.n));
  std::printf("block size        %u\n", info.block_size);
  std::printf("chunk size        %u\n", info.chunk_size);
  std::printf("chunks            %llu (%llu raw)\n", u(info.chunks), u(info.raw_chunks));
  std::printf("error bound       %.17g\n", info.error_bound);
  std::printf("quantum           %.17g\n", info.quantum);
  std::printf("divisor           %u\n", info.divisor);
  std::printf("terms             %u\n", info.terms);
  std::printf("header+index      %llu bytes\n", u(info.header_size));
  std::printf("stream size       %llu bytes\n", u(info.stream_size));
  if (in.size() != info.stream_size)
    std::printf("file size         %zu bytes (trailing bytes ignored)\n", in.size());
  std::printf("uncompressed      %.0f bytes\n", raw_bytes);
  std::printf("ratio             %.3f (%.3f bits/value)\n", ratio, bits);
  return 0;
}

}  // namespace zcoll_cli
