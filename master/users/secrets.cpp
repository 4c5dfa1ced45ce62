#include "master/users/secrets.hpp"

#include <sodium.h>

#include <array>

#include "master/users/sodium.hpp"

namespace volador::master {
namespace {

// `Bytes` random bytes as URL-safe base64 without padding.
template <std::size_t Bytes>
std::string random_text() {
  (void)ensure_sodium();  // randombytes_buf works (and blocks for entropy) even when init failed
  std::array<unsigned char, Bytes> bytes{};
  randombytes_buf(bytes.data(), bytes.size());
  constexpr int kVariant = sodium_base64_VARIANT_URLSAFE_NO_PADDING;
  std::string text(sodium_base64_ENCODED_LEN(Bytes, kVariant), '\0');
  sodium_bin2base64(text.data(), text.size(), bytes.data(), bytes.size(), kVariant);
  text.resize(text.size() - 1);  // the terminating NUL
  sodium_memzero(bytes.data(), bytes.size());
  return text;
}

}  // namespace

std::string new_token() { return random_text<32>(); }
std::string new_password() { return random_text<18>(); }

std::string token_hash(std::string_view token) {
  (void)ensure_sodium();
  std::array<unsigned char, crypto_generichash_BYTES> hash{};
  crypto_generichash(hash.data(), hash.size(), reinterpret_cast<const unsigned char*>(token.data()), token.size(),
                     nullptr, 0);
  std::string hex(hash.size() * 2 + 1, '\0');
  sodium_bin2hex(hex.data(), hex.size(), hash.data(), hash.size());
  hex.resize(hash.size() * 2);
  return hex;
}

}  // namespace volador::master
