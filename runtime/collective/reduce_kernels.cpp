#include "runtime/collective/reduce_kernels.hpp"

#include <algorithm>

namespace volador::collective {

namespace {
constexpr std::size_t kTile = 2048;  // 8 KiB of accumulators: stays in L1
}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default")))
void add_into(float* __restrict dst, const float* __restrict src, std::size_t count, float scale) {
  for (std::size_t i = 0; i < count; ++i) dst[i] = (dst[i] + src[i]) * scale;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void sum_rows(float* __restrict dst, std::span<const float* const> rows, std::size_t count, float scale) {
  alignas(64) float acc[kTile];
  for (std::size_t base = 0; base < count; base += kTile) {
    const std::size_t m = std::min(kTile, count - base);
    const float* __restrict first = rows[0] + base;
    for (std::size_t i = 0; i < m; ++i) acc[i] = first[i];
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const float* __restrict row = rows[r] + base;
      for (std::size_t i = 0; i < m; ++i) acc[i] += row[i];
    }
    float* __restrict out = dst + base;
    for (std::size_t i = 0; i < m; ++i) out[i] = acc[i] * scale;
  }
}

}  // namespace volador::collective
