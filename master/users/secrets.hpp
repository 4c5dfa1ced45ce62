#pragma once
// Random secrets and how tokens are stored: a token is 32 random bytes given
// to the user as URL-safe base64 text, and kept by the master only as the
// hex of its BLAKE2b hash, so the journal holds nothing that logs anyone in.
// Thread-safe.

#include <string>
#include <string_view>

namespace volador::master {

// A new token: 32 bytes from libsodium's CSPRNG, URL-safe base64 without padding (43 characters).
std::string new_token();
// A new password for the first admin: 18 random bytes, URL-safe base64 (24 characters).
std::string new_password();
// The hex of the 32-byte BLAKE2b hash (crypto_generichash) of the token's text.
std::string token_hash(std::string_view token);

}  // namespace volador::master
