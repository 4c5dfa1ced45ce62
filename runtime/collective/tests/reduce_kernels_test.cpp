#include <catch2/catch.hpp>

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
