#pragma once
// Slows password guessing: after `free_failures` failed logins under one key
// (a user name, or a peer address) every further attempt under it must wait:
// first_delay_ms after the next failure, doubling with each failure up to
// max_delay_ms. A success under a key forgets its failures. Keys are
// counted whether or not the user exists, so a refusal tells nothing about
// who exists. Pure (time is passed in); not thread-safe (UserDirectory locks).

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace volador::master {

struct ThrottlePolicy {
  std::uint32_t free_failures = 5;
  std::int64_t first_delay_ms = 1000;
  std::int64_t max_delay_ms = 60'000;
  std::size_t max_keys = 10'000;  // beyond it, keys whose wait is over are forgotten
};

class LoginThrottle {
 public:
  explicit LoginThrottle(ThrottlePolicy policy = {}) : policy_(policy) {}

  // When an attempt under `key` at `now_ms` must wait: the time (ms) from
  // which it may try again; nullopt when it may try now.
  [[nodiscard]] std::optional<std::int64_t> retry_at(std::string_view key, std::int64_t now_ms) const;
  // An attempt under `key` failed at `now_ms`.
  void failed(const std::string& key, std::int64_t now_ms);
  // An attempt under `key` succeeded: its failures are forgotten.
  void succeeded(std::string_view key);
  // How many keys have failures remembered.
  [[nodiscard]] std::size_t keys() const { return failures_.size(); }

 private:
  struct Failures {
    std::uint32_t count = 0;
    std::int64_t retry_at_ms = 0;  // 0: no wait
  };
  void forget_expired(std::int64_t now_ms);

  ThrottlePolicy policy_;
  std::map<std::string, Failures, std::less<>> failures_;
};

}  // namespace volador::master
