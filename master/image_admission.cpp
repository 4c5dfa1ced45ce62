#include "master/image_admission.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace volador::master {

std::vector<std::string> image_fields(const config::Environment& environment) {
  std::vector<std::string> set;
  if (!environment.image.empty()) set.emplace_back("image");
  if (environment.force_pull_image) set.emplace_back("force_pull_image");
  if (environment.registry_auth) set.emplace_back("registry_auth");
  return set;
}

Status check_image_runs(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                        const std::vector<std::string>& fields) {
  if (fields.empty()) return {};
  std::vector<std::string> without;
  for (const auto& agent : agents)
    if (agent.container_runtime.empty()) without.push_back(agent.agent_id);
  if (agents.empty() || without.size() == agents.size())
    return fail(Error::invalid_argument(fmt::format(
        "environment.{0}: no agent in pool {1} can run images; remove environment.{0} or install podman", fields.front(),
        pool)));
  if (without.empty()) return {};
  return fail(Error::invalid_argument(fmt::format(
      "environment.{0}: agent(s) {1} of pool {2} cannot run images, and the pool's trials may go to any of its agents; "
      "install podman there, or run the experiment in a pool whose agents all can (resources.resource_pool)",
      fields.front(), fmt::join(without, ", "), pool)));
}

}  // namespace volador::master
