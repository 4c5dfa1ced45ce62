#include "runtime/net/basp_frame_guard.hpp"

#include <algorithm>

namespace volador::net {
namespace {
constexpr std::size_t kOperationOffset = 0, kFlagsOffset = 3, kPayloadLenOffset = 4, kPayloadLenBytes = 4;
}  // namespace

bool BaspFrameGuard::admit(std::span<const std::byte> bytes) {
  while (!tripped_ && !bytes.empty()) {
    if (payload_left_ > 0) {
      const auto taken = static_cast<std::size_t>(std::min<std::uint64_t>(payload_left_, bytes.size()));
      if (observer_ && payload_head_.size() < kBaspFrameHeadBytes) {
        const auto kept = std::min(taken, kBaspFrameHeadBytes - payload_head_.size());
        payload_head_.insert(payload_head_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(kept));
      }
      payload_left_ -= taken;
      bytes = bytes.subspan(taken);
      if (payload_left_ == 0 && !complete_frame()) tripped_ = true;
      continue;
    }
    const std::size_t at = header_bytes_seen_++;
    header_[at] = bytes.front();
    if (at >= kPayloadLenOffset && at < kPayloadLenOffset + kPayloadLenBytes)
      payload_len_ = (payload_len_ << 8) | std::to_integer<std::uint32_t>(bytes.front());
    bytes = bytes.subspan(1);
    if (at + 1 == kPayloadLenOffset + kPayloadLenBytes && payload_len_ > max_payload_) {
      refused_payload_ = payload_len_;
      tripped_ = true;
    } else if (at + 1 == kBaspHeaderBytes) {
      payload_left_ = payload_len_;
      header_bytes_seen_ = 0;
      if (payload_left_ == 0 && !complete_frame()) tripped_ = true;
    }
  }
  return !tripped_;
}

bool BaspFrameGuard::complete_frame() {
  const BaspFrame frame{std::to_integer<std::uint8_t>(header_[kOperationOffset]),
                        std::to_integer<std::uint8_t>(header_[kFlagsOffset]), payload_len_, payload_head_};
  const bool admitted = !observer_ || observer_(frame);
  payload_head_.clear();
  payload_len_ = 0;
  if (!admitted) {
    refused_frame_ = true;
    return false;
  }
  ++complete_frames_;
  return true;
}

}  // namespace volador::net
