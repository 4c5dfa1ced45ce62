#pragma once
// The element types a reduction understands. Half types (float16, bfloat16)
// travel and rest as 2-byte IEEE / brain-float bit patterns; backends reduce
// them by accumulating in float32 and rounding once, to nearest-even.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::collective {

enum class DType : std::uint8_t { f32 = 0, f16 = 1, bf16 = 2 };

[[nodiscard]] constexpr std::size_t element_bytes(DType type) { return type == DType::f32 ? 4 : 2; }

[[nodiscard]] constexpr std::string_view dtype_name(DType type) {
  switch (type) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
  }
  return "?";
}

// Ok when `data` holds whole elements of `type` and is aligned to one;
// otherwise invalid_argument saying which.
[[nodiscard]] Status check_elements(std::span<const std::byte> data, DType type);

}  // namespace volador::collective
