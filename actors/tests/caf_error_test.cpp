#include <catch2/catch.hpp>

#include "actors/caf_error.hpp"

using namespace volador;
using namespace volador::actors;

TEST_CASE("Every error code survives the trip through caf::error, the first one included") {
  for (auto code : {ErrorCode::invalid_argument, ErrorCode::not_found, ErrorCode::io, ErrorCode::internal}) {
    auto e = to_caf_error(Error{code, "what went wrong"});
    REQUIRE(static_cast<bool>(e));  // code 0 would read as "no error"
    auto back = from_caf_error(e);
    CHECK(back.code == code);
    CHECK(back.message == "what went wrong");
  }
}
