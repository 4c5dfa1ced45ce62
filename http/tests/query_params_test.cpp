#include <catch2/catch.hpp>

#include "http/query_params.hpp"

using namespace volador;
using volador::http::QueryParams;

TEST_CASE("A query parameter the route does not know is refused by name") {
  auto read = QueryParams::read({{"limit", "5"}, {"colour", "red"}}, {"limit", "offset"});
  REQUIRE_FALSE(read);
  CHECK(read.error().code == ErrorCode::invalid_argument);
  CHECK_THAT(read.error().message, Catch::Contains("'colour'") && Catch::Contains("limit, offset"));
}

TEST_CASE("A query parameter given twice is refused") {
  auto read = QueryParams::read({{"limit", "5"}, {"limit", "6"}}, {"limit"});
  REQUIRE_FALSE(read);
  CHECK_THAT(read.error().message, Catch::Contains("more than once"));
}

TEST_CASE("Integers are read whole and within their range") {
  auto read = QueryParams::read({{"limit", "25"}, {"offset", "7x"}, {"big", "5000"}}, {"limit", "offset", "big", "none"});
  REQUIRE(read);
  CHECK(read->integer("limit", 50, 1, 100).value() == 25);
  CHECK(read->integer("none", 50).value() == 50);
  auto bad = read->integer("offset", 0);
  REQUIRE_FALSE(bad);
  CHECK_THAT(bad.error().message, Catch::Contains("'offset'") && Catch::Contains("'7x'"));
  CHECK_FALSE(read->integer("big", 0, 1, 1000));
}

TEST_CASE("Choices and booleans accept only their values") {
  auto read = QueryParams::read({{"kind", "TRAINING"}, {"flag", "yes"}}, {"kind", "flag"});
  REQUIRE(read);
  CHECK(read->choice("kind", {"TRAINING", "VALIDATION"}, "VALIDATION").value() == "TRAINING");
  CHECK_FALSE(read->choice("kind", {"VALIDATION"}, "VALIDATION"));
  CHECK_FALSE(read->boolean("flag", false));
  CHECK(read->boolean("other", true).value());
}
