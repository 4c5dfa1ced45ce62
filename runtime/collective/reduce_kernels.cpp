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
// may hold them as any 2-byte type. In vectors, a lane of Bits holds one
// half element (low 16 bits) or the bits of one float.
using Half = std::uint16_t __attribute__((may_alias));
using Bits = std::uint32_t __attribute__((vector_size(64)));
using Halves = std::uint16_t __attribute__((vector_size(32)));
static_assert(sizeof(Bits) / sizeof(std::uint32_t) == kLanes);

[[gnu::always_inline]] inline void load(Bits& v, const Half* p) {
  Halves h;
  std::memcpy(&h, p, sizeof h);
  v = __builtin_convertvector(h, Bits);
}
[[gnu::always_inline]] inline void store(Half* p, const Bits& v) {
  const Halves h = __builtin_convertvector(v, Halves);
  std::memcpy(p, &h, sizeof h);
}

// `v` in every lane of U (a scalar or Bits).
template <class U>
[[gnu::always_inline]] inline void splat(U& out, std::uint32_t v) { out = U{} + v; }

// Branch-free conversions (after F. Giesen's float/half code), written once
// for scalars (U = uint32_t, F = float) and vectors (Bits, Vec): every path
// is computed and one selected. Narrowing leaves the half in the low bits.
// Vectors travel by reference, as above (hence __builtin_bit_cast, not the
// std::bit_cast function).
template <class U, class F>
[[gnu::always_inline]] inline void f16_widen(F& out, const U& h) {
  constexpr std::uint32_t kExp = 0x7c00u << 13;  // the f16 exponent, moved to f32's place
  const F kSubnormalBias = F{} + __builtin_bit_cast(float, 113u << 23);
  U o = (h & 0x7fffu) << 13;
  const U exp = o & kExp;
  o += (127u - 15u) << 23;
  const U inf_nan = o + ((128u - 16u) << 23);
  const U subnormal = __builtin_bit_cast(U, __builtin_bit_cast(F, o + (1u << 23)) - kSubnormalBias);
  o = exp == kExp ? inf_nan : exp == 0u ? subnormal : o;
  out = __builtin_bit_cast(F, o | ((h & 0x8000u) << 16));
}

template <class U, class F>
[[gnu::always_inline]] inline void f16_narrow(U& out, const F& f) {
  constexpr std::uint32_t kInfinity = 255u << 23;
  constexpr std::uint32_t kTooBig = (127u + 16u) << 23;  // 65536: rounds to infinity
  constexpr std::uint32_t kSmallest = 113u << 23;        // 2^-14, the least normal f16
  constexpr std::uint32_t kSubnormalMagic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
  U x = __builtin_bit_cast(U, f);
  const U sign = x & 0x80000000u;
  x ^= sign;
  U nan, infinity;
  splat(nan, 0x7e00u);
  splat(infinity, 0x7c00u);
  const U big = x > kInfinity ? nan : infinity;
  // The float addition rounds the mantissa at the subnormal position (nearest-even).
  const U subnormal = __builtin_bit_cast(U, __builtin_bit_cast(F, x) + __builtin_bit_cast(float, kSubnormalMagic)) - kSubnormalMagic;
  const U normal = (x + ((15u - 127u) << 23) + 0xfffu + ((x >> 13) & 1u)) >> 13;
  const U o = x >= kTooBig ? big : x < kSmallest ? subnormal : normal;
  out = o | (sign >> 16);
}

template <class U, class F>
[[gnu::always_inline]] inline void bf16_widen(F& out, const U& b) { out = __builtin_bit_cast(F, b << 16); }

template <class U, class F>
[[gnu::always_inline]] inline void bf16_narrow(U& out, const F& f) {
  const U u = __builtin_bit_cast(U, f);
  const U quiet_nan = (u >> 16) | 0x40u;
  const U rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  out = (u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded;
}

template <bool kBrain, class U, class F>
[[gnu::always_inline]] inline void widen_one(F& out, const U& h) {
  if constexpr (kBrain) bf16_widen(out, h); else f16_widen(out, h);
}
template <bool kBrain, class U, class F>
[[gnu::always_inline]] inline void narrow_one(U& out, const F& f) {
  if constexpr (kBrain) bf16_narrow(out, f); else f16_narrow(out, f);
}
// Scalar shorthands.
template <bool kBrain>
[[gnu::always_inline]] inline float widen_scalar(std::uint32_t h) {
  float f;
  widen_one<kBrain>(f, h);
  return f;
}
template <bool kBrain>
[[gnu::always_inline]] inline std::uint16_t narrow_scalar(float f) {
  std::uint32_t h;
  narrow_one<kBrain>(h, f);
  return static_cast<std::uint16_t>(h);
}

template <bool kBrain>
[[gnu::always_inline]] inline void sum_half_rows(Half* dst, Half* mirror, std::span<const std::byte* const> rows,
                                                 std::size_t count, float scale) {
  auto row = [&](std::size_t r) { return reinterpret_cast<const Half*>(rows[r]); };
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Bits h;
    Vec acc, next;
    load(h, row(0) + i);
    widen_one<kBrain>(acc, h);
    for (std::size_t r = 1; r < rows.size(); ++r) {
      load(h, row(r) + i);
      widen_one<kBrain>(next, h);
      acc += next;
    }
    acc *= scale;
    narrow_one<kBrain>(h, acc);
    store(dst + i, h);
    if (mirror != nullptr) store(mirror + i, h);
  }
  for (; i < count; ++i) {
    float acc = widen_scalar<kBrain>(row(0)[i]);
    for (std::size_t r = 1; r < rows.size(); ++r) acc += widen_scalar<kBrain>(row(r)[i]);
    const std::uint16_t h = narrow_scalar<kBrain>(acc * scale);
    dst[i] = h;
    if (mirror != nullptr) mirror[i] = h;
  }
}

template <bool kBrain>
[[gnu::always_inline]] inline void widen_all(float* dst, const Half* src, std::size_t count) {
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Bits h;
    Vec f;
    load(h, src + i);
    widen_one<kBrain>(f, h);
    store(dst + i, f);
  }
  for (; i < count; ++i) dst[i] = widen_scalar<kBrain>(src[i]);
}

template <bool kBrain>
[[gnu::always_inline]] inline void narrow_all(Half* dst, const float* src, std::size_t count) {
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    Vec f;
    Bits h;
    load(f, src + i);
    narrow_one<kBrain>(h, f);
    store(dst + i, h);
  }
  for (; i < count; ++i) dst[i] = narrow_scalar<kBrain>(src[i]);
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
    case DType::f16: widen_all<false>(dst, half, count); return;
    case DType::bf16: widen_all<true>(dst, half, count); return;
  }
}

__attribute__((target_clones("avx512f", "avx2", "default")))
void narrow(std::byte* dst, const float* src, std::size_t count, DType type) {
  auto* half = reinterpret_cast<Half*>(dst);
  switch (type) {
    case DType::f32: std::memcpy(dst, src, count * sizeof(float)); return;
    case DType::f16: narrow_all<false>(half, src, count); return;
    case DType::bf16: narrow_all<true>(half, src, count); return;
  }
}

float f16_to_float(std::uint16_t h) { return widen_scalar<false>(h); }
std::uint16_t float_to_f16(float f) { return narrow_scalar<false>(f); }
float bf16_to_float(std::uint16_t b) { return widen_scalar<true>(b); }
std::uint16_t float_to_bf16(float f) { return narrow_scalar<true>(f); }

}  // namespace volador::collective
