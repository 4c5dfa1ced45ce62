// volador-worker: one rank of a trial, started by an agent in the trial's
// working folder. It builds the native trial named by the entrypoint, reports
// in to the master and runs the workloads its trial actor sends.
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/rank_actor.hpp"
#include "examples/native_mlp/mlp_trial.hpp"
#include "runtime/net/actor_system_setup.hpp"
#include "runtime/node/node_roles.hpp"
#include "runtime/worker/worker_launch.hpp"

namespace {

using namespace volador;

int fail_with(const std::string& what) {
  // stderr reaches the trial's log: the user reads this line.
  std::fprintf(stderr, "volador-worker: %s\n", what.c_str());
  return 1;
}

Result<std::shared_ptr<trial_api::TrialRunner>> build_runner(const worker::WorkerLaunch& launch) {
  trial_api::TrialRegistry registry;
  examples::register_example_trials(registry);
  auto context = launch.context();
  auto trial = registry.create(launch.entrypoint, context);
  if (!trial) return fail(trial.error());
  auto runner = trial_api::TrialRunner::create(std::move(*trial), context);
  if (!runner) return fail(runner.error());
  return std::make_shared<trial_api::TrialRunner>(std::move(*runner));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) return fail_with("takes no arguments; it is started by a Volador agent");
  auto launch = worker::read_worker_launch();
  if (!launch) return fail_with(launch.error().message);
  auto runner = build_runner(*launch);
  if (!runner) return fail_with(runner.error().message);

  caf::actor_system_config config;
  net::configure_actor_system(config);
  caf::actor_system system{config};
  auto master = node::connect_to_master(system, launch->master, std::chrono::seconds(10));
  if (!master) return fail_with(master.error().message);
  caf::error ended_with;
  // Not detached: a workload blocks one scheduler thread, which is fine in a
  // process that runs this one actor; a detached actor would make the actor
  // system's shutdown wait for the master to drop its last reference.
  auto rank = system.spawn(actors::rank_actor, *runner, *master, launch->hello);
  caf::actor_cast<caf::strong_actor_ptr>(rank)->get()->attach_functor([&ended_with](const caf::error& reason) { ended_with = reason; });
  system.await_all_actors_done();
  if (ended_with && ended_with != caf::exit_reason::normal) return fail_with("stopped: " + system.render(ended_with));
  return 0;
}
