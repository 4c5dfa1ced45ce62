#include "runtime/collective/reduce_kernels.hpp"

#include <cstring>

namespace volador::collective {

namespace {

// 16 floats: one AVX-512 register, two AVX2 or four SSE ones. Written
// explicitly so that every clone is vectorised and, since each vector is
// loaded before it is stored, `dst` may be one of the rows. Vectors travel
// by reference: by value their ABI would differ between the clones.
using Vec = float __attribute__((vector_size(64)));
constexpr std::size_t kLanes = sizeof(Vec) / sizeof(float);

[[gnu::always_inline]] inline void load(Vec& v, const float* p) { std::memcpy(&v, p, sizeof v); }
[[gnu::always_inline]] inline void store(float* p, const Vec& v) { std::memcpy(p, &v, sizeof v); }

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default")))
void add_into(float* dst, const float* src, std::size_t count, float scale) {
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Vec a, b;
    load(a, dst + i);
    load(b, src + i);
    a = (a + b) * scale;
    store(dst + i, a);
  }
  for (; i < count; ++i) dst[i] = (dst[i] + src[i]) * scale;
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void sum_rows(float* dst, float* mirror, std::span<const float* const> rows, std::size_t count, float scale) {
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Vec acc, next;
    load(acc, rows[0] + i);
    for (std::size_t r = 1; r < rows.size(); ++r) {
      load(next, rows[r] + i);
      acc += next;
    }
    acc *= scale;
    store(dst + i, acc);
    if (mirror != nullptr) store(mirror + i, acc);
  }
  for (; i < count; ++i) {
    float acc = rows[0][i];
    for (std::size_t r = 1; r < rows.size(); ++r) acc += rows[r][i];
    acc *= scale;
    dst[i] = acc;
    if (mirror != nullptr) mirror[i] = acc;
  }
}

}  // namespace volador::collective
