#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/collective/reduce_kernels.hpp"

using namespace volador::collective;

TEST_CASE("add_into adds and scales every element, at any length and offset") {
  for (std::size_t count : {0UL, 1UL, 15UL, 16UL, 17UL, 1000UL, 4099UL}) {
    for (std::size_t offset : {0UL, 1UL, 3UL}) {
      std::vector<float> dst(count + offset + 1, -7.0f), src(count + offset);
      for (std::size_t i = 0; i < dst.size(); ++i) dst[i] = static_cast<float>(i);
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = 0.5f * static_cast<float>(i);
      add_into(dst.data() + offset, src.data() + offset, count, 0.25f);
      for (std::size_t i = 0; i < dst.size(); ++i) {
        const bool inside = i >= offset && i < offset + count;
        CHECK(dst[i] == (inside ? (static_cast<float>(i) + 0.5f * static_cast<float>(i)) * 0.25f : static_cast<float>(i)));
      }
    }
  }
}

TEST_CASE("sum_rows adds rows in row order, tile by tile") {
  for (std::size_t rows_n : {1UL, 2UL, 3UL, 8UL}) {
    for (std::size_t count : {0UL, 5UL, 2048UL, 2049UL, 5000UL}) {
      std::vector<std::vector<float>> rows(rows_n, std::vector<float>(count));
      std::vector<const float*> pointers;
      for (std::size_t r = 0; r < rows_n; ++r) {
        for (std::size_t i = 0; i < count; ++i) rows[r][i] = 1.0f / static_cast<float>(1 + r + i % 7);
        pointers.push_back(rows[r].data());
      }
      std::vector<float> out(count + 1, 42.0f), mirror(count + 1, 43.0f);
      sum_rows(out.data(), mirror.data(), pointers, count, 0.5f);
      std::vector<float> expected(count);
      for (std::size_t i = 0; i < count; ++i) {
        expected[i] = rows[0][i];
        for (std::size_t r = 1; r < rows_n; ++r) expected[i] += rows[r][i];
        CHECK(out[i] == expected[i] * 0.5f);
        CHECK(mirror[i] == expected[i] * 0.5f);
      }
      CHECK(out[count] == 42.0f);
      CHECK(mirror[count] == 43.0f);
      sum_rows(rows.back().data(), nullptr, pointers, count, 0.5f);  // into one of the rows
      for (std::size_t i = 0; i < count; ++i) CHECK(rows.back()[i] == expected[i] * 0.5f);
    }
  }
}

namespace {

// Nearest-even rounding of `x` to a float with `bits` explicit mantissa bits
// and the same exponent range as float32: the bfloat16 reference, in doubles.
float round_mantissa(float x, int bits) {
  if (std::isnan(x) || std::isinf(x) || x == 0.0f) return x;
  int e = 0;
  std::frexp(static_cast<double>(x), &e);
  const double quantum = std::ldexp(1.0, std::max(e - 1, -126) - bits);
  return static_cast<float>(std::nearbyint(static_cast<double>(x) / quantum) * quantum);
}

// Floats that exercise every conversion path: each power of two's
// neighbourhood, the f16 ties and overflow edge, subnormals, specials.
std::vector<float> probe_floats() {
  std::vector<float> out{0.0f, -0.0f, 65504.0f, 65519.99f, 65520.0f, 65536.0f, 1e30f, -1e-30f,
                         std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()};
  for (int e = -30; e <= 17; ++e) {
    for (std::uint32_t m = 0; m < (1u << 23); m += 4093) {
      const float f = std::ldexp(1.0f + static_cast<float>(m) * 0x1p-23f, e);
      out.push_back(f);
      out.push_back(-f);
    }
    const std::uint32_t base = std::bit_cast<std::uint32_t>(std::ldexp(1.0f, e));
    for (std::uint32_t low : {0x0fffu, 0x1000u, 0x1001u, 0x3000u, 0x7fffu, 0x8000u, 0x8001u, 0x18000u}) {
      out.push_back(std::bit_cast<float>(base + low));
    }
  }
  return out;
}

}  // namespace

#if defined(__FLT16_MAX__)  // the compiler's _Float16 is the reference
TEST_CASE("f16 widening is exact for all 65536 patterns") {
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float got = f16_to_float(bits);
    const float want = static_cast<float>(std::bit_cast<_Float16>(bits));
    if (std::isnan(want)) {
      CHECK(std::isnan(got));
    } else {
      CHECK(std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(want));
    }
  }
}

TEST_CASE("f16 narrowing rounds to nearest-even like the compiler's _Float16") {
  for (float f : probe_floats()) {
    const auto want = std::bit_cast<std::uint16_t>(static_cast<_Float16>(f));
    INFO(f << " = 0x" << std::hex << std::bit_cast<std::uint32_t>(f));
    CHECK(float_to_f16(f) == want);
  }
  CHECK((float_to_f16(std::numeric_limits<float>::quiet_NaN()) & 0x7c00u) == 0x7c00u);
  CHECK((float_to_f16(std::numeric_limits<float>::quiet_NaN()) & 0x03ffu) != 0u);
}
#endif

TEST_CASE("bf16 conversions: exact widening, nearest-even narrowing, NaN kept") {
  for (float f : probe_floats()) {
    INFO(f << " = 0x" << std::hex << std::bit_cast<std::uint32_t>(f));
    const float rounded = round_mantissa(f, 7);
    const float got = bf16_to_float(float_to_bf16(f));
    CHECK(std::bit_cast<std::uint32_t>(got) == std::bit_cast<std::uint32_t>(rounded));
  }
  CHECK(bf16_to_float(float_to_bf16(std::numeric_limits<float>::max())) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(bf16_to_float(float_to_bf16(std::bit_cast<float>(0x7f800001u)))));  // low payload bits only
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    if (!std::isnan(bf16_to_float(bits))) CHECK(float_to_bf16(bf16_to_float(bits)) == bits);
  }
}

TEST_CASE("half sum_rows accumulates in float32 and rounds once, in row order") {
  for (DType type : {DType::f16, DType::bf16}) {
    auto to_float = type == DType::f16 ? f16_to_float : bf16_to_float;
    auto to_half = type == DType::f16 ? float_to_f16 : float_to_bf16;
    for (std::size_t rows_n : {1UL, 2UL, 5UL, 8UL}) {
      for (std::size_t count : {0UL, 1UL, 255UL, 256UL, 257UL, 3001UL}) {
        std::vector<std::vector<std::uint16_t>> rows(rows_n, std::vector<std::uint16_t>(count));
        std::vector<const std::byte*> pointers;
        for (std::size_t r = 0; r < rows_n; ++r) {
          for (std::size_t i = 0; i < count; ++i) rows[r][i] = to_half(1.0f / static_cast<float>(1 + r + i % 11) - 0.3f);
          pointers.push_back(reinterpret_cast<const std::byte*>(rows[r].data()));
        }
        std::vector<std::uint16_t> out(count + 1, 0xabcd), mirror(count + 1, 0xdcba);
        sum_rows(type, reinterpret_cast<std::byte*>(out.data()), reinterpret_cast<std::byte*>(mirror.data()), pointers,
                 count, 0.25f);
        std::vector<std::uint16_t> expected(count);
        for (std::size_t i = 0; i < count; ++i) {
          float acc = to_float(rows[0][i]);
          for (std::size_t r = 1; r < rows_n; ++r) acc += to_float(rows[r][i]);
          expected[i] = to_half(acc * 0.25f);
          CHECK(out[i] == expected[i]);
          CHECK(mirror[i] == expected[i]);
        }
        CHECK(out[count] == 0xabcd);
        CHECK(mirror[count] == 0xdcba);
        sum_rows(type, reinterpret_cast<std::byte*>(rows.back().data()), nullptr, pointers, count, 0.25f);
        for (std::size_t i = 0; i < count; ++i) CHECK(rows.back()[i] == expected[i]);
      }
    }
  }
}

TEST_CASE("widen and narrow convert whole buffers like the scalar functions") {
  std::vector<float> src(1000);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = std::ldexp(static_cast<float>(i) - 499.7f, static_cast<int>(i % 40) - 25);
  for (DType type : {DType::f16, DType::bf16}) {
    std::vector<std::uint16_t> half(src.size() + 1, 0x1234);
    narrow(reinterpret_cast<std::byte*>(half.data()), src.data(), src.size(), type);
    std::vector<float> back(src.size() + 1, -5.0f);
    widen(back.data(), reinterpret_cast<const std::byte*>(half.data()), src.size(), type);
    for (std::size_t i = 0; i < src.size(); ++i) {
      CHECK(half[i] == (type == DType::f16 ? float_to_f16(src[i]) : float_to_bf16(src[i])));
      CHECK(back[i] == (type == DType::f16 ? f16_to_float(half[i]) : bf16_to_float(half[i])));
    }
    CHECK(half.back() == 0x1234);
    CHECK(back.back() == -5.0f);
  }
}
