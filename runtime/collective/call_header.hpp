#pragma once
// Which collective call a rank is in: every backend sends or posts one with
// its data, and a rank that sees a different one from a peer reports both
// calls instead of mixing the data of different calls.

#include <cstdint>
#include <string>

#include "runtime/collective/element_type.hpp"

namespace volador::collective {

enum class CallOp : std::uint8_t { allreduce_sum = 1, allreduce_avg, broadcast, barrier };

struct CallHeader {
  std::uint32_t tag = 0;    // CallOp | DType << 8 | root << 16
  std::uint32_t seq = 0;    // call number within the communicator
  std::uint64_t bytes = 0;  // the call's buffer size
  friend bool operator==(const CallHeader&, const CallHeader&) = default;
};
static_assert(sizeof(CallHeader) == 16);

[[nodiscard]] CallHeader make_header(CallOp op, int root, std::uint32_t seq, std::uint64_t bytes,
                                     DType type = DType::f32);
// "allreduce(sum, bf16) #7 of 4096 bytes", for error messages (f32 unnamed).
[[nodiscard]] std::string describe(const CallHeader& h);

}  // namespace volador::collective
