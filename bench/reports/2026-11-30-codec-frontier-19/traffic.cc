// traffic.cc — the memory traffic of a hom add without its adds: one core reads two
// inputs and writes an output (the sizes of fnoc-uwnd's hom add at REL 1e-4), caches
// emptied before each run, with regular and with non-temporal stores; and memcpy of
// one input (2,775,168 bytes). Median [p10, p90] of 31 runs, in us.
//   g++ -O2 -mavx2 -std=c++17 traffic.cc -o traffic && ./traffic
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {
std::vector<uint64_t> g_evict(96u << 17);  // 96 MiB, as zcoll-codec-bench --cold
volatile uint64_t g_sink;

void evict() {
  uint64_t s = 0;
  for (size_t i = 0; i < g_evict.size(); i += 8) s += g_evict[i];
  g_sink = s;
}

// Per 32 bytes of output, the inputs' bytes in proportion (both inputs in step).
template <bool kNonTemporal>
__attribute__((noinline)) void traffic(const uint8_t* a, const uint8_t* b, uint8_t* out,
                                       size_t in_bytes, size_t out_bytes) {
  __m256i acc = _mm256_setzero_si256();
  const double per_out = static_cast<double>(in_bytes) / static_cast<double>(out_bytes);
  double due = 0;
  size_t i = 0;
  for (size_t o = 0; o + 32 <= out_bytes; o += 32) {
    due += per_out * 32;
    for (; i + 32 <= due && i + 32 <= in_bytes; i += 32) {
      acc = _mm256_xor_si256(acc, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
      acc = _mm256_xor_si256(acc, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    }
    if (kNonTemporal)
      _mm256_stream_si256(reinterpret_cast<__m256i*>(out + o), acc);
    else
      _mm256_store_si256(reinterpret_cast<__m256i*>(out + o), acc);
  }
  if (kNonTemporal) _mm_sfence();
  g_sink = static_cast<uint64_t>(_mm256_extract_epi64(acc, 0));
}
}  // namespace

int main() {
  const size_t in_bytes = 775168, out_bytes = 832384, copy_bytes = 2775168;
  const auto buffer = [](size_t n, int fill) {
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(64, n + 64));
    std::memset(p, fill, n);
    return p;
  };
  uint8_t *a = buffer(in_bytes, 1), *b = buffer(in_bytes, 2), *out = buffer(out_bytes, 3);
  uint8_t *src = buffer(copy_bytes, 4), *dst = buffer(copy_bytes, 5);
  const char* names[] = {"regular", "nontemporal", "memcpy_one_input"};
  std::vector<double> t[3];
  for (int k = 0; k < 31; ++k) {
    for (int c = 0; c < 3; ++c) {
      evict();
      const auto t0 = std::chrono::steady_clock::now();
      if (c == 0) traffic<false>(a, b, out, in_bytes, out_bytes);
      if (c == 1) traffic<true>(a, b, out, in_bytes, out_bytes);
      if (c == 2) std::memcpy(dst, src, copy_bytes);
      t[c].push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() * 1e6);
    }
  }
  for (int c = 0; c < 3; ++c) {
    std::sort(t[c].begin(), t[c].end());
    std::printf("%s %.1f [%.1f, %.1f]\n", names[c], t[c][15], t[c][3], t[c][27]);
  }
  return 0;
}
