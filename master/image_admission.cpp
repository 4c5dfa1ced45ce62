#include "master/image_admission.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace volador::master {

std::vector<std::string> image_fields(const config::Environment& environment) {
  std::vector<std::string> set;
  if (!environment.image.empty()) set.emplace_back("image");
  if (environment.force_pull_image) set.emplace_back("force_pull_image");
  if (environment.registry_auth) set.emplace_back("registry_auth");
  return set;
}

bool needs_images(const config::Environment& environment) { return !image_fields(environment).empty(); }

Status check_image_runs(const std::string& pool, const std::vector<wire::AgentInfo>& agents,
                        const std::vector<std::string>& fields) {
  if (fields.empty()) return {};
  if (std::ranges::any_of(agents, [](const wire::AgentInfo& agent) { return !agent.container_runtime.empty(); }))
    return {};
  return fail(Error::invalid_argument(
      fmt::format("environment.{0}: no agent in pool {1} can run images; remove environment.{0} or install podman",
                  fields.front(), pool)));
}

}  // namespace volador::master
