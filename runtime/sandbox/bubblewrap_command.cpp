#include "runtime/sandbox/bubblewrap_command.hpp"

#include <initializer_list>

namespace volador::sandbox {
namespace {

void add(std::vector<std::string>& args, std::initializer_list<std::string> more) {
  args.insert(args.end(), more);
}

// The host's system, read-only, with its secrets hidden; /proc, /dev, the rank's own /dev/shm and /tmp.
void add_system(std::vector<std::string>& args, const SandboxSpec& spec) {
  for (const auto& folder : spec.system_folders) add(args, {"--ro-bind", folder.string(), folder.string()});
  for (const auto& folder : spec.masked_folders) add(args, {"--tmpfs", folder.string()});
  for (const auto& file : spec.masked_files) add(args, {"--ro-bind", "/dev/null", file.string()});
  add(args, {"--proc", "/proc", "--dev", "/dev"});
  for (const auto& device : spec.devices) add(args, {"--dev-bind", device.string(), device.string()});
  add(args, {"--perms", "1777", "--size", std::to_string(spec.shm_bytes), "--tmpfs", "/dev/shm"});
  add(args, {"--perms", "1777", "--tmpfs", "/tmp"});
}

}  // namespace

std::vector<std::string> bubblewrap_command(const SandboxSpec& spec, const std::vector<std::string>& command) {
  std::vector<std::string> args{"bwrap",         "--die-with-parent", "--unshare-pid", "--unshare-ipc",
                                "--unshare-cgroup-try", "--cap-drop", "ALL"};
  add_system(args, spec);
  for (const auto& mount : spec.mounts)
    add(args, {mount.read_only ? "--ro-bind" : "--bind", mount.host.string(), mount.inside.string()});
  add(args, {"--chdir", spec.working_dir.string()});
  for (const auto& name : spec.hidden_variables) add(args, {"--unsetenv", name});
  args.emplace_back("--");
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

}  // namespace volador::sandbox
