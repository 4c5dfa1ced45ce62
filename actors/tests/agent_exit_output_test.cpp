// An ended rank's last output lines and its exit report, from a real agent
// (no sandbox, no cgroups) to the test's trial: in the exit report when the
// launch says its trial takes them there (LaunchSpec.exitCarriesOutput, one
// message), else in a LogLines message before it (what masters before
// 2026-11-30 need).
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "actors/agent_actor.hpp"
#include "actors/tests/agent_test_support.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/wire/codec.hpp"

using namespace volador;
using namespace volador::actors;

namespace {

constexpr const char* kTwoLinesWorker = "#!/bin/sh\necho first\necho last\n";

// What reached the trial about its rank, in order: the lines of each LogLines
// message (answered), then the exit report.
struct RankEnd {
  std::vector<std::vector<std::string>> log_messages;
  std::optional<wire::WorkerExit> exit;
};

std::vector<std::string> texts(const std::vector<wire::LogEntry>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines)
    if (line.stream == "stdout") out.push_back(line.text);
  return out;
}

// Runs kTwoLinesWorker through an agent, launched with `exit_carries_output`.
RankEnd run_rank(bool exit_carries_output) {
  testing::TempFolder dir("volador-agent-exit-output-");
  auto ca = tls::CertificateAuthority::open_or_create(dir.path / "ca").value();
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto master = system.spawn(testing::accepting_master);
  auto agent = system.spawn(agent_actor, testing::script_agent(dir.path, ca, kTwoLinesWorker), caf::actor(master));
  caf::scoped_actor trial{system};
  auto launch = testing::script_launch(dir.path, ca, 7, 1);
  launch.exit_carries_output = exit_carries_output;
  trial->request(agent, std::chrono::seconds(30), launch_atom::value, wire::encode(launch), caf::actor(trial))
      .receive([](const std::string& refusal) { REQUIRE(refusal == ""); },
               [](const caf::error& error) { FAIL(caf::to_string(error)); });
  RankEnd end;
  while (!end.exit) {
    bool received = false;
    trial->receive(
        [&](log_atom, const wire::Bytes& bytes) {
          end.log_messages.push_back(texts(wire::decode<wire::LogLines>(bytes).value().lines));
          received = true;
          return true;
        },
        [&](exited_atom, const wire::Bytes& bytes) {
          end.exit = wire::decode<wire::WorkerExit>(bytes).value();
          received = true;
        },
        caf::after(std::chrono::seconds(30)) >> [] {});
    REQUIRE(received);
  }
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
  return end;
}

}  // namespace

TEST_CASE("An ended rank's last lines go in its exit report when its launch says its trial takes them there") {
  const auto end = run_rank(true);
  CHECK(end.log_messages.empty());
  CHECK(end.exit->exit_code == 0);
  CHECK(texts(end.exit->output) == std::vector<std::string>{"first", "last"});
}

TEST_CASE("An ended rank's last lines go in a message of their own before its exit report for a master that did not say so") {
  const auto end = run_rank(false);
  std::vector<std::string> shipped;
  for (const auto& message : end.log_messages) shipped.insert(shipped.end(), message.begin(), message.end());
  CHECK(shipped == std::vector<std::string>{"first", "last"});
  CHECK(end.exit->output.empty());
}
