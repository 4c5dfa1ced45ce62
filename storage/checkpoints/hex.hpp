#pragma once
// Internal to volador_checkpoints: bytes as lowercase hex text.

#include <span>
#include <string>

namespace volador::checkpoints {

inline std::string to_hex(std::span<const unsigned char> bytes) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    text += kHex[byte >> 4];
    text += kHex[byte & 0x0f];
  }
  return text;
}

}  // namespace volador::checkpoints
