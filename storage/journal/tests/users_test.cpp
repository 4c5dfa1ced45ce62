// Users and login tokens in the journal: the same contract for the RocksDB
// and the in-memory journal.
#include <catch2/catch.hpp>

#include "storage/journal/journal.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

UserRecord make_user(std::string name, bool admin) {
  return {.name = std::move(name), .password_hash = "$argon2id$v=19$m=8,t=1,p=1$c2FsdA$aGFzaA", .admin = admin,
          .created_at_ms = 1'700'000'000'000, .disabled = false};
}

TokenRecord make_token(std::string hash, std::string user) {
  return {.token_hash = std::move(hash), .user_name = std::move(user), .created_at_ms = 1'700'000'000'000,
          .expires_at_ms = 1'700'600'000'000, .revoked = false};
}

}  // namespace

TEMPLATE_TEST_CASE("users round-trip and are replaced by name and come back in name order across a reopen", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  REQUIRE(under_test.journal->users()->empty());
  for (const char* name : {"zoe", "admin", "bob.s"}) REQUIRE(under_test.journal->put_user(make_user(name, false)));
  auto promoted = make_user("admin", true);
  promoted.disabled = true;
  REQUIRE(under_test.journal->put_user(promoted));
  under_test.reopen();

  auto admin = under_test.journal->user("admin");
  REQUIRE(admin);
  check_same(*admin, promoted);
  auto all = under_test.journal->users();
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].name == "admin");
  CHECK((*all)[1].name == "bob.s");
  CHECK((*all)[2].name == "zoe");
  CHECK(under_test.journal->user("nobody").error().code == ErrorCode::not_found);
  CHECK(under_test.journal->user("").error().code == ErrorCode::not_found);
}

TEMPLATE_TEST_CASE("tokens round-trip by hash and a revocation replaces the record", "[journal]", RocksdbUnderTest,
                   MemoryUnderTest) {
  TestType under_test;
  REQUIRE(under_test.journal->put_token(make_token("ab01", "admin")));
  REQUIRE(under_test.journal->put_token(make_token("ab02", "bob")));
  auto revoked = make_token("ab01", "admin");
  revoked.revoked = true;
  REQUIRE(under_test.journal->put_token(revoked));
  under_test.reopen();

  auto first = under_test.journal->token("ab01");
  REQUIRE(first);
  check_same(*first, revoked);
  auto second = under_test.journal->token("ab02");
  REQUIRE(second);
  check_same(*second, make_token("ab02", "bob"));
  CHECK(under_test.journal->token("ab0").error().code == ErrorCode::not_found);
}

TEMPLATE_TEST_CASE("a user without a name or a token without a hash is refused and nothing of its batch is written",
                   "[journal]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto nameless = under_test.journal->commit(JournalBatch().put_user(make_user("kept-out", false)).put_user(make_user("", false)));
  REQUIRE_FALSE(nameless);
  CHECK(nameless.error().code == ErrorCode::invalid_argument);
  CHECK(nameless.error().message == "user has an empty name");
  auto hashless = under_test.journal->commit(JournalBatch().put_token(make_token("", "bob")));
  REQUIRE_FALSE(hashless);
  CHECK(hashless.error().message == "token of user 'bob' has an empty hash");
  CHECK(under_test.journal->users()->empty());
}
