// The agent's back-pressure on a worker's output (actors/log_window.hpp), in
// a real actor system: an agent (no sandbox, no cgroups) runs a worker that
// prints 4 MiB at once, and the test's trial holds its answers.
#include <catch2/catch.hpp>

#include <deque>
#include <fstream>
#include <random>

#include <caf/all.hpp>

#include "actors/agent_actor.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/tls/identity_files.hpp"
#include "runtime/wire/codec.hpp"
#include "storage/archives/archive.hpp"

using namespace volador;
using namespace volador::actors;
namespace fs = std::filesystem;

namespace {

constexpr std::uint64_t kTrial = 7;
constexpr std::uint32_t kRun = 1;
constexpr int kLines = 40'000;  // of 97 bytes: 3.7 MiB, at least 4 messages of at most 1 MiB

// The worker: its numbered lines at once, then it waits to be killed.
constexpr const char* kFloodWorker = R"(#!/bin/sh
pad=0123456789012345678901234567890123456789012345678901234567890123456789012345678901234567890
i=0
while [ $i -lt 40000 ]; do printf '%05d %s\n' $i $pad; i=$((i+1)); done
exec sleep 600
)";

struct Folder {
  fs::path path = fs::temp_directory_path() / ("volador-agent-logs-" + std::to_string(std::random_device{}()));
  Folder() { fs::create_directories(path); }
  ~Folder() { fs::remove_all(path); }
};

// An agent without sandbox or cgroups whose worker is the flood script; the agent's identity folder holds the CA's certificate.
AgentOptions flood_agent(const fs::path& dir, const tls::CertificateAuthority& ca) {
  const auto worker = dir / "flood.sh";
  std::ofstream(worker) << kFloodWorker;
  fs::permissions(worker, fs::perms::owner_all);
  REQUIRE(tls::install_identity(ca.issue("agent-a").value(), dir / "agent-tls"));
  fs::create_directories(dir / "work");
  AgentOptions options{.agent_id = "agent-a", .slots = {wire::SlotSpec{}}, .work_dir = dir / "work",
                       .worker_program = worker, .worker_tls_dir = dir / "agent-tls"};
  options.limits.enabled = false;
  options.sandbox = false;
  return options;
}

// Rank 0 of trial 7's run 1 on slot 0, with its identity from `ca`.
wire::LaunchSpec flood_launch(const fs::path& dir, const tls::CertificateAuthority& ca) {
  fs::create_directories(dir / "project");
  std::ofstream(dir / "project" / "README") << "flood\n";
  const auto identity = ca.issue_rank({.experiment_id = 1, .trial_id = kTrial, .run_id = kRun, .rank = 0},
                                      std::chrono::hours(1)).value();
  wire::LaunchSpec spec;
  spec.trial_id = kTrial;
  spec.experiment_id = 1;
  spec.run_id = kRun;
  spec.entrypoint = "sh flood.sh";
  spec.archive = archives::pack_directory(dir / "project").value();
  spec.master_host = "127.0.0.1";
  spec.rank_certificate = identity.certificate;
  spec.rank_private_key = identity.private_key;
  spec.shm_size_bytes = 0;  // the host's /dev/shm: no sandbox
  return spec;
}

// The master as the agent sees it: it takes the registration and ignores the rest.
caf::behavior accepting_master() {
  return {[](register_atom, const wire::Bytes&, const caf::actor&) { return true; },
          [](work_disk_atom, const wire::Bytes&) {}};
}

// A message of output the trial holds unanswered.
struct HeldOutput {
  wire::LogLines logs;
  caf::typed_response_promise<bool> answer;
};

// The next message of output within `wait`, held; nullopt when none came.
std::optional<HeldOutput> next_output(caf::scoped_actor& trial, std::chrono::milliseconds wait) {
  std::optional<HeldOutput> held;
  trial->receive(
      [&](log_atom, const wire::Bytes& bytes) {
        held = HeldOutput{wire::decode<wire::LogLines>(bytes).value(), trial->make_response_promise<bool>()};
      },
      caf::after(wait) >> [] {});
  return held;
}

// The number each flood line starts with, in the order received.
void collect_numbers(const wire::LogLines& logs, std::vector<int>& numbers) {
  for (const auto& line : logs.lines)
    if (line.stream == "stdout") numbers.push_back(std::stoi(line.text.substr(0, 5)));
}

}  // namespace

TEST_CASE("An agent has at most two messages of a worker's output unanswered, and ships the rest in order as answers come") {
  Folder dir;
  auto ca = tls::CertificateAuthority::open_or_create(dir.path / "ca").value();
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto master = system.spawn(accepting_master);
  auto agent = system.spawn(agent_actor, flood_agent(dir.path, ca), caf::actor(master));
  caf::scoped_actor trial{system};
  trial->request(agent, std::chrono::seconds(30), launch_atom::value, wire::encode(flood_launch(dir.path, ca)),
                 caf::actor(trial))
      .receive([](const std::string& refusal) { REQUIRE(refusal == ""); },
               [](const caf::error& error) { FAIL(caf::to_string(error)); });

  std::deque<HeldOutput> held;
  std::vector<int> numbers;  // of the lines received
  auto receive_one = [&](std::chrono::milliseconds wait) {
    auto output = next_output(trial, wait);
    if (!output) return false;
    collect_numbers(output->logs, numbers);
    held.push_back(std::move(*output));
    return true;
  };
  auto answer_oldest = [&] {
    held.front().answer.deliver(true);
    held.pop_front();
  };
  for (std::size_t i = 0; i < kLogWindow; ++i) REQUIRE(receive_one(std::chrono::seconds(20)));
  // Five of the agent's flushes later, the output printed meanwhile (at least 1.7 MiB) still waits.
  CHECK_FALSE(receive_one(std::chrono::milliseconds(500)));
  answer_oldest();
  REQUIRE(receive_one(std::chrono::seconds(20)));  // one answer lets one more go
  CHECK_FALSE(receive_one(std::chrono::milliseconds(500)));

  // Answered as they come, the rest arrives: every line once, in order.
  while (numbers.size() < static_cast<std::size_t>(kLines)) {
    REQUIRE(held.size() == kLogWindow);
    answer_oldest();
    REQUIRE(receive_one(std::chrono::seconds(20)));
  }
  while (!held.empty()) answer_oldest();
  REQUIRE(numbers.size() == static_cast<std::size_t>(kLines));
  for (int i = 0; i < kLines; ++i) REQUIRE(numbers[i] == i);

  trial->send(agent, kill_atom::value, kTrial);
  trial->receive([](exited_atom, const wire::Bytes&) {}, caf::after(std::chrono::seconds(30)) >> [] { FAIL("no exit"); });
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
}
