#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "runtime/core/hex.hpp"
#include "runtime/core/random_bytes.hpp"

using namespace volador;

TEST_CASE("random_hex gives lowercase hex of the asked length, different each time") {
  const std::string first = random_hex(16);
  CHECK(first.size() == 32);
  CHECK(from_hex(first));
  CHECK(random_hex(16) != first);
  CHECK(random_hex(0).empty());
}

TEST_CASE("fill_random fills a span longer than one getrandom call may return") {
  std::vector<unsigned char> bytes(1 << 20, 0);
  fill_random(bytes);
  // A megabyte of random bytes has every byte value; zeros left by a short fill would show in the count.
  const auto zeros = std::count(bytes.begin(), bytes.end(), 0);
  CHECK(zeros < 8192);
  CHECK(zeros > 0);
}
