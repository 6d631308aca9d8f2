// micro_bench.cc — zcoll_micro_bench: Google Benchmark timings of zcoll_compress and
// zcoll_decompress on a 4M-value (2048 x 2048) smooth float32 field at REL 1e-3,
// one thread. bytes_per_second counts uncompressed bytes. For the full picture
// (datasets, threads, memcpy reference, errors) use zcoll-codec-bench.
//   zcoll_micro_bench [--benchmark_repetitions=5 --benchmark_format=json ...]
#include <benchmark/benchmark.h>

#include <vector>

#include "synthetic.h"
#include "zcoll.h"

namespace {

constexpr size_t kSide = 2048;  // 4,194,304 values
constexpr double kRel = 1e-3;

const std::vector<float>& field() {
  static const std::vector<float> x = zcoll_bench::smooth_field(kSide, kSide, 0);
  return x;
}

zcoll_params params() {
  zcoll_params p;
  zcoll_params_init(&p);
  p.eb_mode = ZCOLL_EB_REL;
  p.error_bound = kRel;
  return p;
}

void BM_Compress(benchmark::State& state) {
  const std::vector<float>& x = field();
  const zcoll_params p = params();
  std::vector<uint8_t> out(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t size = 0;
  for (auto _ : state) {
    zcoll_status s =
        zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), out.data(), out.size(), &size, 1);
    if (s != ZCOLL_SUCCESS) {
      state.SkipWithError(zcoll_last_error());
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * x.size() * sizeof(float)));
  if (size) state.counters["ratio"] = static_cast<double>(x.size() * sizeof(float)) / size;
}

void BM_Decompress(benchmark::State& state) {
  const std::vector<float>& x = field();
  const zcoll_params p = params();
  std::vector<uint8_t> stream(zcoll_compress_bound(x.size(), ZCOLL_FLOAT32));
  size_t size = 0;
  if (zcoll_compress(&p, ZCOLL_FLOAT32, x.data(), x.size(), stream.data(), stream.size(), &size,
                     1) != ZCOLL_SUCCESS) {
    state.SkipWithError(zcoll_last_error());
    return;
  }
  std::vector<float> out(x.size());
  for (auto _ : state) {
    zcoll_status s = zcoll_decompress(stream.data(), size, out.data(), out.size(), 1);
    if (s != ZCOLL_SUCCESS) {
      state.SkipWithError(zcoll_last_error());
      break;
    }
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * x.size() * sizeof(float)));
  state.counters["ratio"] = static_cast<double>(x.size() * sizeof(float)) / size;
}

}  // namespace

BENCHMARK(BM_Compress)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Decompress)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
