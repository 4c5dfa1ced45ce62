#include <catch2/catch.hpp>

#include <algorithm>

#include "runtime/sandbox/bubblewrap_command.hpp"

using namespace volador::sandbox;

namespace {

SandboxSpec example() {
  SandboxSpec spec;
  spec.system_folders = {"/usr", "/etc"};
  spec.masked_folders = {"/etc/ssh"};
  spec.masked_files = {"/etc/shadow"};
  spec.devices = {"/dev/nvidia0"};
  spec.mounts = {{"/var/lib/work/workers/worker-3", "/run/volador/work", false},
                 {"/mnt/datasets/mnist", "/data", true}};
  spec.shm_bytes = 256ull << 20;
  spec.working_dir = "/run/volador/work/trial-7-run-1-rank-0";
  spec.hidden_variables = {"VOLADOR_ADMIN_PASSWORD"};
  return spec;
}

// Where `args` holds `expected` as consecutive arguments; npos when it does not.
std::size_t find_sequence(const std::vector<std::string>& args, const std::vector<std::string>& expected) {
  auto it = std::search(args.begin(), args.end(), expected.begin(), expected.end());
  return it == args.end() ? std::string::npos : static_cast<std::size_t>(it - args.begin());
}

}  // namespace

TEST_CASE("The command runs after '--' in new PID and IPC namespaces without capabilities, dying with its parent") {
  const auto args = bubblewrap_command(example(), {"/bin/sh", "-c", "exec worker"});
  REQUIRE(args.size() > 4);
  CHECK(args[0] == "bwrap");
  for (const auto* flag : {"--die-with-parent", "--unshare-pid", "--unshare-ipc"})
    CHECK(std::ranges::count(args, std::string(flag)) == 1);
  CHECK(find_sequence(args, {"--cap-drop", "ALL"}) != std::string::npos);
  CHECK(std::ranges::count(args, std::string("--new-session")) == 0);  // signals to the caller's group reach the rank
  CHECK(std::ranges::count(args, std::string("--unshare-net")) == 0);  // it reaches the master and its peers
  CHECK(std::vector(args.end() - 4, args.end()) == std::vector<std::string>{"--", "/bin/sh", "-c", "exec worker"});
}

TEST_CASE("The system is read-only with its secrets masked, then the rank's own mounts, in that order") {
  const auto args = bubblewrap_command(example(), {"true"});
  const auto usr = find_sequence(args, {"--ro-bind", "/usr", "/usr"});
  const auto ssh = find_sequence(args, {"--tmpfs", "/etc/ssh"});
  const auto shadow = find_sequence(args, {"--ro-bind", "/dev/null", "/etc/shadow"});
  const auto home = find_sequence(args, {"--bind", "/var/lib/work/workers/worker-3", "/run/volador/work"});
  const auto data = find_sequence(args, {"--ro-bind", "/mnt/datasets/mnist", "/data"});
  for (auto at : {usr, ssh, shadow, home, data}) CHECK(at != std::string::npos);
  CHECK(usr < ssh);
  CHECK(ssh < home);
  CHECK(shadow < home);
  CHECK(home < data);
  CHECK(find_sequence(args, {"--dev-bind", "/dev/nvidia0", "/dev/nvidia0"}) != std::string::npos);
  CHECK(find_sequence(args, {"--proc", "/proc", "--dev", "/dev"}) != std::string::npos);
}

TEST_CASE("The rank's /dev/shm is a tmpfs of the spec's size and /tmp a private tmpfs, both writable by anyone") {
  const auto args = bubblewrap_command(example(), {"true"});
  CHECK(find_sequence(args, {"--perms", "1777", "--size", "268435456", "--tmpfs", "/dev/shm"}) != std::string::npos);
  CHECK(find_sequence(args, {"--perms", "1777", "--tmpfs", "/tmp"}) != std::string::npos);
  // after /dev, which would hide it
  CHECK(find_sequence(args, {"--dev", "/dev"}) < find_sequence(args, {"--tmpfs", "/dev/shm"}));
}

TEST_CASE("The working folder is the spec's and the agent's hidden variables are unset") {
  const auto args = bubblewrap_command(example(), {"true"});
  CHECK(find_sequence(args, {"--chdir", "/run/volador/work/trial-7-run-1-rank-0"}) != std::string::npos);
  CHECK(find_sequence(args, {"--unsetenv", "VOLADOR_ADMIN_PASSWORD"}) != std::string::npos);
}
