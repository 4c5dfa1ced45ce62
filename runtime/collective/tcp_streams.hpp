#pragma once
// The TCP backend's transfer engine: one-way byte streams over nonblocking
// sockets, all driven by one poll loop, so that sending, receiving and
// reducing overlap. A send stream may be gated on a receive stream: beyond
// its `lead` it only sends as many bytes as the gate has received and
// folded, which is how the ring forwards a block piece by piece while it is
// still arriving. Every stream starts with the sender's CallHeader, which the
// receiver checks against its own.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "runtime/collective/call_header.hpp"
#include "runtime/collective/wait_policy.hpp"
#include "runtime/core/error.hpp"

namespace volador::collective {

// Received bytes are copied into `dst`, or (add) dst = (dst + bytes as floats) * scale.
struct RecvPart {
  std::span<std::byte> dst;
  bool add = false;
  float scale = 1.0f;
};

struct RecvStream {
  int fd = -1;
  int peer = -1;  // rank, for messages
  CallHeader expected;
  std::vector<RecvPart> parts;
  std::span<float> scratch;  // staging for `add` parts; required when any part adds
  // Engine state: bytes received and folded so far.
  CallHeader got{};
  std::size_t header_done = 0, part = 0, part_done = 0, staged = 0, done = 0, total = 0;
};

struct SendStream {
  int fd = -1;
  int peer = -1;
  CallHeader header;
  std::vector<std::span<const std::byte>> parts;
  std::size_t lead = std::numeric_limits<std::size_t>::max();  // sendable regardless of the gate
  const RecvStream* gate = nullptr;  // when set, gate->done more bytes are sendable
  // Engine state: bytes sent so far.
  std::size_t header_done = 0, part = 0, part_done = 0, done = 0, total = 0;
};

// Runs every stream to its end, waiting as wait_policy.hpp describes. Errors: unavailable when a peer closes its connection or
// nothing moves for `stall`; invalid_argument when a peer's header differs
// from the expected one.
[[nodiscard]] Status pump(std::span<SendStream> sends, std::span<RecvStream> recvs, std::chrono::milliseconds stall,
                          SpinPolicy& spin);

}  // namespace volador::collective
