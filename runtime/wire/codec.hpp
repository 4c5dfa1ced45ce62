#pragma once
// Encoding of control messages to Cap'n Proto bytes (standard framing, or
// packed) and back. Bytes is std::vector<char> because CAF carries it without any type
// registration. decode() never throws: malformed or oversized input gives an
// Error (corruption) naming the message type.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::wire {

using Bytes = std::vector<char>;

// Largest message decode() accepts; archives dominate (96 MiB + framing).
inline constexpr std::size_t kMaxMessageBytes = 128u << 20;

template <class Message>
Bytes encode(const Message& message);

template <class Message>
Result<Message> decode(const Bytes& bytes);

// The message in Cap'n Proto's packed encoding (runs of zero bytes
// squeezed), for keeping many records compactly in memory; unpack() reads
// it back, with decode()'s errors for malformed input.
template <class Message>
std::string pack(const Message& message);

template <class Message>
Result<Message> unpack(std::string_view packed);

}  // namespace volador::wire
