// volador-worker: one rank of a native trial or of a command entrypoint,
// started by an agent in the trial's working folder. It reports in to its
// trial on the master, then runs the workloads it is sent: with the trial
// named by a `native:` entrypoint, or by running the command
// (runtime/worker/command_trial.hpp).
#include <cstdio>

#include "actors/rank_session.hpp"
#include "examples/native_mlp/mlp_trial.hpp"
#include "runtime/command/entrypoint.hpp"
#include "runtime/worker/command_trial.hpp"
#include "runtime/worker/trial_join.hpp"
#include "runtime/worker/worker_launch.hpp"
#include "runtime/worker/workload_loop.hpp"

namespace {

using namespace volador;

int fail_with(const std::string& what) {
  // stderr reaches the trial's log: the user reads this line.
  std::fprintf(stderr, "volador-worker: %s\n", what.c_str());
  return 1;
}

Result<trial_api::TrialRunner> build_runner(const worker::WorkerLaunch& launch,
                                            std::shared_ptr<trial_api::DataParallel> group) {
  trial_api::TrialRegistry registry;
  examples::register_example_trials(registry);
  auto context = launch.context(std::move(group));
  auto trial = registry.create(launch.entrypoint, context);
  if (!trial) return fail(trial.error());
  return trial_api::TrialRunner::create(std::move(*trial), context);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) return fail_with("takes no arguments; it is started by a Volador agent");
  auto launch = worker::read_worker_launch();
  if (!launch) return fail_with(launch.error().message);
  auto entrypoint = command::classify_entrypoint(launch->entrypoint);
  if (!entrypoint) return fail_with("entrypoint: " + entrypoint.error().message);
  auto joined = worker::join_trial(*launch);
  if (!joined) return fail_with(joined.error().message);
  if (const auto* command = std::get_if<command::CommandEntrypoint>(&*entrypoint)) {
    if (auto served = worker::serve_command(*launch, *joined, command->argv); !served)
      return fail_with(served.error().message);
    return 0;
  }
  auto runner = build_runner(*launch, joined->group);
  if (!runner) return fail_with(runner.error().message);
  if (!launch->restore_path.empty()) {
    if (auto loaded = runner->load(launch->restore_path); !loaded)
      return fail_with("cannot resume from checkpoint " + launch->restore_path + ": " + loaded.error().message);
    std::printf("resumed from checkpoint %s\n", launch->restore_path.c_str());
  }
  if (auto served = worker::serve_workloads(*joined->session, *runner); !served) return fail_with(served.error().message);
  return 0;
}
