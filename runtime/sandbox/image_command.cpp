#include "runtime/sandbox/image_command.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <initializer_list>

namespace volador::sandbox {
namespace {

// The label naming the agent that runs a container.
constexpr const char* kOwnerLabel = "volador.agent";

void add(std::vector<std::string>& args, std::initializer_list<std::string> more) { args.insert(args.end(), more); }

std::string base64(std::string_view bytes) {
  static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const auto byte = [&](std::size_t k) { return i + k < bytes.size() ? static_cast<unsigned char>(bytes[i + k]) : 0u; };
    const unsigned triple = (byte(0) << 16) | (byte(1) << 8) | byte(2);
    for (std::size_t k = 0; k < 4; ++k)
      out += k <= bytes.size() - i ? kAlphabet[(triple >> (18 - 6 * k)) & 0x3f] : '=';
  }
  return out;
}

// The runtime's options that come before `run`: docker reads credentials from a config folder.
std::vector<std::string> global_options(const ImageRun& run) {
  std::vector<std::string> args{run.runtime};
  args.insert(args.end(), run.runtime_options.begin(), run.runtime_options.end());
  if (run.auth_file && run.runtime == "docker") add(args, {"--config", run.auth_file->parent_path().string()});
  return args;
}

void add_container(std::vector<std::string>& args, const ImageRun& run) {
  add(args, {"run", "--rm", "--init", "--name", run.container_name, "--network", "host", "--cap-drop", "ALL",
             "--pull", run.force_pull ? "always" : "missing"});
  if (run.auth_file && run.runtime != "docker") add(args, {"--authfile", run.auth_file->string()});
  if (!run.owner.empty()) add(args, {"--label", std::string(kOwnerLabel) + "=" + run.owner});
  if (run.id_file) add(args, {"--cidfile", run.id_file->string()});
  if (run.memory_bytes > 0) add(args, {"--memory", std::to_string(run.memory_bytes)});
  if (run.max_processes > 0) add(args, {"--pids-limit", std::to_string(run.max_processes)});
  for (const auto& ulimit : run.ulimits) add(args, {"--ulimit", ulimit});
}

void add_sandbox(std::vector<std::string>& args, const SandboxSpec& spec) {
  add(args, {"--shm-size", std::to_string(spec.shm_bytes), "--tmpfs", "/tmp"});
  for (const auto& device : spec.devices) add(args, {"--device", device.string()});
  for (const auto& mount : spec.mounts)
    add(args, {"--volume", mount.host.string() + ":" + mount.inside.string() + (mount.read_only ? ":ro" : "")});
  add(args, {"--workdir", spec.working_dir.string()});
}

}  // namespace

std::vector<std::string> image_command(const SandboxSpec& spec, const ImageRun& run,
                                       const std::vector<std::string>& command) {
  auto args = global_options(run);
  add_container(args, run);
  add_sandbox(args, spec);
  for (const auto& name : run.variables) add(args, {"--env", name});
  if (!command.empty()) add(args, {"--entrypoint", command.front()});
  args.push_back(run.image);
  if (!command.empty()) args.insert(args.end(), command.begin() + 1, command.end());
  return args;
}

std::vector<std::string> container_removal_command(const std::string& runtime, const std::string& name) {
  if (runtime == "docker") return {runtime, "rm", "--force", name};
  return {runtime, "rm", "--force", "--ignore", "--time", "0", name};
}

std::vector<std::string> owned_containers_command(const std::string& runtime, const std::string& owner) {
  return {runtime, "ps", "--all", "--quiet", "--no-trunc", "--filter", std::string("label=") + kOwnerLabel + "=" + owner};
}

std::string registry_auth_file(const RegistryLogin& login) {
  nlohmann::json auth;
  auth["auths"][login.serveraddress]["auth"] = base64(login.username + ":" + login.password);
  return auth.dump(2) + "\n";
}

std::filesystem::path auth_file_in(const std::filesystem::path& folder) { return folder / "config.json"; }

}  // namespace volador::sandbox
