#pragma once
// Bytes as lowercase hex text, and back.

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace volador {

inline constexpr std::string_view kHexDigits = "0123456789abcdef";

// Two lowercase hex digits per byte.
inline std::string to_hex(std::span<const unsigned char> bytes) {
  std::string text;
  text.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    text += kHexDigits[byte >> 4];
    text += kHexDigits[byte & 0x0f];
  }
  return text;
}

inline std::string to_hex(std::string_view bytes) {
  return to_hex(std::span(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size()));
}

// The bytes of `hex`; nullopt when it is not an even run of lowercase hex digits.
inline std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const auto high = kHexDigits.find(hex[i]);
    const auto low = kHexDigits.find(hex[i + 1]);
    if (high == std::string_view::npos || low == std::string_view::npos) return std::nullopt;
    bytes.push_back(static_cast<char>((high << 4) | low));
  }
  return bytes;
}

}  // namespace volador
