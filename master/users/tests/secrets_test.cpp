#include <catch2/catch.hpp>

#include <set>

#include "master/users/secrets.hpp"

using namespace volador::master;

TEST_CASE("Tokens are 43 URL-safe characters all different and passwords 24") {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    auto token = new_token();
    CHECK(token.size() == 43);
    CHECK(token.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") == std::string::npos);
    seen.insert(token);
  }
  CHECK(seen.size() == 200);
  CHECK(new_password().size() == 24);
}

TEST_CASE("A token's hash is 64 hex digits the same for the same token and different for another") {
  const auto hash = token_hash("abc");
  CHECK(hash.size() == 64);
  CHECK(hash.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(token_hash("abc") == hash);
  CHECK(token_hash("abd") != hash);
  // BLAKE2b-256 of "abc", from the reference implementation.
  CHECK(hash == "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
}
