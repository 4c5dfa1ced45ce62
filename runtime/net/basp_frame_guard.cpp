#include "runtime/net/basp_frame_guard.hpp"

#include <algorithm>

namespace volador::net {
namespace {
constexpr std::size_t kPayloadLenOffset = 4, kPayloadLenBytes = 4;
}  // namespace

bool BaspFrameGuard::admit(std::span<const std::byte> bytes) {
  while (!tripped_ && !bytes.empty()) {
    if (payload_left_ > 0) {
      const auto skipped = static_cast<std::size_t>(std::min<std::uint64_t>(payload_left_, bytes.size()));
      payload_left_ -= skipped;
      bytes = bytes.subspan(skipped);
      if (payload_left_ == 0) ++complete_frames_;
      continue;
    }
    const std::size_t at = header_bytes_seen_++;
    if (at >= kPayloadLenOffset && at < kPayloadLenOffset + kPayloadLenBytes)
      payload_len_ = (payload_len_ << 8) | std::to_integer<std::uint32_t>(bytes.front());
    bytes = bytes.subspan(1);
    if (at + 1 == kPayloadLenOffset + kPayloadLenBytes && payload_len_ > max_payload_) {
      refused_payload_ = payload_len_;
      tripped_ = true;
    } else if (at + 1 == kBaspHeaderBytes) {
      payload_left_ = payload_len_;
      if (payload_left_ == 0) ++complete_frames_;
      payload_len_ = 0;
      header_bytes_seen_ = 0;
    }
  }
  return !tripped_;
}

}  // namespace volador::net
