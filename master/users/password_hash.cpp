#include "master/users/password_hash.hpp"

#include <sodium.h>

#include "master/users/sodium.hpp"

namespace volador::master {

PasswordLimits production_password_limits() {
  return {.passes = crypto_pwhash_OPSLIMIT_INTERACTIVE, .memory_bytes = crypto_pwhash_MEMLIMIT_INTERACTIVE};
}

PasswordLimits fastest_password_limits() {
  return {.passes = crypto_pwhash_argon2id_OPSLIMIT_MIN, .memory_bytes = crypto_pwhash_argon2id_MEMLIMIT_MIN};
}

Result<std::string> hash_password(std::string_view password, const PasswordLimits& limits) {
  if (auto ready = ensure_sodium(); !ready) return fail(ready.error());
  char encoded[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(encoded, password.data(), password.size(), limits.passes, limits.memory_bytes,
                            crypto_pwhash_ALG_ARGON2ID13) != 0)
    return fail(Error::resource_exhausted("hashing a password needs " + std::to_string(limits.memory_bytes >> 20) +
                                          " MiB of memory, which the master cannot have now"));
  return std::string(encoded);
}

bool verify_password(std::string_view encoded, std::string_view password) {
  if (!ensure_sodium() || encoded.size() >= crypto_pwhash_STRBYTES) return false;
  const std::string terminated(encoded);  // crypto_pwhash_str_verify reads a C string
  return crypto_pwhash_str_verify(terminated.c_str(), password.data(), password.size()) == 0;
}

}  // namespace volador::master
