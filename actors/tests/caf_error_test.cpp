#include <catch2/catch.hpp>

#include <caf/atom.hpp>
#include <caf/make_message.hpp>

#include "actors/caf_error.hpp"

using namespace volador;
using namespace volador::actors;

TEST_CASE("Every error code survives the trip through caf::error, the first one included") {
  for (auto code : {ErrorCode::invalid_argument, ErrorCode::not_found, ErrorCode::already_exists, ErrorCode::io,
                    ErrorCode::corruption, ErrorCode::unavailable, ErrorCode::resource_exhausted,
                    ErrorCode::internal, ErrorCode::unauthenticated, ErrorCode::permission_denied}) {
    auto e = to_caf_error(Error{code, "what went wrong"});
    REQUIRE(static_cast<bool>(e));  // code 0 would read as "no error"
    auto back = from_caf_error(e);
    CHECK(back.code == code);
    CHECK(back.message == "what went wrong");
  }
}

TEST_CASE("An error code this build does not know arrives as internal with its message") {
  caf::error unknown(static_cast<std::uint8_t>(200), caf::atom("volador"), caf::make_message(std::string("newer")));
  auto back = from_caf_error(unknown);
  CHECK(back.code == ErrorCode::internal);
  CHECK(back.message.find("newer") != std::string::npos);
}
