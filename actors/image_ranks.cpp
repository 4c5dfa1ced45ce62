#include "actors/image_ranks.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>

#include "actors/worker_sandbox.hpp"
#include "runtime/sandbox/host_probes.hpp"
#include "runtime/sandbox/image_command.hpp"
#include "runtime/sandbox/kernel_oom_log.hpp"

namespace volador::actors {
namespace {

namespace fs = std::filesystem;

// What the container runs: the image's interpreter for a Python trial, else the host's worker through the host's loader.
std::vector<std::string> contained_worker(const AgentOptions& options, bool python_trial, const std::string& prelude) {
  if (python_trial)
    return {"/bin/sh", "-c", prelude + "exec \"$0\" -m volador.worker_main", options.python_program.string()};
  return sandbox::host_loader_command(options.containers.host_libraries, prelude, options.worker_program);
}

// The registry credentials of `spec` written for the runtime, readable by the agent alone.
Result<fs::path> write_registry_auth(const AgentOptions& options, const wire::RegistryLogin& login, std::uint64_t worker) {
  const auto folder = registry_auth_folder(options, worker);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (!ec) fs::permissions(folder, fs::perms::owner_all, ec);
  const auto file = sandbox::auth_file_in(folder);
  std::ofstream out(file, std::ios::trunc);  // empty, and the agent's alone, before the credentials go in
  if (!ec) fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, ec);
  if (!ec) out << sandbox::registry_auth_file({login.username, login.password, login.serveraddress});
  out.close();
  if (ec || !out) return fail(Error::io("cannot write the registry credentials in " + folder.string()));
  return file;
}

}  // namespace

Result<sandbox::ContainerSetup> prepare_image_ranks(const AgentOptions& options, sandbox::ContainerRuntimeChoice choice) {
  std::string why_none;
  auto setup = sandbox::probe_container_runtime(choice, options.worker_program, why_none);
  if (!setup) return fail(Error{setup.error().code, "--container-runtime: " + setup.error().message});
  if (setup->runtime.empty()) {
    spdlog::info("agent {}: runs no container images{}", options.agent_id,
                 why_none.empty() ? " (--container-runtime none)" : " (" + why_none + ")");
    return setup;
  }
  std::string extras;
  for (const auto& option : setup->runtime_options) extras += " " + option;
  spdlog::info("agent {}: runs environment.image with {}{}", options.agent_id, setup->runtime, extras);
  return setup;
}

std::string container_owner(const AgentOptions& options) {
  return options.agent_id + "@" + options.work_dir.string();
}

std::string container_name(const AgentOptions& options, std::uint64_t worker) {
  std::string agent = options.agent_id;
  std::ranges::replace_if(agent, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_'; }, '_');
  return fmt::format("volador-{}-{}-worker-{}", agent, ::getpid(), worker);
}

fs::path container_id_file(const AgentOptions& options, std::uint64_t worker) {
  return options.work_dir / "container-ids" / fmt::format("worker-{}", worker);
}

fs::path registry_auth_folder(const AgentOptions& options, std::uint64_t worker) {
  return options.work_dir / "registry-auth" / fmt::format("worker-{}", worker);
}

Result<std::vector<std::string>> image_rank_command(const AgentOptions& options, const wire::LaunchSpec& spec,
                                                    std::uint64_t worker, const fs::path& home, const fs::path& dir,
                                                    const std::string& prelude, bool python_trial,
                                                    const sandbox::RankLimits& limits,
                                                    const std::map<std::string, std::string>& env) {
  const auto& setup = options.containers;
  if (setup.runtime.empty())
    return fail(Error::invalid_argument(fmt::format("environment.image: agent {} runs no container images "
                                                    "(--container-runtime; see its log)", options.agent_id)));
  auto box = rank_sandbox(options, spec, home, dir, env);
  if (!box) return fail(box.error());
  std::ranges::copy(sandbox::host_library_mounts(setup.host_libraries), std::back_inserter(box->mounts));
  sandbox::ImageRun run{.runtime = setup.runtime,
                        .runtime_options = setup.runtime_options,
                        .image = spec.image,
                        .container_name = container_name(options, worker),
                        .force_pull = spec.force_pull_image,
                        .memory_bytes = limits.memory_bytes,
                        .max_processes = limits.max_processes,
                        .ulimits = setup.ulimits};
  run.owner = container_owner(options);
  run.id_file = container_id_file(options, worker);
  std::error_code ec;
  fs::create_directories(run.id_file->parent_path(), ec);
  fs::remove(*run.id_file, ec);  // the runtime refuses to overwrite one (a worker id of an earlier run of the agent)
  if (spec.registry_auth) {
    auto file = write_registry_auth(options, *spec.registry_auth, worker);
    if (!file) return fail(file.error());
    run.auth_file = *file;
  }
  for (const auto& [name, value] : env) run.variables.push_back(name);
  return sandbox::image_command(*box, run, contained_worker(options, python_trial, prelude));
}

ImageRankRemains image_rank_remains(const AgentOptions& options, std::uint64_t worker, const sandbox::RankLimits& limits) {
  return {options.agent_id, options.containers.runtime, container_name(options, worker),
          registry_auth_folder(options, worker), container_id_file(options, worker), limits};
}

std::string image_rank_end_reason(const ImageRankRemains& remains, const process::ProcessExit& exit) {
  if (remains.limits.memory_bytes == 0) return "";
  std::ifstream id_file(remains.id_file);
  std::string id;
  id_file >> id;
  if (id.empty()) return "";  // the container was never created
  auto log = sandbox::read_kernel_log();
  if (!log) {
    if (exit.exit_code != 0 || exit.signal != 0)
      spdlog::warn("agent {}: cannot tell whether container {} broke its memory limit: {}", remains.agent_id,
                   remains.container, log.error().message);
    return "";
  }
  return sandbox::oom_kill_logged_for(*log, id) ? sandbox::memory_breach(remains.limits) : "";
}

void remove_image_rank(const ImageRankRemains& remains) {
  if (auto removed = sandbox::remove_container(remains.runtime, remains.container); !removed)
    spdlog::warn("agent {}: container {} may remain: {}", remains.agent_id, remains.container, removed.error().message);
  std::error_code ec;
  fs::remove_all(remains.auth_folder, ec);
  fs::remove(remains.id_file, ec);
}

void remove_left_containers(const AgentOptions& options) {
  const auto& runtime = options.containers.runtime;
  if (runtime.empty()) return;
  auto removed = sandbox::remove_owned_containers(runtime, container_owner(options));
  if (!removed)
    spdlog::warn("agent {}: containers an earlier run of it left may remain: {}", options.agent_id, removed.error().message);
  else
    spdlog::info("agent {}: removed {} container(s) an earlier run of it left", options.agent_id, *removed);
}

}  // namespace volador::actors
