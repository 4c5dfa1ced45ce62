#include "runtime/sandbox/container_runtime.hpp"

namespace volador::sandbox {

Result<ContainerRuntimeChoice> parse_container_runtime_choice(std::string_view text) {
  if (text == "none") return ContainerRuntimeChoice::none;
  if (text == "auto") return ContainerRuntimeChoice::automatic;
  if (text == "podman") return ContainerRuntimeChoice::podman;
  if (text == "docker") return ContainerRuntimeChoice::docker;
  return fail(Error::invalid_argument("--container-runtime: expected none, auto, podman or docker, got '" +
                                      std::string(text) + "'"));
}

std::vector<std::string> runtime_candidates(ContainerRuntimeChoice choice) {
  switch (choice) {
    case ContainerRuntimeChoice::none: return {};
    case ContainerRuntimeChoice::automatic: return {"podman", "docker"};
    case ContainerRuntimeChoice::podman: return {"podman"};
    case ContainerRuntimeChoice::docker: return {"docker"};
  }
  return {};
}

}  // namespace volador::sandbox
