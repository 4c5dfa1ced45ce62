#pragma once
// The arithmetic of the reductions, vectorised for the CPU it runs on
// (AVX-512, AVX2 or baseline, picked at load time). Thread-safe; buffers
// may be the same but must not partly overlap.

#include <cstddef>
#include <span>

namespace volador::collective {

// dst[i] = (dst[i] + src[i]) * scale
void add_into(float* dst, const float* src, std::size_t count, float scale);

// dst[i] = (((rows[0][i] + rows[1][i]) + rows[2][i]) + ...) * scale: always
// in row order, so every rank that computes it gets the same bits. `dst` may
// be one of the rows; `mirror`, when not null, receives a second copy.
void sum_rows(float* dst, float* mirror, std::span<const float* const> rows, std::size_t count, float scale);

}  // namespace volador::collective
