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
// With an observer, it also shows each complete frame (its header and the
// head of its payload) before the read that completes it is handed on, and
// refuses the frames the observer refuses (peer_identities.hpp).

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace volador::net {

inline constexpr std::size_t kBaspHeaderBytes = 32;
// The most payload bytes a frame observer sees of a frame: every node id
// CAF writes in a handshake or at the start of a routed message fits.
inline constexpr std::size_t kBaspFrameHeadBytes = 256;

// One complete frame, as an observer sees it.
struct BaspFrame {
  std::uint8_t operation = 0;  // caf/io/basp/message_type.hpp
  std::uint8_t flags = 0;
  std::uint32_t payload_len = 0;
  std::span<const std::byte> payload_head;  // the first kBaspFrameHeadBytes of the payload at most
};

// True when the frame may reach CAF.
using BaspFrameObserver = std::function<bool(const BaspFrame&)>;

class BaspFrameGuard {
 public:
  explicit BaspFrameGuard(std::uint32_t max_payload, BaspFrameObserver observer = {})
      : max_payload_(max_payload), observer_(std::move(observer)) {}

  // Takes the next bytes read from the connection, in order. False when they
  // complete a payload_len field above the cap or a frame the observer
  // refuses, and for every call after that (the stream is no longer
  // followed: the connection must be closed).
  bool admit(std::span<const std::byte> bytes);

  // The payload_len of the header that tripped the guard (0 while it has not, or when the observer did).
  [[nodiscard]] std::uint32_t refused_payload() const { return refused_payload_; }
  // Whether the observer refused a frame.
  [[nodiscard]] bool refused_frame() const { return refused_frame_; }
  // Frames (header and payload) read completely so far.
  [[nodiscard]] std::uint64_t complete_frames() const { return complete_frames_; }

 private:
  // Ends the current frame: shown to the observer, counted. False when the observer refuses it.
  bool complete_frame();

  std::uint32_t max_payload_;
  BaspFrameObserver observer_;
  std::array<std::byte, kBaspHeaderBytes> header_{};  // the current frame's
  std::size_t header_bytes_seen_ = 0;    // of the current header, while in one
  std::uint32_t payload_len_ = 0;        // of the current header, filled byte by byte
  std::uint64_t payload_left_ = 0;       // of the current frame's payload
  std::vector<std::byte> payload_head_;  // of the current frame's payload, kept for an observer
  std::uint32_t refused_payload_ = 0;
  bool refused_frame_ = false;
  std::uint64_t complete_frames_ = 0;
  bool tripped_ = false;
};

}  // namespace volador::net
