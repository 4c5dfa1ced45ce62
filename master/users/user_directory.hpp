#pragma once
// The cluster's users and their login tokens, over the master's journal: the
// one facade that the gateway (actor RPC) and the HTTP server use. Users
// have a name, an Argon2id password hash and an admin flag; a login hands
// out a random token (stored only as its hash) that expires and can be
// revoked. Wrong credentials of any kind give one `unauthenticated` error
// that says nothing more; failed logins are throttled per name and per peer.
// Thread-safe; time comes from the injected Clock.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "master/users/login_throttle.hpp"
#include "master/users/password_hash.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

// Who a token belongs to (name and admin flag matter; schemas/control.capnp UserInfo).
using User = wire::UserInfo;

inline constexpr std::int64_t kDefaultTokenLifetimeMs = 7LL * 24 * 3600 * 1000;  // 7 days
// The user that `ensure_admin` creates, and owner of experiments from before users.
inline constexpr std::string_view kFirstAdmin = "admin";

struct UserDirectoryOptions {
  Clock clock = system_now_ms;
  PasswordLimits password_limits = production_password_limits();
  std::int64_t token_lifetime_ms = kDefaultTokenLifetimeMs;
  ThrottlePolicy throttle;
};

class UserDirectory {
 public:
  explicit UserDirectory(std::shared_ptr<storage::Journal> journal, UserDirectoryOptions options = {});

  // Checks `password` for user `name` and journals a new token. `peer` (an
  // address; may be empty) is throttled besides the name. An unknown name's
  // password is checked against a stored user's hash, so that it costs what
  // a known name's does. Errors:
  // unauthenticated "wrong user name or password" (unknown or disabled user,
  // wrong password: the same text, in about the same time);
  // resource_exhausted "too many failed logins: try again in N s" while
  // throttled; io from the journal.
  [[nodiscard]] Result<wire::LoginReply> login(std::string_view name, std::string_view password,
                                               std::string_view peer);
  // The user a token logs in. unauthenticated "missing, invalid or expired
  // token" for an empty, unknown, revoked or expired token, or one of a
  // disabled or deleted user. Reads only what is written (never waits behind
  // the journal's queued writes: users and tokens are written synchronously).
  [[nodiscard]] Result<User> authenticate(std::string_view token) const;
  // Revokes the token (logout): it is refused from now on. unauthenticated as authenticate.
  [[nodiscard]] Status logout(std::string_view token);
  // Creates a user; `by` must be an admin (else permission_denied). Errors:
  // invalid_argument for a name outside [a-z0-9_.-]{1,32} or a password of
  // fewer than 8 or more than 1024 characters; already_exists for a taken name.
  [[nodiscard]] Result<User> create_user(const User& by, std::string_view name, std::string_view password, bool admin);
  // Every user by name; `by` must be an admin (else permission_denied).
  [[nodiscard]] Result<wire::UserList> list_users(const User& by) const;
  // First start: when no user exists, creates the admin `kFirstAdmin` with
  // `password` and returns true; false (and nothing changes) when a user exists.
  // invalid_argument for a password create_user would refuse.
  [[nodiscard]] Result<bool> ensure_admin(std::string_view password);

 private:
  Result<User> create_locked(std::string_view name, std::string_view password, bool admin);
  // The hash an unknown name's password is checked against: the first
  // admin's, else (no such user) one made on the first call. Never made at
  // construction: the master hashes nothing when it starts up.
  std::string stand_in_hash();
  // unauthenticated after a failed attempt, counted under both keys.
  Error failed_login(const std::string& name_key, const std::string& peer_key, std::int64_t now_ms);

  std::shared_ptr<storage::Journal> journal_;
  UserDirectoryOptions options_;
  std::string made_stand_in_;  // stand_in_hash() when no first admin is stored
  mutable std::mutex mutex_;   // the throttle, creating users, made_stand_in_
  LoginThrottle throttle_;
};

// Why `name` cannot be a user name (empty when it can): [a-z0-9_.-]{1,32}.
std::string user_name_problem(std::string_view name);
// Why `password` cannot be a password (empty when it can): 8 to 1024 characters.
std::string password_problem(std::string_view password);

}  // namespace volador::master
