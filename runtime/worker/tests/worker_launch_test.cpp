#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <random>

#include "runtime/node/timings_file.hpp"
#include "runtime/worker/trial_file.hpp"
#include "runtime/worker/worker_launch.hpp"

using namespace volador;
using namespace std::chrono_literals;

namespace {

// A worker's folder as its agent prepares it, with the variables the agent
// sets (here, in this process's environment, until the end of the test).
struct PreparedWorker {
  std::filesystem::path dir;

  explicit PreparedWorker(const std::string& timings_text)
      : dir(std::filesystem::temp_directory_path() / ("volador-worker-" + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(dir);
    wire::LaunchSpec spec;
    spec.trial_id = 4;
    spec.hparams_json = "{}";
    spec.data_json = "{}";
    REQUIRE(worker::write_trial_file(spec, dir));
    std::ofstream(dir / "timings.conf") << timings_text;
    ::setenv("VOLADOR_MASTER", "127.0.0.1:17080", 1);
    ::setenv("VOLADOR_TLS_DIR", dir.c_str(), 1);
    ::setenv("VOLADOR_TOKEN", "token", 1);
    ::setenv("VOLADOR_TRIAL_FILE", (dir / worker::kTrialFileName).c_str(), 1);
    ::setenv("VOLADOR_TIMINGS_FILE", (dir / "timings.conf").c_str(), 1);
  }
  ~PreparedWorker() {
    for (const auto* name : {"VOLADOR_MASTER", "VOLADOR_TLS_DIR", "VOLADOR_TOKEN", "VOLADOR_TRIAL_FILE", "VOLADOR_TIMINGS_FILE"})
      ::unsetenv(name);
    std::filesystem::remove_all(dir);
  }
};

}  // namespace

TEST_CASE("A worker waits as long as its agent's timings say") {
  master::Timings agent_timings;
  agent_timings.links.connection_timeout = 3s;
  agent_timings.master_outage_patience = 4s;
  agent_timings.hello_timeout = 5s;
  const PreparedWorker worker(node::format_timings(agent_timings));
  auto launch = worker::read_worker_launch();
  REQUIRE(launch.has_value());
  CHECK(launch->hello.trial_id == 4);
  CHECK(node::format_timings(launch->timings) == node::format_timings(agent_timings));
}

TEST_CASE("A worker without its timings file, or with a bad one, says so and does not start") {
  const PreparedWorker worker("reattach_grace = soon\n");
  auto bad = worker::read_worker_launch();
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().message == (worker.dir / "timings.conf").string() +
                                   ":1: reattach_grace: 'soon' is not a duration: a whole number and a unit (ms, s, min, h), e.g. 500ms");
  ::unsetenv("VOLADOR_TIMINGS_FILE");
  auto unset = worker::read_worker_launch();
  REQUIRE_FALSE(unset.has_value());
  CHECK(unset.error().message == "VOLADOR_TIMINGS_FILE is not set: volador-worker is started by a Volador agent");
}

TEST_CASE("A warm worker's next trial keeps the timings of its first, which its link goes on using") {
  master::Timings first;
  first.hello_timeout = 7s;
  const PreparedWorker worker("reattach_grace = soon\n");  // a timings file it would refuse: it is not read
  const std::map<std::string, std::string> assignment = {{"VOLADOR_MASTER", "127.0.0.1:17080"},
                                                         {"VOLADOR_TLS_DIR", worker.dir.string()},
                                                         {"VOLADOR_TOKEN", "token-2"},
                                                         {"VOLADOR_TRIAL_FILE", (worker.dir / worker::kTrialFileName).string()}};
  auto launch = worker::read_worker_launch(assignment, first);
  REQUIRE(launch.has_value());
  CHECK(launch->hello.trial_id == 4);
  CHECK(launch->hello.token == "token-2");
  CHECK(launch->environment == assignment);
  CHECK(node::format_timings(launch->timings) == node::format_timings(first));
}
