#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "storage/checkpoints/uuid.hpp"

using namespace volador::checkpoints;

TEST_CASE("new_uuid makes distinct RFC 4122 version 4 uuids") {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    auto uuid = new_uuid();
    REQUIRE(uuid.has_value());
    REQUIRE(is_uuid(*uuid));
    CHECK((*uuid)[14] == '4');
    CHECK(std::string("89ab").find((*uuid)[19]) != std::string::npos);
    seen.insert(*uuid);
  }
  CHECK(seen.size() == 1000);
}

TEST_CASE("is_uuid accepts only the canonical lowercase text form") {
  CHECK(is_uuid("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
  CHECK(is_uuid("00000000-0000-0000-0000-000000000000"));
  for (const char* bad : {"", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "a0eebc999c0b4ef8bb6d6bb9bd380a11",
                          "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a111",
                          "a0eebc99-9c0b-4ef8-bb6d_6bb9bd380a11", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
                          "../../../../../../../../etc/passwd00"}) {
    CAPTURE(bad);
    CHECK_FALSE(is_uuid(bad));
  }
}
