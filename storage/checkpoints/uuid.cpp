#include "storage/checkpoints/uuid.hpp"

#include <openssl/rand.h>

#include <algorithm>
#include <array>

#include "runtime/core/hex.hpp"

namespace volador::checkpoints {
namespace {

constexpr std::array<std::size_t, 4> kDashes{8, 13, 18, 23};  // offsets in the text form
constexpr std::size_t kTextLength = 36;

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

}  // namespace

Result<std::string> new_uuid() {
  std::array<unsigned char, 16> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    return fail(Error::internal("the random source failed while making a checkpoint uuid"));
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);  // version 4
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // RFC 4122 variant
  std::string text = to_hex(bytes);
  for (std::size_t dash : kDashes) text.insert(dash, 1, '-');
  return text;
}

bool is_uuid(std::string_view text) {
  if (text.size() != kTextLength) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool dash = std::ranges::find(kDashes, i) != kDashes.end();
    if (dash ? text[i] != '-' : !is_lower_hex(text[i])) return false;
  }
  return true;
}

}  // namespace volador::checkpoints
