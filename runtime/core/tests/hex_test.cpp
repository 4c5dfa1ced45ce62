#include <catch2/catch.hpp>

#include "runtime/core/hex.hpp"

using namespace volador;

TEST_CASE("Bytes go to lowercase hex and back, and malformed hex is refused") {
  const std::string bytes("\x00\x01\x7f\x80\xff", 5);
  CHECK(to_hex(bytes) == "00017f80ff");
  CHECK(from_hex("00017f80ff") == bytes);
  CHECK(from_hex("") == std::string());
  for (const char* bad : {"0", "0g", "AB", "0 "}) CHECK_FALSE(from_hex(bad));
}
