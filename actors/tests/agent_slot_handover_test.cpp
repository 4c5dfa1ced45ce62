// One rank process per slot on an agent (actors/slot_waits.hpp), in a real
// actor system: an agent (no sandbox, no cgroups) gets a second launch for a
// slot whose rank still runs, as it does when a trial gives its slots back
// while its ranks stop.
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <thread>

#include <caf/all.hpp>

#include "actors/agent_actor.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/identity_files.hpp"
#include "runtime/wire/codec.hpp"
#include "storage/archives/archive.hpp"

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

struct Folder {
  fs::path path = fs::temp_directory_path() / ("volador-agent-slots-" + std::to_string(std::random_device{}()));
  Folder() { fs::create_directories(path); }
  ~Folder() { fs::remove_all(path); }
};

AgentOptions one_slot_agent(const fs::path& dir, const tls::CertificateAuthority& ca) {
  const auto worker = dir / "worker.sh";
  std::ofstream(worker) << kWorker;
  fs::permissions(worker, fs::perms::owner_all);
  REQUIRE(tls::install_identity(ca.issue("agent-a").value(), dir / "agent-tls"));
  fs::create_directories(dir / "work");
  AgentOptions options{.agent_id = "agent-a", .slots = {wire::SlotSpec{}}, .work_dir = dir / "work",
                       .worker_program = worker, .worker_tls_dir = dir / "agent-tls"};
  options.limits.enabled = false;
  options.sandbox = false;
  return options;
}

// Rank 0 of `trial`'s run 1 on slot 0; its rank is killed `kill_grace_ms` after SIGTERM.
wire::LaunchSpec launch_of(const fs::path& dir, const tls::CertificateAuthority& ca, std::uint64_t trial,
                           std::uint64_t kill_grace_ms = 0) {
  fs::create_directories(dir / "project");
  std::ofstream(dir / "project" / "README") << "slots\n";
  const auto identity =
      ca.issue_rank({.experiment_id = 1, .trial_id = trial, .run_id = 1, .rank = 0}, std::chrono::hours(1)).value();
  wire::LaunchSpec spec;
  spec.trial_id = trial;
  spec.experiment_id = 1;
  spec.run_id = 1;
  spec.entrypoint = "sh worker.sh";
  spec.environment_variables = {"MARKS=" + dir.string()};
  spec.archive = archives::pack_directory(dir / "project").value();
  spec.master_host = "127.0.0.1";
  spec.rank_certificate = identity.certificate;
  spec.rank_private_key = identity.private_key;
  spec.kill_grace_period_ms = kill_grace_ms;
  spec.shm_size_bytes = 0;  // the host's /dev/shm: no sandbox
  return spec;
}

caf::behavior accepting_master() {
  return {[](register_atom, const wire::Bytes&, const caf::actor&) { return true; },
          [](work_disk_atom, const wire::Bytes&) {}};
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

struct AgentFixture {
  Folder dir;
  tls::CertificateAuthority ca = tls::CertificateAuthority::open_or_create(dir.path / "ca").value();
  caf::actor_system_config config;
  caf::actor_system system{config};
  caf::actor master = system.spawn(accepting_master);
  AgentActor agent = system.spawn(agent_actor, one_slot_agent(dir.path, ca), master);
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
};

}  // namespace

// Receives the answer to a launch: "" once started.
template <class Pending>
void expect_started(Pending& pending) {
  pending.receive([](const std::string& refusal) { CHECK(refusal == ""); },
                  [](const caf::error& error) { FAIL(caf::to_string(error)); });
}

TEST_CASE("A launch for a slot whose rank still runs starts only once that rank exits, and is answered then") {
  AgentFixture f;
  auto first = f.launch(launch_of(f.dir.path, f.ca, 7));
  expect_started(first);
  REQUIRE(wait_for_file(f.mark("started", 7), 20s));

  auto second = f.launch(launch_of(f.dir.path, f.ca, 8, 60'000));
  CHECK_FALSE(wait_for_file(f.mark("started", 8), 1s));  // trial 7's rank holds the slot
  std::ofstream(f.mark("release", 7)) << "";
  const auto exit = exit_within(f.trial, 20s);
  REQUIRE(exit);
  CHECK((exit->trial_id == 7 && exit->exit_code == 0));
  expect_started(second);
  CHECK(wait_for_file(f.mark("started", 8), 20s));
  std::ofstream(f.mark("release", 8)) << "";
  CHECK(exit_within(f.trial, 20s));
}

TEST_CASE("A rank that holds its slot past the waiting launch's kill grace and margin is killed, and the launch starts") {
  AgentFixture f;
  auto first = f.launch(launch_of(f.dir.path, f.ca, 7));
  expect_started(first);
  REQUIRE(wait_for_file(f.mark("started", 7), 20s));
  const auto asked = std::chrono::steady_clock::now();
  auto second = f.launch(launch_of(f.dir.path, f.ca, 8));  // no kill grace: 5 s of patience
  const auto exit = exit_within(f.trial, 30s);
  REQUIRE(exit);
  CHECK((exit->trial_id == 7 && exit->signal == 9));
  CHECK(std::chrono::steady_clock::now() - asked >= 4s);
  expect_started(second);
  CHECK(wait_for_file(f.mark("started", 8), 20s));
  std::ofstream(f.mark("release", 8)) << "";
  CHECK(exit_within(f.trial, 20s));
}

TEST_CASE("A waiting launch of a trial killed meanwhile is answered with an error and never starts") {
  AgentFixture f;
  auto first = f.launch(launch_of(f.dir.path, f.ca, 7));
  expect_started(first);
  REQUIRE(wait_for_file(f.mark("started", 7), 20s));
  auto second = f.launch(launch_of(f.dir.path, f.ca, 8, 60'000));
  f.trial->send(f.agent, kill_atom::value, std::uint64_t{8});
  second.receive([](const std::string& refusal) { FAIL("started: '" + refusal + "'"); },
                 [](const caf::error& error) { CHECK(error != caf::sec::request_timeout); });
  std::ofstream(f.mark("release", 7)) << "";
  CHECK(exit_within(f.trial, 20s));
  CHECK_FALSE(wait_for_file(f.mark("started", 8), 500ms));
}
