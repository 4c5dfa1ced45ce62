#include "runtime/scheduling/placement.hpp"

namespace volador::scheduling {

std::uint32_t Allocation::slots() const {
  std::uint32_t total = 0;
  for (const auto& placement : placements) total += placement.slots();
  return total;
}

}  // namespace volador::scheduling
