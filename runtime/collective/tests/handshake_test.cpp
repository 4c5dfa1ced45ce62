#include <catch2/catch.hpp>

#include "runtime/collective/handshake.hpp"
#include "runtime/collective/socket.hpp"

using namespace volador::collective;

TEST_CASE("constant_time_equal compares contents and lengths") {
  CHECK(constant_time_equal("secret", "secret"));
  CHECK_FALSE(constant_time_equal("secret", "secreT"));
  CHECK_FALSE(constant_time_equal("secret", "secret2"));
  CHECK_FALSE(constant_time_equal("secret", "secre"));
  CHECK_FALSE(constant_time_equal("secret", ""));
  CHECK_FALSE(constant_time_equal("abab", "ab"));  // a repeating prefix is not equal
}

TEST_CASE("Endpoints print and parse, IPv6 in brackets") {
  CHECK(Endpoint{"127.0.0.1", 80}.to_string() == "127.0.0.1:80");
  CHECK(Endpoint{"::1", 9}.to_string() == "[::1]:9");
  CHECK(parse_endpoint("[::1]:9").value() == Endpoint{"::1", 9});
  CHECK(parse_endpoint("host.example:65535").value() == Endpoint{"host.example", 65535});
  CHECK_FALSE(parse_endpoint("nohost").has_value());
  CHECK_FALSE(parse_endpoint("h:0").has_value());
  CHECK_FALSE(parse_endpoint("h:65536").has_value());
  CHECK_FALSE(parse_endpoint("h:12x").has_value());
  CHECK_FALSE(parse_endpoint(":80").has_value());
}
