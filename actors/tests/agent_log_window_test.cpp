// The agent's back-pressure on a worker's output (actors/log_window.hpp), in
// a real actor system: an agent (no sandbox, no cgroups) runs a worker that
// prints 4 MiB at once, and the test's trial holds its answers.
#include <catch2/catch.hpp>

#include <deque>

#include <caf/all.hpp>

#include "actors/agent_actor.hpp"
#include "actors/tests/agent_test_support.hpp"
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

// An agent whose worker floods its output (kFloodWorker) to the test's trial,
// which holds each message unanswered until told.
struct FloodedTrial {
  testing::TempFolder dir{"volador-agent-logs-"};
  tls::CertificateAuthority ca = tls::CertificateAuthority::open_or_create(dir.path / "ca").value();
  caf::actor_system_config config;
  caf::actor_system system{config};
  caf::actor master = system.spawn(testing::accepting_master);
  caf::actor agent;
  caf::scoped_actor trial{system};
  std::deque<HeldOutput> held;
  std::vector<int> numbers;  // of the lines received

  explicit FloodedTrial(std::chrono::milliseconds log_timeout = master::Timings{}.log_timeout) {
    auto options = testing::script_agent(dir.path, ca, kFloodWorker);
    options.timings.log_timeout = log_timeout;
    agent = caf::actor_cast<caf::actor>(system.spawn(agent_actor, std::move(options), master));
    trial->request(agent, std::chrono::seconds(30), launch_atom::value,
                   wire::encode(testing::script_launch(dir.path, ca, kTrial, kRun)), caf::actor(trial))
        .receive([](const std::string& refusal) { REQUIRE(refusal == ""); },
                 [](const caf::error& error) { FAIL(caf::to_string(error)); });
  }
  ~FloodedTrial() {
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(master, caf::exit_reason::user_shutdown);
  }

  // Kills the trial (its held messages answered first): whether the agent reported its rank's exit within 30 s.
  bool killed() {
    while (!held.empty()) answer_oldest();
    trial->send(agent, kill_atom::value, kTrial);
    bool exited = false;
    trial->receive([&](exited_atom, const wire::Bytes&) { exited = true; }, caf::after(std::chrono::seconds(30)) >> [] {});
    return exited;
  }

  // Whether a message of output came within `wait` (held, its lines' numbers collected).
  bool receive_one(std::chrono::milliseconds wait) {
    auto output = next_output(trial, wait);
    if (!output) return false;
    collect_numbers(output->logs, numbers);
    held.push_back(std::move(*output));
    return true;
  }
  void answer_oldest() {
    held.front().answer.deliver(true);
    held.pop_front();
  }
  // Whether the lines received so far are the first ones, each once, in order.
  [[nodiscard]] bool in_order() const {
    for (std::size_t i = 0; i < numbers.size(); ++i)
      if (numbers[i] != static_cast<int>(i)) return false;
    return true;
  }
};

}  // namespace

TEST_CASE("An agent has at most two messages of a worker's output unanswered, and ships the rest in order as answers come") {
  FloodedTrial flood;
  for (std::size_t i = 0; i < kLogWindow; ++i) REQUIRE(flood.receive_one(std::chrono::seconds(20)));
  // Five of the agent's flushes later, the output printed meanwhile (at least 1.7 MiB) still waits.
  CHECK_FALSE(flood.receive_one(std::chrono::milliseconds(500)));
  flood.answer_oldest();
  REQUIRE(flood.receive_one(std::chrono::seconds(20)));  // one answer lets one more go
  CHECK_FALSE(flood.receive_one(std::chrono::milliseconds(500)));

  // Answered as they come, the rest arrives: every line once, in order.
  while (flood.numbers.size() < static_cast<std::size_t>(kLines)) {
    REQUIRE(flood.held.size() == kLogWindow);
    flood.answer_oldest();
    REQUIRE(flood.receive_one(std::chrono::seconds(20)));
  }
  REQUIRE(flood.numbers.size() == static_cast<std::size_t>(kLines));
  CHECK(flood.in_order());
  CHECK(flood.killed());
}

TEST_CASE("Output unanswered for log_timeout frees its places, and the rest ships on in order") {
  FloodedTrial flood(std::chrono::milliseconds(1500));
  for (std::size_t i = 0; i < kLogWindow; ++i) REQUIRE(flood.receive_one(std::chrono::seconds(20)));
  CHECK_FALSE(flood.receive_one(std::chrono::milliseconds(500)));  // within log_timeout: the window holds
  for (std::size_t i = 0; i < kLogWindow; ++i) REQUIRE(flood.receive_one(std::chrono::seconds(10)));  // none answered
  CHECK(flood.in_order());
  CHECK(flood.killed());
}
