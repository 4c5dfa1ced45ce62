#include <catch2/catch.hpp>

#include "runtime/net/local_address.hpp"

using namespace volador;
using namespace volador::net;

TEST_CASE("The local address towards loopback is loopback") {
  CHECK(local_address_towards({"127.0.0.1", 17080}).value() == "127.0.0.1");
  CHECK(local_address_towards({"localhost", 0}).has_value());
}

TEST_CASE("An unresolvable peer is an error naming it") {
  auto r = local_address_towards({"no-such-host.invalid", 1});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == ErrorCode::unavailable);
  CHECK(r.error().message.find("no-such-host.invalid:1") != std::string::npos);
}
