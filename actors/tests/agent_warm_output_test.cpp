// A warm worker's output, from a real agent (no sandbox, no cgroups) to the
// test's trial, when the worker finishes a handed-over trial before the
// agent's hand-over returns (a short trial on a loaded machine): the trial's
// lines still go to that trial. The agent's log sink holds the hand-over
// until the worker said it finished, as a descheduled agent thread would.
#include <catch2/catch.hpp>

#include <atomic>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

#include <caf/all.hpp>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "actors/agent_actor.hpp"
#include "actors/tests/agent_test_support.hpp"
#include "runtime/tls/certificate_authority.hpp"
#include "runtime/wire/codec.hpp"

using namespace volador;
using namespace volador::actors;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// A warm worker speaking the agent channel's frames (a 4-byte little-endian
// length, then the message): for each trial, counted from the launch's
// VOLADOR_TRIAL_ID, it prints a line naming the trial, sends the
// WorkerFinished the test wrote for it, marks that it did, and waits for the
// next assignment.
constexpr const char* kWarmWorker = R"(#!/usr/bin/python3
import os, struct, sys
to_me, to_agent = (int(fd) for fd in os.environ["VOLADOR_AGENT_CHANNEL"].split(","))
marks, trial = os.environ["MARKS"], int(os.environ["VOLADOR_TRIAL_ID"])
def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = os.read(to_me, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data
while True:
    print(f"line of trial {trial}", flush=True)
    with open(f"{marks}/finished-{trial}.bin", "rb") as f:
        finished = f.read()
    os.write(to_agent, struct.pack("<I", len(finished)) + finished)
    open(f"{marks}/finished-{trial}", "w").close()
    read_exactly(struct.unpack("<I", read_exactly(4))[0])
    trial += 1
)";

bool wait_for_file(const fs::path& path, std::chrono::milliseconds patience) {
  const auto deadline = std::chrono::steady_clock::now() + patience;
  while (!fs::exists(path) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(5ms);
  return fs::exists(path);
}

// Holds the agent's "handed to idle worker" log call until the worker marked
// that it finished that trial, and a moment more for the agent's reader
// thread to take the message.
class HandOverHoldingSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit HandOverHoldingSink(fs::path marks) : marks_(std::move(marks)) {}
  std::atomic<int> held{0};  // hand-overs held until their trial finished

 protected:
  void sink_it_(const spdlog::details::log_msg& message) override {
    const std::string text(message.payload.data(), message.payload.size());
    std::smatch trial;
    if (!std::regex_search(text, trial, std::regex("^trial ([0-9]+) .*handed to idle worker"))) return;
    if (!wait_for_file(marks_ / ("finished-" + trial[1].str()), 20s)) return;
    std::this_thread::sleep_for(200ms);
    ++held;
  }
  void flush_() override {}

 private:
  fs::path marks_;
};

// `sink` added to spdlog's default logger for the scope's life.
struct AddedSink {
  std::shared_ptr<spdlog::sinks::sink> sink;
  explicit AddedSink(std::shared_ptr<spdlog::sinks::sink> added) : sink(std::move(added)) {
    spdlog::default_logger()->sinks().push_back(sink);
  }
  ~AddedSink() { std::erase(spdlog::default_logger()->sinks(), sink); }
};

// The stdout lines that reached the trial for each trial id, from LogLines
// messages and exit reports, until `trials` exit reports came.
std::map<std::uint64_t, std::vector<std::string>> lines_until_exits(caf::scoped_actor& trial, std::size_t trials) {
  std::map<std::uint64_t, std::vector<std::string>> lines;
  const auto add = [&](std::uint64_t id, const std::vector<wire::LogEntry>& entries) {
    for (const auto& entry : entries)
      if (entry.stream == "stdout") lines[id].push_back(entry.text);
  };
  for (std::size_t exits = 0; exits < trials;) {
    bool received = false;
    trial->receive(
        [&](log_atom, const wire::Bytes& bytes) {
          const auto logs = wire::decode<wire::LogLines>(bytes).value();
          add(logs.trial_id, logs.lines);
          received = true;
          return true;
        },
        [&](exited_atom, const wire::Bytes& bytes) {
          const auto exit = wire::decode<wire::WorkerExit>(bytes).value();
          add(exit.trial_id, exit.output);
          ++exits;
          received = true;
        },
        caf::after(30s) >> [] {});
    REQUIRE(received);
  }
  return lines;
}

}  // namespace

TEST_CASE("A trial that a warm worker ends before the agent's hand-over returns keeps its own lines") {
  testing::TempFolder dir("volador-agent-warm-output-");
  auto ca = tls::CertificateAuthority::open_or_create(dir.path / "ca").value();
  for (std::uint64_t id : {1, 2, 3}) {
    const auto finished = wire::encode(wire::WorkerFinished{id, 1, 0});
    std::ofstream(dir.path / ("finished-" + std::to_string(id) + ".bin"), std::ios::binary)
        .write(finished.data(), static_cast<std::streamsize>(finished.size()));
  }
  auto sink = std::make_shared<HandOverHoldingSink>(dir.path);
  const AddedSink added(sink);

  caf::actor_system_config config;
  caf::actor_system system{config};
  auto master = system.spawn(testing::accepting_master);
  auto agent = system.spawn(agent_actor, testing::script_agent(dir.path, ca, kWarmWorker), caf::actor(master));
  caf::scoped_actor trial{system};
  std::map<std::uint64_t, std::vector<std::string>> lines;
  for (std::uint64_t id : {1, 2, 3}) {
    auto launch = testing::script_launch(dir.path, ca, id, 1);
    launch.environment_variables = {"MARKS=" + dir.path.string()};
    launch.exit_carries_output = true;
    trial->request(agent, 60s, launch_atom::value, wire::encode(launch), caf::actor(trial))
        .receive([](const std::string& refusal) { REQUIRE(refusal == ""); },
                 [](const caf::error& error) { FAIL(caf::to_string(error)); });
    lines.merge(lines_until_exits(trial, 1));
  }
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(master, caf::exit_reason::user_shutdown);

  CHECK(sink->held == 2);  // trials 2 and 3 went to the warm worker, which finished each first
  CHECK(lines[1] == std::vector<std::string>{"line of trial 1"});
  CHECK(lines[2] == std::vector<std::string>{"line of trial 2"});
  CHECK(lines[3] == std::vector<std::string>{"line of trial 3"});
}
