#include "runtime/sandbox/host_probes.hpp"

#include <chrono>
#include <filesystem>
#include <future>
#include <mutex>
#include <vector>

#include "runtime/process/child_process.hpp"
#include "runtime/sandbox/bubblewrap_command.hpp"

namespace volador::sandbox {
namespace {

namespace fs = std::filesystem;

// How long a probe may take before it counts as failed (a runtime whose daemon hangs).
constexpr auto kProbePatience = std::chrono::seconds(20);

struct Outcome {
  process::ProcessExit exit;
  std::string output;  // stdout and stderr, line by line
};

// Runs `argv` to its end, or kills it after kProbePatience. Error io when it cannot start.
Result<Outcome> run_to_end(std::vector<std::string> argv) {
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
  if (exit.wait_for(kProbePatience) != std::future_status::ready) (*child)->kill();
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

}  // namespace

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
