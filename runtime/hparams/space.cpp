#include "runtime/hparams/space.hpp"

#include <algorithm>

namespace volador::hparams {

bool is_constant(const Space& space) {
  return std::ranges::all_of(space, [](const auto& entry) {
    const auto& param = entry.second.param;
    if (const auto* nested = std::get_if<Space>(&param)) return is_constant(*nested);
    return std::holds_alternative<ConstParam>(param);
  });
}

}  // namespace volador::hparams
