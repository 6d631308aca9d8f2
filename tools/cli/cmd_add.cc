// cmd_add.cc — `zcoll add`: sum compressed files without decompressing them
// (zcoll_hom_add), optionally dividing the sum (mean or a fixed scale).
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "commands.h"
#include "common.h"

namespace zcoll_cli {

namespace {

struct Input {
  std::string path;
  Buffer bytes;
  zcoll_info info = ZCOLL_INFO_INITIALIZER;
};

// Name the first header field that keeps a and b from being combined, as
// "<field> (<value in a> vs <value in b>)"; "" if these fields all match.
std::string mismatch_field(const zcoll_info& a, const zcoll_info& b) {
  std::ostringstream s;
  s.precision(17);
  if (a.dtype != b.dtype)
    s << "dtype (" << dtype_name(a.dtype) << " vs " << dtype_name(b.dtype) << ")";
  else if (a.n != b.n)
    s << "value count n (" << a.n << " vs " << b.n << ")";
  else if (a.chunk_size != b.chunk_size)
    s << "chunk size (" << a.chunk_size << " vs " << b.chunk_size << ")";
  else if (a.quantum != b.quantum)
    s << "quantum (" << a.quantum << " vs " << b.quantum
      << "; compress both with the same --abs bound)";
  else if (a.divisor != b.divisor)
    s << "divisor (" << a.divisor << " vs " << b.divisor << ")";
  return s.str();
}

}  // namespace

int run_add(const AddOptions& o) {
  if (o.inputs.size() < 2) throw Error("add needs at least two input files");
  std::vector<Input> in(o.inputs.size());
  for (size_t i = 0; i < in.size(); ++i) {
    in[i].path = o.inputs[i];
    in[i].bytes = read_stream(in[i].path, &in[i].info);
  }
  const zcoll_info& first = in[0].info;

  // Every input must be combinable with the first one; checked up front so
  // that the message names both files and the field that differs.
  for (size_t i = 1; i < in.size(); ++i) {
    const std::string field = mismatch_field(first, in[i].info);
    if (!field.empty())
      throw Error("cannot add '" + in[0].path + "' and '" + in[i].path + "': they differ in " +
                  field);
  }

  // Running sum, ping-ponging between two buffers of the worst-case size.
  const size_t cap = zcoll_compress_bound(static_cast<size_t>(first.n), first.dtype);
  Buffer sum(cap), next(cap);
  size_t sum_size = 0;
  zcoll_hom_stats stats = ZCOLL_HOM_STATS_INITIALIZER;
  for (size_t i = 1; i < in.size(); ++i) {
    const uint8_t* a = i == 1 ? in[0].bytes.data() : sum.data();
    const size_t a_size = i == 1 ? in[0].bytes.size() : sum_size;
    size_t out_size = 0;
    check(zcoll_hom_add(a, a_size, in[i].bytes.data(), in[i].bytes.size(), next.data(), cap,
                        &out_size, &stats, o.threads),
          "adding '" + in[i].path + "'");
    std::swap(sum, next);
    sum_size = out_size;
  }

  // --mean / --scale divide the represented values. The inputs' own divisor d
  // (1 for ordinary streams) is kept: the result's divisor is d*K.
  uint64_t k = o.mean ? in.size() : o.scale;
  if (k > 1) {
    const uint64_t divisor = uint64_t{first.divisor} * k;
    if (divisor > UINT32_MAX)
      throw Error("divisor " + std::to_string(divisor) + " does not fit in 32 bits");
    check(zcoll_hom_set_divisor(sum.data(), sum_size, static_cast<uint32_t>(divisor)),
          "setting the divisor");
  }
  write_file(o.output, sum.data(), sum_size);

  if (o.stats) {
    const uint64_t* b = stats.pipeline;
    const uint64_t total = b[0] + b[1] + b[2] + b[3];
    const auto pct = [total](uint64_t v) { return total ? 100.0 * v / total : 0.0; };
    std::printf("blocks            %llu in %zu additions\n", static_cast<unsigned long long>(total),
                in.size() - 1);
    std::printf("  both constant   %6.2f %%\n", pct(b[0]));
    std::printf("  only a constant %6.2f %%\n", pct(b[1]));
    std::printf("  only b constant %6.2f %%\n", pct(b[2]));
    std::printf("  both coded      %6.2f %%\n", pct(b[3]));
    std::printf("raw chunks        %llu\n", static_cast<unsigned long long>(stats.raw_chunks));
    std::printf("widened chunks    %llu\n", static_cast<unsigned long long>(stats.widened_chunks));
  }
  return 0;
}

}  // namespace zcoll_cli
