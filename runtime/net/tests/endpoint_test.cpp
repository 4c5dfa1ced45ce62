#include <catch2/catch.hpp>

#include "runtime/net/endpoint.hpp"

using namespace volador::net;

TEST_CASE("Master endpoints parse with defaults for host and port") {
  CHECK(parse_endpoint("10.0.0.5:9000")->to_string() == "10.0.0.5:9000");
  CHECK(parse_endpoint(":9000")->to_string() == "127.0.0.1:9000");
  CHECK(parse_endpoint("example")->port == kDefaultMasterPort);
}

TEST_CASE("Bad ports are refused with the text quoted") {
  for (auto bad : {"h:0", "h:65536", "h:http", "h:", "h:12x"}) {
    auto r = parse_endpoint(bad);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().message.find(bad) != std::string::npos);
  }
}

TEST_CASE("Port 0 is accepted only for an address to listen on") {
  CHECK_FALSE(parse_endpoint("127.0.0.1:0").has_value());
  CHECK(parse_endpoint("127.0.0.1:0", true)->port == 0);
}
