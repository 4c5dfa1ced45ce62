// volador-worker: one rank of a native trial or of a command entrypoint,
// started by an agent in the trial's working folder. It reports in to its
// trial on the master, then runs the workloads it is sent: with the trial
// named by a `native:` entrypoint, or by running the command
// (runtime/worker/command_trial.hpp).
//
// Started with a channel to its agent (runtime/worker/agent_channel.hpp), it
// is a warm worker: once the trial is done with it, it tells the agent so and
// waits for its next trial of the same experiment on the same slot, in the
// new working folder the agent prepared, through the same actor system and
// connection to the master. It exits when the agent ends it, or after a
// trial that stopped it or failed.
#include <cstdio>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "actors/master_link.hpp"
#include "actors/rank_session.hpp"
#include "examples/native_mlp/mlp_trial.hpp"
#include "runtime/command/entrypoint.hpp"
#include "runtime/worker/agent_channel.hpp"
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

// Runs the native trial's workloads on this rank until the trial is done with it.
Status serve_native(const worker::WorkerLaunch& launch, worker::JoinedTrial& joined) {
  auto runner = build_runner(launch, joined.group);
  if (!runner) return fail(runner.error());
  if (!launch.restore_path.empty()) {
    if (auto loaded = runner->load(launch.restore_path); !loaded)
      return fail(Error::invalid_argument("cannot resume from checkpoint " + launch.restore_path + ": " +
                                          loaded.error().message));
    std::printf("resumed from checkpoint %s\n", launch.restore_path.c_str());
  }
  return worker::serve_workloads(*joined.session, *runner);
}

// Serves one trial on this rank. True when the trial was done with it (the
// worker may take another), false when it stopped the rank mid-command.
Result<bool> serve_trial(actors::MasterLink& link, const worker::WorkerLaunch& launch) {
  auto entrypoint = command::classify_entrypoint(launch.entrypoint);
  if (!entrypoint) return fail(Error::invalid_argument("entrypoint: " + entrypoint.error().message));
  auto joined = worker::join_trial(link, launch);
  if (!joined) return fail(joined.error());
  if (const auto* command = std::get_if<command::CommandEntrypoint>(&*entrypoint)) {
    auto end = worker::serve_command(launch, *joined, command->argv);
    if (!end) return fail(end.error());
    return *end == worker::CommandEnd::done;
  }
  if (auto served = serve_native(launch, *joined); !served) return fail(served.error());
  return true;
}

// The next trial the agent hands over, in the folder it prepared, with the
// `timings` the worker's link keeps; nullopt when the agent ends the worker.
Result<std::optional<worker::WorkerLaunch>> next_launch(worker::AgentChannel& channel, const master::Timings& timings) {
  auto assignment = channel.next_assignment();
  if (!assignment) return fail(assignment.error());
  if (!*assignment) return std::optional<worker::WorkerLaunch>();
  std::error_code ec;
  std::filesystem::current_path((*assignment)->directory, ec);
  if (ec) return fail(Error::io("cannot enter the trial's folder " + (*assignment)->directory + ": " + ec.message()));
  auto launch = worker::read_worker_launch(worker::from_environment_list((*assignment)->environment), timings);
  if (!launch) return fail(launch.error());
  return std::optional(std::move(*launch));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) return fail_with("takes no arguments; it is started by a Volador agent");
  auto launch = worker::read_worker_launch();
  if (!launch) return fail_with(launch.error().message);
  auto channel = worker::AgentChannel::from_environment();
  if (!channel) return fail_with(channel.error().message);
  auto entrypoint = command::classify_entrypoint(launch->entrypoint);
  if (!entrypoint) return fail_with("entrypoint: " + entrypoint.error().message);
  if (std::holds_alternative<command::CommandEntrypoint>(*entrypoint)) worker::prepare_command_worker(launch->kill_grace);
  auto link = actors::MasterLink::connect(launch->master, launch->tls_dir, launch->timings);
  if (!link) return fail_with(link.error().message);
  for (;;) {
    auto done = serve_trial(**link, *launch);
    if (!done) return fail_with(done.error().message);
    if (!*done || !*channel) return 0;
    spdlog::default_logger()->flush();
    if (auto told = (*channel)->finished(launch->hello); !told) return fail_with(told.error().message);
    auto next = next_launch(**channel, launch->timings);
    if (!next) return fail_with(next.error().message);
    if (!*next) return 0;
    launch = std::move(**next);
  }
}
