#include "runtime/collective/shm_layout.hpp"

#include <algorithm>
#include <string>

namespace volador::collective {

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kPreferredSlotBytes = 256 << 10;
constexpr std::size_t kMinBlockBytes = 4 << 10;
constexpr int kDepth = 2;

std::size_t round_up(std::size_t x, std::size_t to) { return (x + to - 1) / to * to; }

}  // namespace

std::size_t ShmGeometry::control_bytes() const {
  return round_up(sizeof(ShmHeader) + sizeof(ShmRankLine) * static_cast<std::size_t>(ranks), kPage);
}

std::size_t ShmGeometry::total_bytes() const {
  return control_bytes() + slot_bytes * static_cast<std::size_t>(depth) * static_cast<std::size_t>(ranks);
}

std::size_t ShmGeometry::slot_offset(int rank, int buffer) const {
  return control_bytes() + slot_bytes * (static_cast<std::size_t>(rank) * static_cast<std::size_t>(depth) +
                                         static_cast<std::size_t>(buffer));
}

Result<ShmGeometry> plan_geometry(int ranks, std::size_t limit_bytes) {
  ShmGeometry g{ranks, kDepth, 0};
  const auto n = static_cast<std::size_t>(ranks);
  const std::size_t smallest = kMinBlockBytes * n;
  const std::size_t room = limit_bytes > g.control_bytes() ? limit_bytes - g.control_bytes() : 0;
  const std::size_t fitting = room / (n * kDepth) / kCacheLine * kCacheLine;
  g.slot_bytes = std::min(std::max(kPreferredSlotBytes, smallest), fitting);
  if (g.slot_bytes < smallest) {
    return fail(Error::resource_exhausted("a shared-memory group of " + std::to_string(ranks) + " ranks needs " +
                                          std::to_string(ShmGeometry{ranks, kDepth, smallest}.total_bytes()) +
                                          " bytes, the limit is " + std::to_string(limit_bytes)));
  }
  return g;
}

}  // namespace volador::collective
