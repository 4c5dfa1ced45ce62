#pragma once
// Follows the CAF BASP frames of one connection's incoming bytes and says
// when a frame's header announces a payload above a cap. CAF 0.17 has no
// setting that bounds a frame: once it has read a 32-byte header it resizes
// (allocates and zero-fills) its read buffer to the announced payload_len,
// up to 4 GiB, on the multiplexer thread, before a byte of the payload has
// come. openssl_interposers.cpp runs every decrypted read through a guard
// and fails the read that would complete such a header, so CAF never sees it.
//
// Frame layout (caf/io/basp/header.hpp, network byte order): operation (1),
// padding (2), flags (1), payload_len (4), operation_data (8), source and
// destination actor ids (8 each), then payload_len bytes of payload.
// Not thread-safe: one guard per connection, fed by the thread that reads it.

#include <cstddef>
#include <cstdint>
#include <span>

namespace volador::net {

inline constexpr std::size_t kBaspHeaderBytes = 32;

class BaspFrameGuard {
 public:
  explicit BaspFrameGuard(std::uint32_t max_payload) : max_payload_(max_payload) {}

  // Takes the next bytes read from the connection, in order. False when they
  // complete a payload_len field above the cap, and for every call after
  // that (the stream is no longer followed: the connection must be closed).
  bool admit(std::span<const std::byte> bytes);

  // The payload_len of the header that tripped the guard (0 while it has not).
  [[nodiscard]] std::uint32_t refused_payload() const { return refused_payload_; }
  // Frames (header and payload) read completely so far.
  [[nodiscard]] std::uint64_t complete_frames() const { return complete_frames_; }

 private:
  std::uint32_t max_payload_;
  std::size_t header_bytes_seen_ = 0;    // of the current header, while in one
  std::uint32_t payload_len_ = 0;        // of the current header, filled byte by byte
  std::uint64_t payload_left_ = 0;       // of the current frame's payload
  std::uint32_t refused_payload_ = 0;
  std::uint64_t complete_frames_ = 0;
  bool tripped_ = false;
};

}  // namespace volador::net
