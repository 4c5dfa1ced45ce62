#include "master/users/ownership.hpp"

#include <fmt/format.h>

namespace volador::master {

std::string owner_of(const storage::ExperimentRecord& experiment) {
  return experiment.owner.empty() ? std::string(kFirstAdmin) : experiment.owner;
}

Status check_may_change(const User& user, const storage::ExperimentRecord& experiment, std::string_view what) {
  const std::string owner = owner_of(experiment);
  if (user.admin || user.name == owner) return {};
  return fail(Error::permission_denied(fmt::format("experiment {} belongs to '{}': only its owner or an admin can {} it",
                                                   experiment.id, owner, what)));
}

}  // namespace volador::master
