#include <catch2/catch.hpp>

#include "master/users/ownership.hpp"

using namespace volador;
using namespace volador::master;

TEST_CASE("Owners and admins may change an experiment and others get permission_denied naming the owner") {
  storage::ExperimentRecord mine{.id = 7, .owner = "bob"};
  storage::ExperimentRecord legacy{.id = 3, .owner = ""};
  const User bob{.name = "bob", .admin = false};
  const User carol{.name = "carol", .admin = false};
  const User root{.name = "root", .admin = true};

  CHECK(owner_of(mine) == "bob");
  CHECK(owner_of(legacy) == "admin");
  CHECK(check_may_change(bob, mine, "pause"));
  CHECK(check_may_change(root, mine, "kill"));
  auto refused = check_may_change(carol, mine, "pause");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::permission_denied);
  CHECK(refused.error().message == "experiment 7 belongs to 'bob': only its owner or an admin can pause it");
  CHECK_FALSE(check_may_change(bob, legacy, "kill"));
  CHECK(check_may_change(User{.name = "admin", .admin = false}, legacy, "kill"));
  CHECK(check_may_change(root, legacy, "kill"));
}
