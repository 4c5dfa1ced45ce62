// End to end: the master and the agent starved again and again (SIGSTOP for
// up to a few seconds, in a loop, past their peers' connection timeout of
// 2 s about half the time) while an 8-slot search of a thousand short
// command trials runs. Every blocking wait of the master, the agent and the
// rank workers must react to the loss of its peer, so every trial completes
// and no worker holds a slot waiting on a dropped link (issue 19, item 4).
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <random>
#include <thread>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

constexpr int kTrials = 1000;
constexpr auto kPatience = std::chrono::minutes(8);

// kTrials trials of a command that prints the searcher metric and exits.
std::string starvation_config() {
  return "name: starvation\n"
         "entrypoint: /bin/echo error=0.5\n"
         "hyperparameters:\n"
         "  global_batch_size: 1\n"
         "  x: {type: double, minval: 0, maxval: 1}\n"
         "searcher: {name: random, metric: error, smaller_is_better: true, max_trials: " +
         std::to_string(kTrials) +
         ", max_concurrent_trials: 16, max_length: {batches: 1}}\n"
         "experiment_seed: 19\n";
}

void pause_for(std::mt19937& random, int min_ms, int max_ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution(min_ms, max_ms)(random)));
}

}  // namespace

TEST_CASE("An 8-slot search of 1000 trials completes every trial while its master and agent are stopped again and again") {
  TempDir dir;
  Cluster cluster{dir.path() / "data"};
  cluster.add_node_arguments(short_link_timings(dir.path()));
  cluster.start_master();
  cluster.start_agent(8);
  const auto work = dir.path() / "data" / "agent-work";
  const pid_t agent = pid_with_arguments({"agent", work.string()});
  REQUIRE(agent != 0);
  const auto id = submit(cluster, dir.path() / "project", starvation_config());

  // Alternately the master and the agent, each stop 0.5 to 3.5 s, with 0.5 to 2 s of running between.
  std::mt19937 random(19);
  int stalls = 0;
  const auto deadline = std::chrono::steady_clock::now() + kPatience;
  auto ended = [&] { return describe_experiment(cluster, id)["state"] != "ACTIVE"; };
  while (!ended() && std::chrono::steady_clock::now() < deadline) {
    const pid_t victim = stalls++ % 2 == 0 ? cluster.master_pid() : agent;
    REQUIRE(::kill(victim, SIGSTOP) == 0);
    pause_for(random, 500, 3500);
    REQUIRE(::kill(victim, SIGCONT) == 0);
    pause_for(random, 500, 2000);
  }
  const auto experiment = describe_experiment(cluster, id);
  INFO("stalls: " << stalls);
  INFO(experiment.dump(1));
  REQUIRE(experiment["state"] == "COMPLETED");
  REQUIRE(experiment["trials"].size() == kTrials);
  for (const auto& trial : experiment["trials"]) {
    if (trial["state"] == "COMPLETED") continue;
    INFO("trial " << trial["id"] << ":\n" << cluster.cli({"trial", "logs", trial["id"].dump(), "--all"}).out);
    CHECK(trial["state"] == "COMPLETED");
  }
  CHECK(eventually([&] { return processes_under(work) == 0; }, 30));
}
