#include "runtime/collective/reduce_kernels.hpp"

#include <bit>
#include <cstring>
#include <vector>

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

// Half elements are read and written through this type: the caller's buffer
// may hold them as any 2-byte type.
using Half = std::uint16_t __attribute__((may_alias));

// Branch-free conversions (after F. Giesen's float/half code), so that the
// loops below vectorise; every path selects, none jumps.
[[gnu::always_inline]] inline float f16_widen(std::uint32_t h) {
  constexpr std::uint32_t kExp = 0x7c00u << 13;           // the f16 exponent, moved to f32's place
  const float kSubnormalBias = std::bit_cast<float>(113u << 23);
  std::uint32_t o = (h & 0x7fffu) << 13;
  const std::uint32_t exp = o & kExp;
  o += (127u - 15u) << 23;
  const std::uint32_t inf_nan = o + ((128u - 16u) << 23);
  const std::uint32_t subnormal = std::bit_cast<std::uint32_t>(std::bit_cast<float>(o + (1u << 23)) - kSubnormalBias);
  o = exp == kExp ? inf_nan : exp == 0 ? subnormal : o;
  return std::bit_cast<float>(o | ((h & 0x8000u) << 16));
}

[[gnu::always_inline]] inline std::uint16_t f16_narrow(float f) {
  constexpr std::uint32_t kInfinity = 255u << 23;
  constexpr std::uint32_t kTooBig = (127u + 16u) << 23;    // 65536: rounds to infinity
  constexpr std::uint32_t kSmallest = 113u << 23;          // 2^-14, the least normal f16
  constexpr std::uint32_t kSubnormalMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = x & 0x80000000u;
  x ^= sign;
  const std::uint32_t big = x > kInfinity ? 0x7e00u : 0x7c00u;
  // The float addition rounds the mantissa at the subnormal position (nearest-even).
  const std::uint32_t subnormal =
      std::bit_cast<std::uint32_t>(std::bit_cast<float>(x) + std::bit_cast<float>(kSubnormalMagic)) - kSubnormalMagic;
  const std::uint32_t normal = (x + ((15u - 127u) << 23) + 0xfffu + ((x >> 13) & 1u)) >> 13;
  const std::uint32_t o = x >= kTooBig ? big : x < kSmallest ? subnormal : normal;
  return static_cast<std::uint16_t>(o | (sign >> 16));
}

[[gnu::always_inline]] inline float bf16_widen(std::uint32_t b) { return std::bit_cast<float>(b << 16); }

[[gnu::always_inline]] inline std::uint16_t bf16_narrow(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  const bool nan = (u & 0x7fffffffu) > 0x7f800000u;
  return static_cast<std::uint16_t>(nan ? (u >> 16) | 0x40u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// Elements summed per tile: the float32 accumulators stay in registers or L1.
constexpr std::size_t kTile = 256;

template <bool kBrain>
[[gnu::always_inline]] inline void sum_half_rows(Half* dst, Half* mirror, std::span<const std::byte* const> rows,
                                                 std::size_t count, float scale) {
  float acc[kTile];
  for (std::size_t i = 0; i < count; i += kTile) {
    const std::size_t n = count - i < kTile ? count - i : kTile;
    const auto* first = reinterpret_cast<const Half*>(rows[0]) + i;
    for (std::size_t k = 0; k < n; ++k) acc[k] = kBrain ? bf16_widen(first[k]) : f16_widen(first[k]);
    for (std::size_t r = 1; r < rows.size(); ++r) {
      const auto* row = reinterpret_cast<const Half*>(rows[r]) + i;
      for (std::size_t k = 0; k < n; ++k) acc[k] += kBrain ? bf16_widen(row[k]) : f16_widen(row[k]);
    }
    for (std::size_t k = 0; k < n; ++k) {
      const float v = acc[k] * scale;
      dst[i + k] = kBrain ? bf16_narrow(v) : f16_narrow(v);
    }
    if (mirror != nullptr) std::memcpy(mirror + i, dst + i, n * sizeof(Half));
  }
}

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

__attribute__((target_clones("avx512f", "avx2", "default")))
void sum_rows(DType type, std::byte* dst, std::byte* mirror, std::span<const std::byte* const> rows,
              std::size_t count, float scale) {
  switch (type) {
    case DType::f32: {
      std::vector<const float*> floats(rows.size());
      for (std::size_t r = 0; r < rows.size(); ++r) floats[r] = reinterpret_cast<const float*>(rows[r]);
      sum_rows(reinterpret_cast<float*>(dst), reinterpret_cast<float*>(mirror), floats, count, scale);
      return;
    }
    case DType::f16:
      sum_half_rows<false>(reinterpret_cast<Half*>(dst), reinterpret_cast<Half*>(mirror), rows, count, scale);
      return;
    case DType::bf16:
      sum_half_rows<true>(reinterpret_cast<Half*>(dst), reinterpret_cast<Half*>(mirror), rows, count, scale);
      return;
  }
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void widen(float* dst, const std::byte* src, std::size_t count, DType type) {
  const auto* half = reinterpret_cast<const Half*>(src);
  switch (type) {
    case DType::f32: std::memcpy(dst, src, count * sizeof(float)); return;
    case DType::f16: for (std::size_t i = 0; i < count; ++i) dst[i] = f16_widen(half[i]); return;
    case DType::bf16: for (std::size_t i = 0; i < count; ++i) dst[i] = bf16_widen(half[i]); return;
  }
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void narrow(std::byte* dst, const float* src, std::size_t count, DType type) {
  auto* half = reinterpret_cast<Half*>(dst);
  switch (type) {
    case DType::f32: std::memcpy(dst, src, count * sizeof(float)); return;
    case DType::f16: for (std::size_t i = 0; i < count; ++i) half[i] = f16_narrow(src[i]); return;
    case DType::bf16: for (std::size_t i = 0; i < count; ++i) half[i] = bf16_narrow(src[i]); return;
  }
}

float f16_to_float(std::uint16_t h) { return f16_widen(h); }
std::uint16_t float_to_f16(float f) { return f16_narrow(f); }
float bf16_to_float(std::uint16_t b) { return bf16_widen(b); }
std::uint16_t float_to_bf16(float f) { return bf16_narrow(f); }

}  // namespace volador::collective
