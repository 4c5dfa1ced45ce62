#include "master/users/user_directory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "master/users/secrets.hpp"
#include "storage/journal/durable_reads.hpp"

namespace volador::master {
namespace {

constexpr std::size_t kMaxNameLength = 32;
constexpr std::size_t kMinPasswordLength = 8;
constexpr std::size_t kMaxPasswordLength = 1024;

Error wrong_credentials() { return Error::unauthenticated("wrong user name or password"); }
Error bad_token() { return Error::unauthenticated("missing, invalid or expired token"); }

User user_of(const storage::UserRecord& record) {
  return {.name = record.name, .admin = record.admin, .created_at_ms = record.created_at_ms,
          .disabled = record.disabled};
}

Status require_admin(const User& by, std::string_view what) {
  if (by.admin) return {};
  return fail(Error::permission_denied("only an admin can " + std::string(what) + " (you are '" + by.name + "')"));
}

bool name_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

}  // namespace

std::string user_name_problem(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength)
    return fmt::format("a user name has 1 to {} characters, '{}' has {}", kMaxNameLength, name, name.size());
  if (!std::ranges::all_of(name, name_character))
    return fmt::format("user name '{}': use only a-z, 0-9, '_', '.' and '-'", name);
  return {};
}

std::string password_problem(std::string_view password) {
  if (password.size() < kMinPasswordLength)
    return fmt::format("a password has at least {} characters", kMinPasswordLength);
  if (password.size() > kMaxPasswordLength)
    return fmt::format("a password has at most {} characters", kMaxPasswordLength);
  return {};
}

UserDirectory::UserDirectory(std::shared_ptr<storage::Journal> journal, UserDirectoryOptions options)
    : journal_(std::move(journal)), options_(std::move(options)), throttle_(options_.throttle) {}

std::string UserDirectory::stand_in_hash() {
  if (auto admin = journal_->user(kFirstAdmin)) return admin->password_hash;
  std::lock_guard lock(mutex_);
  // A hash that no password matches is fine here: only its cost matters.
  if (made_stand_in_.empty()) made_stand_in_ = hash_password(new_password(), options_.password_limits).value_or("");
  return made_stand_in_;
}

Result<wire::LoginReply> UserDirectory::login(std::string_view name, std::string_view password,
                                              std::string_view peer) {
  const std::int64_t now = options_.clock();
  const std::string name_key = "user:" + std::string(name);
  const std::string peer_key = "peer:" + std::string(peer);
  {
    std::lock_guard lock(mutex_);
    const auto wait_until = std::max(throttle_.retry_at(name_key, now).value_or(0),
                                     peer.empty() ? 0 : throttle_.retry_at(peer_key, now).value_or(0));
    if (wait_until > now)
      return fail(Error::resource_exhausted(
          fmt::format("too many failed logins: try again in {} s", (wait_until - now + 999) / 1000)));
  }
  auto record = journal_->user(name);
  if (!record && record.error().code != ErrorCode::not_found) return fail(record.error());
  const bool matches = verify_password(record ? record->password_hash : stand_in_hash(), password);
  if (!record || !matches || record->disabled) return fail(failed_login(name_key, peer.empty() ? "" : peer_key, now));
  {
    std::lock_guard lock(mutex_);
    throttle_.succeeded(name_key);
    if (!peer.empty()) throttle_.succeeded(peer_key);
  }
  wire::LoginReply reply{.token = new_token(), .expires_at_ms = now + options_.token_lifetime_ms,
                         .user = user_of(*record)};
  storage::TokenRecord token{.token_hash = token_hash(reply.token), .user_name = record->name, .created_at_ms = now,
                             .expires_at_ms = reply.expires_at_ms, .revoked = false};
  if (auto stored = journal_->put_token(token); !stored) return fail(stored.error());
  return reply;
}

Error UserDirectory::failed_login(const std::string& name_key, const std::string& peer_key, std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  throttle_.failed(name_key, now_ms);
  if (!peer_key.empty()) throttle_.failed(peer_key, now_ms);
  return wrong_credentials();
}

Result<User> UserDirectory::authenticate(std::string_view token) const {
  if (token.empty()) return fail(bad_token());
  const storage::DurableReads written_only;  // tokens and users are written before their answers
  auto stored = journal_->token(token_hash(token));
  if (!stored) return fail(stored.error().code == ErrorCode::not_found ? bad_token() : stored.error());
  if (stored->revoked || stored->expires_at_ms <= options_.clock()) return fail(bad_token());
  auto user = journal_->user(stored->user_name);
  if (!user) return fail(user.error().code == ErrorCode::not_found ? bad_token() : user.error());
  if (user->disabled) return fail(bad_token());
  return user_of(*user);
}

Status UserDirectory::logout(std::string_view token) {
  if (auto user = authenticate(token); !user) return fail(user.error());
  auto stored = journal_->token(token_hash(token));
  if (!stored) return fail(stored.error());
  stored->revoked = true;
  return journal_->put_token(*stored);
}

Result<User> UserDirectory::create_user(const User& by, std::string_view name, std::string_view password, bool admin) {
  if (auto allowed = require_admin(by, "create users"); !allowed) return fail(allowed.error());
  std::lock_guard lock(mutex_);
  return create_locked(name, password, admin);
}

Result<User> UserDirectory::create_locked(std::string_view name, std::string_view password, bool admin) {
  if (auto problem = user_name_problem(name); !problem.empty()) return fail(Error::invalid_argument(problem));
  if (auto problem = password_problem(password); !problem.empty()) return fail(Error::invalid_argument(problem));
  auto existing = journal_->user(name);
  if (existing) return fail(Error::already_exists("user '" + std::string(name) + "' exists"));
  if (existing.error().code != ErrorCode::not_found) return fail(existing.error());
  auto hash = hash_password(password, options_.password_limits);
  if (!hash) return fail(hash.error());
  storage::UserRecord record{.name = std::string(name), .password_hash = std::move(*hash), .admin = admin,
                             .created_at_ms = options_.clock(), .disabled = false};
  if (auto stored = journal_->put_user(record); !stored) return fail(stored.error());
  return user_of(record);
}

Result<wire::UserList> UserDirectory::list_users(const User& by) const {
  if (auto allowed = require_admin(by, "list users"); !allowed) return fail(allowed.error());
  auto records = journal_->users();
  if (!records) return fail(records.error());
  wire::UserList list;
  for (const auto& record : *records) list.users.push_back(user_of(record));
  return list;
}

Result<bool> UserDirectory::ensure_admin(std::string_view password) {
  std::lock_guard lock(mutex_);
  auto users = journal_->users();
  if (!users) return fail(users.error());
  if (!users->empty()) return false;
  auto created = create_locked(kFirstAdmin, password, true);
  if (!created) return fail(created.error());
  return true;
}

}  // namespace volador::master
