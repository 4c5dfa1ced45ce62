#pragma once
// The arithmetic of the reductions, vectorised for the CPU it runs on
// (AVX-512, AVX2 or baseline, picked at load time). Thread-safe; buffers
// may be the same but must not partly overlap. Half types (float16,
// bfloat16) are converted with portable integer code, no F16C needed:
// widening is exact, narrowing rounds to nearest-even, NaN stays NaN and
// overflow becomes infinity.

#include <cstddef>
#include <cstdint>
#include <span>

#include "runtime/collective/element_type.hpp"

namespace volador::collective {

// dst[i] = (dst[i] + src[i]) * scale
void add_into(float* dst, const float* src, std::size_t count, float scale);

// dst[i] = (((rows[0][i] + rows[1][i]) + rows[2][i]) + ...) * scale: always
// in row order, so every rank that computes it gets the same bits. `dst` may
// be one of the rows; `mirror`, when not null, receives a second copy.
void sum_rows(float* dst, float* mirror, std::span<const float* const> rows, std::size_t count, float scale);

// sum_rows over `count` elements of `type`: half types are widened,
// summed in row order and scaled in float32, then rounded once to `type`.
void sum_rows(DType type, std::byte* dst, std::byte* mirror, std::span<const std::byte* const> rows,
              std::size_t count, float scale);

// dst[i] = float(src[i]) for `count` elements of `type` (exact).
void widen(float* dst, const std::byte* src, std::size_t count, DType type);
// dst[i] = src[i] rounded to `type` (nearest-even).
void narrow(std::byte* dst, const float* src, std::size_t count, DType type);

// One element, for tests and scalar callers.
[[nodiscard]] float f16_to_float(std::uint16_t h);
[[nodiscard]] std::uint16_t float_to_f16(float f);
[[nodiscard]] float bf16_to_float(std::uint16_t b);
[[nodiscard]] std::uint16_t float_to_bf16(float f);

}  // namespace volador::collective
