#include "runtime/sandbox/container_runtime.hpp"

#include <algorithm>

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

namespace volador::sandbox {
namespace {

// The lines of `text`, without their '\n'.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto end = text.find('\n');
    lines.push_back(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
  }
  return lines;
}

}  // namespace

std::vector<std::string> podman_runtime_options(bool hybrid_cgroups, bool runc_available) {
  if (hybrid_cgroups && runc_available) return {"--runtime", "runc"};
  return {};
}

Status podman_init_available(bool default_init_present, const std::vector<std::string>& containers_confs) {
  if (default_init_present) return {};
  for (const auto& conf : containers_confs)
    for (auto line : lines_of(conf)) {
      line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
      if (line.starts_with("init_path") && line.find('=') != std::string_view::npos) return {};
    }
  return fail(Error::unavailable("podman cannot start a container with --init: its init " +
                                 std::string(kPodmanDefaultInit) +
                                 " is missing and no containers.conf names another (init_path); install "
                                 "catatonit (apt-get install catatonit)"));
}

std::vector<std::string> runtime_probe_command(const std::string& runtime) {
  return {runtime, "version", "--format", runtime == "docker" ? "{{.Server.Version}}" : "{{.Client.Version}}"};
}

bool hybrid_cgroups(std::string_view mountinfo) {
  bool v1 = false, v2 = false;
  for (const auto line : lines_of(mountinfo)) {
    const auto dash = line.find(" - ");  // then: the file system type, its source, its options
    if (dash == std::string_view::npos) continue;
    const auto type = line.substr(dash + 3, line.find(' ', dash + 3) - (dash + 3));
    v1 = v1 || type == "cgroup";
    v2 = v2 || type == "cgroup2";
  }
  return v1 && v2;
}

std::vector<std::string> container_ulimits(Rlimit nofile, Rlimit nproc, std::uint64_t pid_max) {
  const auto pair = [](Rlimit limit) { return std::to_string(limit.soft) + ":" + std::to_string(limit.hard); };
  if (pid_max > 0) nproc = {std::min(nproc.soft, pid_max), std::min(nproc.hard, pid_max)};
  return {"nofile=" + pair(nofile), "nproc=" + pair(nproc)};
}

}  // namespace volador::sandbox
