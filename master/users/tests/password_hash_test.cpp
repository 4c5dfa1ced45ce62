#include <catch2/catch.hpp>

#include "master/users/password_hash.hpp"

using namespace volador::master;

TEST_CASE("An Argon2id hash verifies its password and no other and two hashes of one password differ") {
  auto hash = hash_password("correct horse", fastest_password_limits());
  REQUIRE(hash);
  CHECK(hash->starts_with("$argon2id$"));
  CHECK(verify_password(*hash, "correct horse"));
  CHECK_FALSE(verify_password(*hash, "correct hors"));
  CHECK_FALSE(verify_password(*hash, ""));
  auto again = hash_password("correct horse", fastest_password_limits());
  REQUIRE(again);
  CHECK(*again != *hash);  // a fresh salt each time
}

TEST_CASE("A hash made with other limits still verifies and a malformed one never does") {
  auto production = hash_password("s3cret-pass", production_password_limits());
  REQUIRE(production);
  CHECK(production->find("m=65536") != std::string::npos);
  CHECK(verify_password(*production, "s3cret-pass"));
  CHECK_FALSE(verify_password("", "s3cret-pass"));
  CHECK_FALSE(verify_password("$argon2id$v=19$garbage", "s3cret-pass"));
  CHECK_FALSE(verify_password(std::string(200, 'x'), "s3cret-pass"));
}
