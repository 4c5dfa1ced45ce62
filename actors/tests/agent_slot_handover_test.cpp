// One rank process per slot on an agent (actors/slot_waits.hpp), in a real
// actor system: an agent (no sandbox, no cgroups) gets a second launch for a
// slot whose rank still runs, as it does when a trial gives its slots back
// while its ranks stop.
#include <catch2/catch.hpp>

#include <fstream>
#include <thread>

#include <caf/all.hpp>

#include "actors/agent_actor.hpp"
#include "actors/tests/agent_test_support.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/wire/codec.hpp"

using namespace volador;
using namespace volador::actors;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// The worker: marks that its trial started (in the folder above the work
// folder), then runs until its trial's release file appears.
constexpr const char* kWorker = R"(#!/bin/sh
touch "$MARKS/started-$VOLADOR_TRIAL_ID"
while [ ! -f "$MARKS/release-$VOLADOR_TRIAL_ID" ]; do sleep 0.05; done
)";

// Rank 0 of `trial`'s run 1 on slot 0; its rank is killed `kill_grace_ms` after SIGTERM.
wire::LaunchSpec launch_of(const fs::path& dir, const tls::CertificateAuthority& ca, std::uint64_t trial,
                           std::uint64_t kill_grace_ms = 0) {
  auto spec = testing::script_launch(dir, ca, trial, 1);
  spec.environment_variables = {"MARKS=" + dir.string()};
  spec.kill_grace_period_ms = kill_grace_ms;
  return spec;
}

bool wait_for_file(const fs::path& path, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!fs::exists(path) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(20ms);
  return fs::exists(path);
}

// The rank exit the agent reports to the trial within `wait`.
std::optional<wire::WorkerExit> exit_within(caf::scoped_actor& trial, std::chrono::milliseconds wait) {
  std::optional<wire::WorkerExit> exit;
  trial->receive([&](exited_atom, const wire::Bytes& bytes) { exit = wire::decode<wire::WorkerExit>(bytes).value(); },
                 caf::after(wait) >> [] {});
  return exit;
}

// Receives the answer to a launch: "" once started.
template <class Pending>
void expect_started(Pending& pending) {
  pending.receive([](const std::string& refusal) { CHECK(refusal == ""); },
                  [](const caf::error& error) { FAIL(caf::to_string(error)); });
}

struct AgentFixture {
  testing::TempFolder dir{"volador-agent-slots-"};
  tls::CertificateAuthority ca = tls::CertificateAuthority::open_or_create(dir.path / "ca").value();
  caf::actor_system_config config;
  caf::actor_system system{config};
  caf::actor master = system.spawn(testing::accepting_master);
  AgentActor agent = system.spawn(agent_actor, testing::script_agent(dir.path, ca, kWorker), master);
  caf::scoped_actor trial{system};

  ~AgentFixture() {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
  }
  // Sends the agent `spec`'s launch; its answer (`.receive`) comes once the rank started.
  auto launch(const wire::LaunchSpec& spec) {
    return trial->request(agent, 60s, launch_atom::value, wire::encode(spec), caf::actor(trial));
  }
  fs::path mark(const std::string& what, std::uint64_t trial_id) const {
    return dir.path / (what + "-" + std::to_string(trial_id));
  }
  // Launches trial 7, whose rank then holds the slot until released.
  void start_first() {
    auto first = launch(launch_of(dir.path, ca, 7));
    expect_started(first);
    REQUIRE(wait_for_file(mark("started", 7), 20s));
  }
  // The waiting launch `pending` of trial 8 started: its rank runs, and ends once released.
  template <class Pending>
  void expect_second_runs(Pending& pending) {
    expect_started(pending);
    CHECK(wait_for_file(mark("started", 8), 20s));
    std::ofstream(mark("release", 8)) << "";
    CHECK(exit_within(trial, 20s));
  }
};

}  // namespace

TEST_CASE("A launch for a slot whose rank still runs starts only once that rank exits, and is answered then") {
  AgentFixture f;
  f.start_first();

  auto second = f.launch(launch_of(f.dir.path, f.ca, 8, 60'000));
  CHECK_FALSE(wait_for_file(f.mark("started", 8), 1s));  // trial 7's rank holds the slot
  std::ofstream(f.mark("release", 7)) << "";
  const auto exit = exit_within(f.trial, 20s);
  REQUIRE(exit);
  CHECK((exit->trial_id == 7 && exit->exit_code == 0));
  f.expect_second_runs(second);
}

TEST_CASE("A rank that holds its slot past the waiting launch's kill grace and margin is killed, and the launch starts") {
  AgentFixture f;
  f.start_first();
  const auto asked = std::chrono::steady_clock::now();
  auto second = f.launch(launch_of(f.dir.path, f.ca, 8));  // no kill grace: 5 s of patience
  const auto exit = exit_within(f.trial, 30s);
  REQUIRE(exit);
  CHECK((exit->trial_id == 7 && exit->signal == 9));
  CHECK(std::chrono::steady_clock::now() - asked >= 4s);
  f.expect_second_runs(second);
}

TEST_CASE("A waiting launch of a trial killed meanwhile is answered with an error and never starts") {
  AgentFixture f;
  f.start_first();
  auto second = f.launch(launch_of(f.dir.path, f.ca, 8, 60'000));
  f.trial->send(f.agent, kill_atom::value, std::uint64_t{8});
  second.receive([](const std::string& refusal) { FAIL("started: '" + refusal + "'"); },
                 [](const caf::error& error) { CHECK(error != caf::sec::request_timeout); });
  std::ofstream(f.mark("release", 7)) << "";
  CHECK(exit_within(f.trial, 20s));
  CHECK_FALSE(wait_for_file(f.mark("started", 8), 500ms));
}
