#include "runtime/sandbox/host_probes.hpp"

#include <sys/resource.h>

#include <csignal>

#include <chrono>
#include <cstdlib>
#include <set>
#include <sstream>
#include <filesystem>
#include <future>
#include <mutex>
#include <vector>

#include "runtime/core/file_read.hpp"
#include "runtime/process/child_process.hpp"
#include "runtime/sandbox/bubblewrap_command.hpp"
#include "runtime/sandbox/image_command.hpp"

namespace volador::sandbox {
namespace {

namespace fs = std::filesystem;

// How long a probe may take before it counts as failed (a runtime whose daemon hangs).
constexpr auto kProbePatience = std::chrono::seconds(20);
// How long the agent's start waits for a container runtime's `version`:
// podman's returns at once (it takes no storage lock, unlike `info`, which a
// busy host's other podman commands hold a while); docker's asks its daemon.
constexpr auto kRuntimeProbePatience = std::chrono::seconds(10);

struct Outcome {
  process::ProcessExit exit;
  std::string output;  // stdout and stderr, line by line
};

// Runs `argv` to its end, or kills it after `patience`. Error io when it cannot start.
Result<Outcome> run_to_end(std::vector<std::string> argv, std::chrono::seconds patience = kProbePatience) {
  auto lines = std::make_shared<std::pair<std::mutex, std::string>>();
  auto ended = std::make_shared<std::promise<process::ProcessExit>>();
  auto exit = ended->get_future();
  auto child = process::ChildProcess::spawn(
      {std::move(argv), {}, {}, std::chrono::seconds(1), ""},
      [lines](std::string_view, std::string line) {
        std::lock_guard lock(lines->first);
        lines->second += line + "\n";
      },
      [ended](process::ProcessExit e) { ended->set_value(e); });
  if (!child) return fail(child.error());
  if (exit.wait_for(patience) != std::future_status::ready) (*child)->kill();
  Outcome outcome{exit.get(), {}};
  std::lock_guard lock(lines->first);
  outcome.output = lines->second;
  return outcome;
}

std::string describe(const process::ProcessExit& exit, const std::string& output) {
  std::string how = exit.signal != 0 ? "killed by signal " + std::to_string(exit.signal)
                                     : "exit status " + std::to_string(exit.exit_code);
  return how + (output.empty() ? "" : ": " + output.substr(0, output.find_last_not_of('\n') + 1));
}

// The host's system folders (those it has), as every sandbox shows them.
SandboxSpec minimal_sandbox() {
  SandboxSpec spec;
  for (auto folder : system_folders())
    if (fs::exists(folder)) spec.system_folders.emplace_back(folder);
  spec.shm_bytes = 1 << 20;
  spec.working_dir = "/";
  return spec;
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view rest = path == nullptr ? "/usr/bin:/bin" : path;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const auto folder = rest.substr(0, colon);
    std::error_code ec;
    if (!folder.empty() && fs::exists(fs::path(folder) / program, ec)) return true;
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
  }
  return false;
}

bool succeeded(const Outcome& outcome) { return outcome.exit.exit_code == 0 && outcome.exit.signal == 0; }

Rlimit own_limit(int resource) {
  rlimit limit{};
  getrlimit(resource, &limit);
  return {limit.rlim_cur, limit.rlim_max};
}

// The runtime's options for this host (podman_runtime_options).
std::vector<std::string> runtime_options(const std::string& runtime) {
  if (runtime != "podman") return {};
  return podman_runtime_options(hybrid_cgroups(read_file("/proc/self/mountinfo").value_or("")), on_path("runc"));
}

// podman_init_available on this host: its default init, and the
// containers.conf files podman reads (system, distribution, the user's).
Status podman_init_here() {
  std::vector<std::string> confs;
  const char* home = std::getenv("HOME");
  for (const auto& conf : {fs::path("/etc/containers/containers.conf"), fs::path("/usr/share/containers/containers.conf"),
                           home == nullptr ? fs::path() : fs::path(home) / ".config/containers/containers.conf"})
    if (!conf.empty()) confs.push_back(read_file(conf).value_or(""));
  std::error_code ec;
  return podman_init_available(fs::exists(kPodmanDefaultInit, ec), confs);
}

// Whether `runtime` answers runtime_probe_command within kRuntimeProbePatience. Error unavailable saying how it failed.
Status runtime_answers(const std::string& runtime) {
  if (!on_path(runtime)) return fail(Error::unavailable(runtime + " is not on PATH"));
  auto ran = run_to_end(runtime_probe_command(runtime), kRuntimeProbePatience);
  if (!ran) return fail(Error::unavailable(runtime + " cannot be started: " + ran.error().message));
  if (!succeeded(*ran)) {
    const bool hung = ran->exit.signal == SIGKILL;
    return fail(Error::unavailable(runtime + " version " +
                                   (hung ? "did not answer within " + std::to_string(kRuntimeProbePatience.count()) + " s"
                                         : "failed (" + describe(ran->exit, ran->output) + ")")));
  }
  return runtime == "podman" ? podman_init_here() : Status{};
}

}  // namespace

Result<HostLibraries> host_libraries_of(const fs::path& program) {
  auto ran = run_to_end({"ldd", program.string()});
  if (!ran) return fail(Error::unavailable("ldd cannot be started: " + ran.error().message));
  if (!succeeded(*ran)) return fail(Error::unavailable("ldd " + program.string() + " failed (" + describe(ran->exit, ran->output) + ")"));
  auto listing = parse_ldd_output(ran->output);
  if (!listing) return fail(Error::unavailable(program.string() + ": " + listing.error().message));
  std::error_code ec;
  HostLibraries libraries;
  std::set<fs::path> seen;
  const auto add_folder = [&](const fs::path& folder) {
    if (seen.insert(folder).second) libraries.folders.push_back(folder);
  };
  if (!listing->loader.empty()) {
    libraries.loader = fs::canonical(listing->loader, ec);
    if (ec) return fail(Error::unavailable("the loader " + listing->loader.string() + ": " + ec.message()));
    add_folder(libraries.loader.parent_path());
  }
  for (const auto& library : listing->libraries) {
    const auto folder = fs::canonical(library.parent_path(), ec);
    const auto file = ec ? fs::path() : fs::canonical(library, ec);
    if (ec) return fail(Error::unavailable("the library " + library.string() + ": " + ec.message()));
    add_folder(folder);
    add_folder(file.parent_path());
  }
  return libraries;
}

Result<ContainerSetup> probe_container_runtime(ContainerRuntimeChoice choice, const fs::path& worker_program,
                                               std::string& why_none) {
  for (const auto& runtime : runtime_candidates(choice)) {
    if (auto answers = runtime_answers(runtime); !answers) {
      if (choice != ContainerRuntimeChoice::automatic) return fail(answers.error());
      why_none += (why_none.empty() ? "" : "; ") + answers.error().message;
      continue;
    }
    auto libraries = host_libraries_of(worker_program);
    if (!libraries) return fail(libraries.error());
    const auto pid_max = std::strtoull(read_file("/proc/sys/kernel/pid_max").value_or("").c_str(), nullptr, 10);
    return ContainerSetup{runtime, runtime_options(runtime),
                          container_ulimits(own_limit(RLIMIT_NOFILE), own_limit(RLIMIT_NPROC), pid_max),
                          std::move(*libraries)};
  }
  return ContainerSetup{};
}

Status remove_container(const std::string& runtime, const std::string& name) {
  auto ran = run_to_end(container_removal_command(runtime, name));
  if (!ran) return fail(Error::unavailable(runtime + " cannot be started: " + ran.error().message));
  if (!succeeded(*ran))
    return fail(Error::unavailable(runtime + " rm " + name + " failed (" + describe(ran->exit, ran->output) + ")"));
  return {};
}

Result<std::size_t> remove_owned_containers(const std::string& runtime, const std::string& owner) {
  auto listed = run_to_end(owned_containers_command(runtime, owner));
  if (!listed) return fail(Error::unavailable(runtime + " cannot be started: " + listed.error().message));
  if (!succeeded(*listed))
    return fail(Error::unavailable(runtime + " ps failed (" + describe(listed->exit, listed->output) + ")"));
  std::size_t removed = 0;
  std::istringstream ids(listed->output);
  for (std::string id; std::getline(ids, id);) {
    if (id.empty() || id.find_first_not_of("0123456789abcdef") != std::string::npos) continue;  // a warning on stderr
    if (auto gone = remove_container(runtime, id); !gone) return fail(gone.error());
    ++removed;
  }
  return removed;
}

Status probe_bubblewrap() {
  constexpr const char* kRemedy =
      "install Debian's bubblewrap (apt-get install bubblewrap) and allow user namespaces, "
      "or start the agent with --sandbox off to run trials unsandboxed";
  if (!on_path("bwrap")) return fail(Error::unavailable(std::string("bwrap is not on PATH: ") + kRemedy));
  auto ran = run_to_end(bubblewrap_command(minimal_sandbox(), {"/bin/true"}));
  if (!ran) return fail(Error::unavailable("bwrap cannot be started (" + ran.error().message + "): " + kRemedy));
  if (ran->exit.exit_code != 0 || ran->exit.signal != 0)
    return fail(Error::unavailable("bwrap cannot build a sandbox here (" + describe(ran->exit, ran->output) + "): " + kRemedy));
  return {};
}

}  // namespace volador::sandbox
