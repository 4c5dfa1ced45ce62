#include "actors/worker_sandbox.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "runtime/core/random_bytes.hpp"
#include "runtime/sandbox/bubblewrap_command.hpp"
#include "runtime/sandbox/host_probes.hpp"
#include "runtime/sandbox/sandbox_spec.hpp"
#include "runtime/worker/agent_channel.hpp"

extern char** environ;

namespace volador::actors {
namespace {

namespace fs = std::filesystem;
using sandbox::SandboxMount;

// The agent's own folder for its trials' allreduce segments: in memory (the
// host's /dev/shm) where there is one, one subfolder per experiment.
fs::path collective_root(const AgentOptions& options) {
  std::string name = "volador-agent-" + options.agent_id;
  std::ranges::replace_if(name, [](char c) { return c == '/' || c == ' '; }, '_');
  std::error_code ec;
  return fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") / name : options.work_dir / "collective";
}

fs::path collective_folder(const AgentOptions& options, std::uint64_t experiment_id) {
  return collective_root(options) / fmt::format("experiment-{}", experiment_id);
}

// The identity the worker presents to the master (the folder its environment
// names in VOLADOR_TLS_DIR: the rank's own, tls/rank_identity_folders.hpp),
// read-only at its own path; no other certificate is shown.
std::optional<SandboxMount> worker_identity_mount(const std::map<std::string, std::string>& env) {
  const auto folder = env.find("VOLADOR_TLS_DIR");
  if (folder == env.end()) return std::nullopt;
  return SandboxMount{folder->second, folder->second, true};
}

// What the worker runs from outside the system folders: its program, and a
// Python worker's package and native module, read-only at their own paths.
std::vector<SandboxMount> program_mounts(const AgentOptions& options) {
  std::vector<SandboxMount> mounts{{options.worker_program, options.worker_program, true}};
#ifdef VOLADOR_WORKER_PYTHONPATH
  std::string_view rest = VOLADOR_WORKER_PYTHONPATH;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const fs::path folder(rest.substr(0, colon));
    std::error_code ec;
    if (fs::is_directory(folder, ec)) mounts.push_back({folder, folder, true});
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
#endif
  return mounts;
}

// The GPU device nodes a rank on a GPU slot needs (CUDA_VISIBLE_DEVICES picks its own).
std::vector<fs::path> gpu_devices(const AgentOptions& options, const wire::LaunchSpec& spec) {
  std::vector<fs::path> devices;
  if (options.slots.at(spec.slot).type != SlotType::gpu) return devices;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec))
    if (entry.path().filename().string().starts_with("nvidia")) devices.push_back(entry.path());
  std::ranges::sort(devices);
  return devices;
}

// The config's bind mounts, after checking each against the host and the worker's own mounts.
Result<std::vector<SandboxMount>> user_mounts(const wire::LaunchSpec& spec, const std::vector<SandboxMount>& own) {
  std::vector<SandboxMount> mounts;
  for (std::size_t i = 0; i < spec.bind_mounts.size(); ++i) {
    const auto& mount = spec.bind_mounts[i];
    const auto name = fmt::format("bind_mounts[{}] ({} -> {})", i, mount.host_path, mount.container_path);
    std::error_code ec;
    if (!fs::exists(mount.host_path, ec))
      return fail(Error::not_found(name + ": host_path " + mount.host_path + " does not exist on this agent's host"));
    for (const auto& taken : own)
      if (sandbox::paths_overlap(mount.container_path, taken.inside))
        return fail(Error::invalid_argument(name + ": container_path would cover " + taken.inside.string() +
                                            ", which the trial's worker needs"));
    mounts.push_back({mount.host_path, mount.container_path, mount.read_only});
  }
  return mounts;
}

// An /etc/fstab of the worker's own, naming a random UUID for "/", shown over
// the host's. CAF 0.17 names a node by a hash of the host's MAC addresses and
// that UUID, plus its process id; every sandboxed worker is PID 2 in a PID
// namespace of its own, so without it all workers on a host would share one
// node id and the master would mix their connections.
Result<SandboxMount> own_node_name(const fs::path& home) {
  const std::string hex = random_hex(16);
  const auto file = home / ".volador-fstab";
  std::ofstream out(file);
  out << fmt::format("UUID={}-{}-{}-{}-{} / ext4 defaults 0 1\n", hex.substr(0, 8), hex.substr(8, 4), hex.substr(12, 4),
                     hex.substr(16, 4), hex.substr(20));
  if (!out.flush()) return fail(Error::io("cannot write " + file.string()));
  return SandboxMount{file, fs::path("/etc/fstab"), true};
}

// The worker's own mounts: its home, its experiment's allreduce folder, its
// program and identity, and the checkpoint folder it writes into.
Result<std::vector<SandboxMount>> worker_mounts(const AgentOptions& options, const wire::LaunchSpec& spec,
                                                const fs::path& home, const std::map<std::string, std::string>& env) {
  const auto collective = collective_folder(options, spec.experiment_id);
  std::error_code ec;
  fs::create_directories(collective, ec);
  if (ec) return fail(Error::io("cannot create the allreduce folder " + collective.string() + ": " + ec.message()));
  std::vector<SandboxMount> mounts{{home, fs::path(sandbox::kWorkerHomeInside), false},
                                   {collective, fs::path(sandbox::kCollectiveInside), false}};
  std::ranges::copy(program_mounts(options), std::back_inserter(mounts));
  auto node_name = own_node_name(home);
  if (!node_name) return fail(node_name.error());
  mounts.push_back(*node_name);
  if (auto identity = worker_identity_mount(env)) mounts.push_back(*identity);
  if (!spec.checkpoint_folder.empty()) {
    if (!fs::is_directory(spec.checkpoint_folder, ec))
      return fail(Error::not_found("the checkpoint folder " + spec.checkpoint_folder +
                                   " does not exist on this agent's host (checkpoint_storage must be shared)"));
    mounts.push_back({spec.checkpoint_folder, spec.checkpoint_folder, false});
  }
  return mounts;
}

// The agent's variables of Volador's that the worker's environment does not set (a password, a bundle).
std::vector<std::string> hidden_variables(const std::map<std::string, std::string>& env) {
  std::vector<std::string> hidden{"HOME"};
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto name = std::string(entry.substr(0, entry.find('=')));
    if (name.starts_with("VOLADOR_") && !env.contains(name) && name != worker::kAgentChannelVariable)
      hidden.push_back(name);
  }
  if (env.contains("HOME")) std::erase(hidden, "HOME");
  return hidden;
}

// The system folders, and the secrets in them, that this host has.
void add_host_system(sandbox::SandboxSpec& spec) {
  std::error_code ec;
  for (auto folder : sandbox::system_folders())
    if (fs::exists(folder, ec)) spec.system_folders.emplace_back(folder);
  for (auto folder : sandbox::masked_system_folders())
    if (fs::is_directory(folder, ec)) spec.masked_folders.emplace_back(folder);
  for (auto file : sandbox::masked_system_files())
    if (fs::exists(file, ec)) spec.masked_files.emplace_back(file);
}

// An agent folder that a system folder would show in every sandbox.
Status check_not_shown(const fs::path& folder, std::string_view what) {
  for (auto system : sandbox::system_folders())
    if (sandbox::paths_overlap(folder, fs::path(system)))
      return fail(Error::invalid_argument(fmt::format("the agent's {} {} lies in {}, which every trial's sandbox shows: "
                                                      "move it elsewhere (such as /var/lib/volador-work)",
                                                      what, folder.string(), system)));
  return {};
}

// What of `spec` an agent running with --sandbox off cannot honour: a bind
// mount other than a writable one at its own path (the folder is there
// already), or a /dev/shm of resources.shm_size (the rank uses the host's).
Status unsandboxed_refusal(const AgentOptions& options, const wire::LaunchSpec& spec) {
  for (const auto& mount : spec.bind_mounts)
    if (mount.container_path != mount.host_path || mount.read_only)
      return fail(Error::invalid_argument(fmt::format("bind_mounts ({} -> {}{}) need the sandbox, and agent {} runs with "
                                                      "--sandbox off",
                                                      mount.host_path, mount.container_path,
                                                      mount.read_only ? ", read-only" : "", options.agent_id)));
  if (spec.shm_size_bytes > 0)
    return fail(Error::invalid_argument(fmt::format(
        "resources.shm_size ({} MiB) needs the sandbox, which gives each rank a /dev/shm of that size, and agent {} "
        "runs with --sandbox off: remove resources.shm_size to use the host's /dev/shm",
        spec.shm_size_bytes >> 20, options.agent_id)));
  return {};
}

}  // namespace

Status prepare_sandboxes(const AgentOptions& options) {
  if (!options.sandbox) {
    spdlog::warn("agent {}: SANDBOX OFF (--sandbox off): trials run unsandboxed, with this agent's view of the host "
                 "(its certificates, other trials' folders, the master's data); a trial with bind_mounts or "
                 "resources.shm_size fails at launch",
                 options.agent_id);
    return {};
  }
  if (auto checked = check_not_shown(options.work_dir, "work folder"); !checked) return checked;
  if (auto checked = check_not_shown(options.worker_tls_dir, "identity folder"); !checked) return checked;
  if (auto probed = sandbox::probe_bubblewrap(); !probed) return probed;
  std::error_code ec;
  fs::remove_all(collective_root(options), ec);
  spdlog::info("agent {}: ranks run in bubblewrap sandboxes (allreduce segments in {})", options.agent_id,
               collective_root(options).string());
  return {};
}

fs::path worker_home(const AgentOptions& options, std::uint64_t worker_id) {
  return options.work_dir / sandbox::kWorkerHomes / fmt::format("worker-{}", worker_id);
}

Result<fs::path> fresh_worker_home(const AgentOptions& options, std::uint64_t worker_id) {
  auto home = worker_home(options, worker_id);
  std::error_code ec;
  fs::remove_all(home, ec);
  fs::create_directories(home, ec);
  if (ec) return fail(Error::io("cannot create the worker's folder " + home.string() + ": " + ec.message()));
  return home;
}

bool contained(const AgentOptions& options, const wire::LaunchSpec& spec) { return options.sandbox || !spec.image.empty(); }

fs::path worker_view(const AgentOptions& options, const wire::LaunchSpec& spec, const fs::path& home, const fs::path& dir) {
  if (!contained(options, spec)) return dir;
  return fs::path(sandbox::kWorkerHomeInside) / dir.lexically_relative(home);
}

void add_sandbox_environment(const AgentOptions& options, const wire::LaunchSpec& spec,
                             std::map<std::string, std::string>& env) {
  if (!contained(options, spec)) return;
  env["VOLADOR_SHM_DIR"] = std::string(sandbox::kCollectiveInside);
  env.try_emplace("HOME", "/tmp");
}

Result<sandbox::SandboxSpec> rank_sandbox(const AgentOptions& options, const wire::LaunchSpec& spec, const fs::path& home,
                                          const fs::path& dir, const std::map<std::string, std::string>& env) {
  auto own = worker_mounts(options, spec, home, env);
  if (!own) return fail(own.error());
  auto theirs = user_mounts(spec, *own);
  if (!theirs) return fail(theirs.error());
  sandbox::SandboxSpec box;
  box.devices = gpu_devices(options, spec);
  box.mounts = std::move(*own);
  std::ranges::copy(*theirs, std::back_inserter(box.mounts));
  box.shm_bytes = spec.shm_size_bytes > 0 ? spec.shm_size_bytes : sandbox::kDefaultShmBytes;
  box.working_dir = worker_view(options, spec, home, dir);
  return box;
}

Result<std::vector<std::string>> sandboxed_command(const AgentOptions& options, const wire::LaunchSpec& spec,
                                                   const fs::path& home, const fs::path& dir,
                                                   std::vector<std::string> command,
                                                   const std::map<std::string, std::string>& env) {
  if (!options.sandbox) {
    if (auto refused = unsandboxed_refusal(options, spec); !refused) return fail(refused.error());
    return command;
  }
  auto box = rank_sandbox(options, spec, home, dir, env);
  if (!box) return fail(box.error());
  add_host_system(*box);
  box->hidden_variables = hidden_variables(env);
  return sandbox::bubblewrap_command(*box, command);
}

std::string sandbox_key(const wire::LaunchSpec& spec) {
  std::string key = fmt::format("shm={} checkpoints={}", spec.shm_size_bytes, spec.checkpoint_folder);
  for (const auto& mount : spec.bind_mounts)
    key += fmt::format(" mount={}:{}:{}", mount.host_path, mount.container_path, mount.read_only ? "ro" : "rw");
  return key;
}

}  // namespace volador::actors

namespace volador::actors {

process::ProcessExit worker_exit(bool sandboxed, process::ProcessExit exit) {
  constexpr int kSignalBase = 128;
  if (sandboxed && exit.signal == 0 && exit.exit_code > kSignalBase && exit.exit_code < kSignalBase + NSIG)
    return {.exit_code = -1, .signal = exit.exit_code - kSignalBase};
  return exit;
}

}  // namespace volador::actors
