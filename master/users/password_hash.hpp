#pragma once
// Password hashes: libsodium's Argon2id (crypto_pwhash_str_alg), stored as
// its encoded string ("$argon2id$v=19$m=...,t=...,p=1$salt$hash"), which
// carries the limits it was made with, so a hash verifies whatever limits
// are configured later. Thread-safe.

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"

namespace volador::master {

// Argon2id's cost: passes over memory and the memory used, per hash.
struct PasswordLimits {
  unsigned long long passes = 0;
  std::size_t memory_bytes = 0;
};

// libsodium's "interactive" limits (2 passes over 64 MiB, ~0.1 s here): what
// the master uses. Logins are also throttled (login_throttle.hpp).
PasswordLimits production_password_limits();
// libsodium's minimum limits: for tests only, where thousands of hashes run.
PasswordLimits fastest_password_limits();

// The encoded Argon2id hash of `password` with a fresh random salt.
// resource_exhausted when the memory cannot be had.
Result<std::string> hash_password(std::string_view password, const PasswordLimits& limits);

// Whether `password` matches `encoded` (false for a malformed `encoded`).
bool verify_password(std::string_view encoded, std::string_view password);

}  // namespace volador::master
