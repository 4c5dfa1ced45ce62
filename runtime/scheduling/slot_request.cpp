#include "runtime/scheduling/slot_request.hpp"

#include <cmath>
#include <string>

namespace volador::scheduling {

Status validate_share(const ExperimentShare& share) {
  if (share.pool.empty()) return fail(Error::invalid_argument("resources.resource_pool: a pool name must not be empty"));
  if (share.priority < kMostImportantPriority || share.priority > kLeastImportantPriority)
    return fail(Error::invalid_argument("resources.priority: " + std::to_string(share.priority) + " is outside " +
                                        std::to_string(kMostImportantPriority) + ".." +
                                        std::to_string(kLeastImportantPriority) + " (lower is more important)"));
  if (!std::isfinite(share.weight) || share.weight <= 0)
    return fail(Error::invalid_argument("resources.weight: " + std::to_string(share.weight) + " is not a positive number"));
  return {};
}

}  // namespace volador::scheduling
