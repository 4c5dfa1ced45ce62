#include <catch2/catch.hpp>

#include <time.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "master/users/secrets.hpp"
#include "master/users/user_directory.hpp"

using namespace volador;
using namespace volador::master;

namespace {

constexpr std::int64_t kStart = 1'700'000'000'000;
constexpr std::int64_t kHour = 3600 * 1000;

// A directory on a memory journal with a clock the test moves, its first admin made.
struct Fixture {
  std::shared_ptr<storage::Journal> journal = storage::Journal::in_memory();
  std::shared_ptr<std::int64_t> now = std::make_shared<std::int64_t>(kStart);
  UserDirectory users{journal, UserDirectoryOptions{.clock = [now = now] { return *now; },
                                                    .password_limits = fastest_password_limits(),
                                                    .token_lifetime_ms = 24 * kHour,
                                                    .throttle = {}}};
  User admin;

  Fixture() {
    REQUIRE(users.ensure_admin("first-admin-pass") == true);
    admin = login("admin", "first-admin-pass").user;
  }

  wire::LoginReply login(const std::string& name, const std::string& password, const std::string& peer = "") {
    auto reply = users.login(name, password, peer);
    REQUIRE(reply);
    return *reply;
  }
};

void check_unauthenticated(const Error& error, const std::string& message) {
  CHECK(error.code == ErrorCode::unauthenticated);
  CHECK(error.message == message);
}

// The CPU time this thread has used (a hash's cost, whatever else the host runs).
std::chrono::nanoseconds thread_cpu_time() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

// Limits that make one hash cost well over a second of CPU: 40 passes over 64 MiB.
constexpr PasswordLimits kCostlyLimits{.passes = 40, .memory_bytes = 64ULL << 20};

}  // namespace

TEST_CASE("First start makes the admin once and a second call with another password changes nothing") {
  Fixture f;
  CHECK(f.admin.name == "admin");
  CHECK(f.admin.admin);
  CHECK(f.users.ensure_admin("another-password") == false);
  CHECK(f.users.login("admin", "another-password", "").error().code == ErrorCode::unauthenticated);
  auto none = std::make_shared<UserDirectory>(storage::Journal::in_memory(),
                                              UserDirectoryOptions{.password_limits = fastest_password_limits()});
  auto refused = none->ensure_admin("short");
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
}

TEST_CASE("A login gives a token that authenticates its user until it expires and the journal keeps only its hash") {
  Fixture f;
  REQUIRE(f.users.create_user(f.admin, "bob", "bob-password", false));
  auto login = f.login("bob", "bob-password");
  CHECK(login.user.name == "bob");
  CHECK_FALSE(login.user.admin);
  CHECK(login.expires_at_ms == kStart + 24 * kHour);
  CHECK(login.token.size() == 43);
  auto stored = f.journal->token(token_hash(login.token));
  REQUIRE(stored);
  CHECK(stored->user_name == "bob");
  CHECK_FALSE(f.journal->token(login.token));

  auto who = f.users.authenticate(login.token);
  REQUIRE(who);
  CHECK(who->name == "bob");
  *f.now = kStart + 24 * kHour - 1;
  CHECK(f.users.authenticate(login.token));
  *f.now = kStart + 24 * kHour;
  check_unauthenticated(f.users.authenticate(login.token).error(), "missing, invalid or expired token");
}

TEST_CASE("Wrong name and wrong password and a disabled user give the same error with no detail") {
  Fixture f;
  REQUIRE(f.users.create_user(f.admin, "bob", "bob-password", false));
  auto disabled = f.journal->user("bob");
  REQUIRE(disabled);
  struct Case {
    std::string name, password;
  };
  for (const auto& c : std::vector<Case>{{"nobody", "bob-password"}, {"bob", "wrong-password"}, {"bob", ""},
                                         {"", "bob-password"}, {"admin", "bob-password"}}) {
    INFO(c.name << " / " << c.password);
    check_unauthenticated(f.users.login(c.name, c.password, "").error(), "wrong user name or password");
  }
  auto token = f.login("bob", "bob-password").token;
  disabled->disabled = true;
  REQUIRE(f.journal->put_user(*disabled));
  check_unauthenticated(f.users.login("bob", "bob-password", "").error(), "wrong user name or password");
  check_unauthenticated(f.users.authenticate(token).error(), "missing, invalid or expired token");
}

TEST_CASE("Tokens that are empty or unknown or altered or logged out are refused and logout needs a valid token") {
  Fixture f;
  auto token = f.login("admin", "first-admin-pass").token;
  auto other = f.login("admin", "first-admin-pass").token;
  std::string altered = token;
  altered[0] = altered[0] == 'A' ? 'B' : 'A';
  for (const std::string& bad : {std::string(), std::string("x"), altered, new_token()})
    check_unauthenticated(f.users.authenticate(bad).error(), "missing, invalid or expired token");
  REQUIRE(f.users.logout(token));
  check_unauthenticated(f.users.authenticate(token).error(), "missing, invalid or expired token");
  check_unauthenticated(f.users.logout(token).error(), "missing, invalid or expired token");
  CHECK(f.users.authenticate(other));  // only the one logged out
}

TEST_CASE("Only admins create and list users and names and passwords are checked") {
  Fixture f;
  auto bob = f.users.create_user(f.admin, "bob", "bob-password", false);
  REQUIRE(bob);
  struct Case {
    User by;
    std::string name, password;
    ErrorCode code;
    std::string message;
  };
  const std::vector<Case> cases{
      {*bob, "carol", "carol-password", ErrorCode::permission_denied, "only an admin can create users (you are 'bob')"},
      {f.admin, "Carol", "carol-password", ErrorCode::invalid_argument,
       "user name 'Carol': use only a-z, 0-9, '_', '.' and '-'"},
      {f.admin, "", "carol-password", ErrorCode::invalid_argument, "a user name has 1 to 32 characters, '' has 0"},
      {f.admin, std::string(33, 'a'), "carol-password", ErrorCode::invalid_argument,
       "a user name has 1 to 32 characters, '" + std::string(33, 'a') + "' has 33"},
      {f.admin, "car ol", "carol-password", ErrorCode::invalid_argument,
       "user name 'car ol': use only a-z, 0-9, '_', '.' and '-'"},
      {f.admin, "carol", "1234567", ErrorCode::invalid_argument, "a password has at least 8 characters"},
      {f.admin, "carol", std::string(1025, 'p'), ErrorCode::invalid_argument, "a password has at most 1024 characters"},
      {f.admin, "bob", "bob-password", ErrorCode::already_exists, "user 'bob' exists"},
  };
  for (const auto& c : cases) {
    INFO(c.name);
    auto refused = f.users.create_user(c.by, c.name, c.password, false);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == c.code);
    CHECK(refused.error().message == c.message);
  }
  auto carol = f.users.create_user(f.admin, "carol.b-2_x", "12345678", true);
  REQUIRE(carol);
  CHECK(carol->admin);
  CHECK(carol->created_at_ms == kStart);

  auto listed = f.users.list_users(f.admin);
  REQUIRE(listed);
  std::vector<std::string> names;
  for (const auto& u : listed->users) names.push_back(u.name);
  CHECK(names == std::vector<std::string>{"admin", "bob", "carol.b-2_x"});
  CHECK(f.users.list_users(*bob).error().code == ErrorCode::permission_denied);
}

TEST_CASE("Failed logins are throttled per name and per peer whether the user exists or not and a success resets") {
  Fixture f;
  REQUIRE(f.users.create_user(f.admin, "bob", "bob-password", false));
  for (const std::string name : {"bob", "ghost"}) {
    INFO(name);
    for (int i = 0; i < 5; ++i) CHECK(f.users.login(name, "wrong-guess", "").error().code == ErrorCode::unauthenticated);
    auto throttled = f.users.login(name, name == "bob" ? "bob-password" : "x", "");
    REQUIRE_FALSE(throttled);
    CHECK(throttled.error().code == ErrorCode::resource_exhausted);
    CHECK(throttled.error().message == "too many failed logins: try again in 1 s");
  }
  *f.now += 1000;
  CHECK(f.users.login("bob", "wrong-guess", "").error().code == ErrorCode::unauthenticated);
  CHECK(f.users.login("bob", "bob-password", "").error().message == "too many failed logins: try again in 2 s");
  *f.now += 2000;
  f.login("bob", "bob-password");  // resets bob
  CHECK(f.users.login("bob", "wrong-guess", "").error().code == ErrorCode::unauthenticated);
  f.login("bob", "bob-password");

  // One peer guessing many names is slowed too.
  for (int i = 0; i < 5; ++i) (void)f.users.login("name" + std::to_string(i), "guess", "10.0.0.9");
  CHECK(f.users.login("admin", "first-admin-pass", "10.0.0.9").error().code == ErrorCode::resource_exhausted);
  f.login("admin", "first-admin-pass", "10.0.0.10");
}

// A master starting on a loaded host spent most of its start-up CPU on a
// stand-in hash made in the constructor (seen: masters 10+ s late to listen).
TEST_CASE("A directory hashes nothing until asked and an unknown name's login costs what a known name's does") {
  std::shared_ptr<storage::Journal> journal = storage::Journal::in_memory();
  const auto before = thread_cpu_time();
  UserDirectory users{journal, UserDirectoryOptions{.password_limits = kCostlyLimits}};
  CHECK(thread_cpu_time() - before < std::chrono::milliseconds(300));
  REQUIRE(users.ensure_admin("first-admin-pass") == true);
  const auto known_start = thread_cpu_time();
  CHECK_FALSE(users.login("admin", "wrong-password", ""));
  const auto known = thread_cpu_time() - known_start;
  const auto unknown_start = thread_cpu_time();
  CHECK_FALSE(users.login("nobody", "first-admin-pass", ""));
  const auto unknown = thread_cpu_time() - unknown_start;
  INFO("known name: " << known.count() << " ns, unknown name: " << unknown.count() << " ns");
  CHECK(unknown > known / 2);
  CHECK(unknown < known * 2);
}
