#include "runtime/collective/call_header.hpp"

#include <array>

namespace volador::collective {

CallHeader make_header(CallOp op, int root, std::uint32_t seq, std::uint64_t bytes, DType type) {
  return {static_cast<std::uint32_t>(op) | (static_cast<std::uint32_t>(type) << 8) | (static_cast<std::uint32_t>(root) << 16),
          seq, bytes};
}

std::string describe(const CallHeader& h) {
  static constexpr std::array<const char*, 5> kNames{"?", "allreduce(sum)", "allreduce(avg)", "broadcast", "barrier"};
  const std::uint32_t op = h.tag & 0xff;
  std::string name = op < kNames.size() ? kNames[op] : "?";
  const auto type = static_cast<DType>((h.tag >> 8) & 0xff);
  if (type != DType::f32 && name.ends_with(")")) name.insert(name.size() - 1, ", " + std::string(dtype_name(type)));
  if (op == static_cast<std::uint32_t>(CallOp::broadcast)) name += " from rank " + std::to_string(h.tag >> 16);
  return name + " #" + std::to_string(h.seq) + " of " + std::to_string(h.bytes) + " bytes";
}

}  // namespace volador::collective
