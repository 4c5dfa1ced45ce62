// The trial actor's answer to its agents' output (actors/interfaces.hpp
// TrialActor, log_atom): the back-pressure on a worker's log starts there.
// A real actor system and an in-memory journal whose writer the test holds.
#include <catch2/catch.hpp>

#include <future>
#include <random>
#include <thread>

#include <caf/all.hpp>

#include "actors/trial_actor.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/wire/codec.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"
#include "storage/journal/durable_reads.hpp"
#include "tests/support/release_on_exit.hpp"

using namespace volador;
using namespace volador::actors;
namespace fs = std::filesystem;

namespace {

const std::string kCommandConfig =
    "name: command\n"
    "entrypoint: python3 train.py\n"
    "hyperparameters: {global_batch_size: 10}\n"
    "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 100}}\n";

constexpr std::uint64_t kTrial = 7;
constexpr std::uint32_t kRun = 3;

std::shared_ptr<config::ExperimentConfig> parse(const std::string& yaml) {
  auto outcome = config::parse_experiment_config(yaml, "command.yaml");
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&outcome)) FAIL(config::format_errors(*errors));
  return std::make_shared<config::ExperimentConfig>(std::get<config::ExperimentConfig>(outcome));
}

// Trial 7 of experiment 1 on its run 3, idle, over `journal`; its checkpoints under `dir`.
TrialActor spawn_trial(caf::actor_system& system, std::shared_ptr<storage::Journal> journal, const fs::path& dir) {
  storage::TrialRecord record{.id = kTrial, .experiment_id = 1, .request_id = 70};
  record.run_id = kRun;
  record.hparams = nlohmann::json::object();
  REQUIRE(journal->put_trial(record));
  master::TrialSpec spec{.record = record,
                         .config = parse(kCommandConfig),
                         .archive = std::make_shared<std::string>("archive"),
                         .store = checkpoints::SharedFsStore::open(dir).value()};
  return system.spawn(trial_actor, MasterContext{.journal = std::move(journal)}, std::move(spec), ExperimentActor{});
}

// One line of run `run`'s rank 0, as an agent ships it.
wire::Bytes output_line(std::uint32_t run, const std::string& text) {
  return wire::encode(wire::LogLines{kTrial, run, {wire::LogEntry{0, 1'000, "stdout", text}}});
}

// The trial's answer to `bytes` shipped as an agent ships output: true, false, or the error's text.
std::string answer_to(caf::actor_system& system, const TrialActor& trial, const wire::Bytes& bytes) {
  caf::scoped_actor agent{system};
  std::string answer;
  agent->request(trial, std::chrono::seconds(30), log_atom::value, bytes)
      .receive([&](bool taken) { answer = taken ? "true" : "false"; },
               [&](const caf::error& error) { answer = caf::to_string(error); });
  return answer;
}

// The texts of the trial's journaled log lines, in order.
std::vector<std::string> journaled_texts(const storage::Journal& journal) {
  const auto lines = journal.logs(kTrial, 0, 100);
  REQUIRE(lines);
  std::vector<std::string> texts;
  for (const auto& line : *lines) texts.push_back(line.text);
  return texts;
}

// The lines polled for until `count` are journaled (at most a few seconds).
std::vector<std::string> journaled_texts_when(const storage::Journal& journal, std::size_t count) {
  std::vector<std::string> texts;
  for (int i = 0; i < 200 && texts.size() < count; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    texts = journaled_texts(journal);
  }
  return texts;
}

}  // namespace

TEST_CASE("A trial answers a message of its worker's output only once the journal wrote its lines") {
  const auto dir = fs::temp_directory_path() / ("volador-trial-logs-" + std::to_string(std::random_device{}()));
  auto journal = std::shared_ptr<storage::Journal>(storage::Journal::in_memory());
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto trial = spawn_trial(system, journal, dir);
  CHECK(answer_to(system, trial, output_line(kRun - 1, "an earlier run's")) == "false");  // taken at once, dropped

  // The writer stays in an earlier batch's completion, so the trial's lines stay queued.
  std::promise<void> writer_held, release_writer;
  auto released = release_writer.get_future().share();
  auto earlier = std::make_shared<storage::JournalBatch>(storage::JournalBatch().put_trial({.id = 8, .experiment_id = 1}));
  journal->commit_async(std::move(earlier), [&writer_held, released](const Status&) {
    writer_held.set_value();
    released.wait();
  });
  writer_held.get_future().wait();
  auto answer = std::async(std::launch::async, [&] { return answer_to(system, trial, output_line(kRun, "printed")); });
  volador::testing::ReleaseOnExit release(release_writer);  // after the futures: it goes first
  CHECK(answer.wait_for(std::chrono::milliseconds(300)) == std::future_status::timeout);
  release.release();
  REQUIRE(answer.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(answer.get() == "true");
  const storage::DurableReads written_only;  // what is written, not what is queued
  CHECK(journaled_texts(*journal) == std::vector<std::string>{"printed"});
  caf::anon_send_exit(trial, caf::exit_reason::user_shutdown);
  fs::remove_all(dir);
}

TEST_CASE("A rank's exit report journals the last lines it carries after the lines shipped before it") {
  const auto dir = fs::temp_directory_path() / ("volador-trial-logs-" + std::to_string(std::random_device{}()));
  auto journal = std::shared_ptr<storage::Journal>(storage::Journal::in_memory());
  caf::actor_system_config config;
  caf::actor_system system{config};
  auto trial = spawn_trial(system, journal, dir);
  auto exit_with = [](std::uint32_t run, const std::string& text) {
    return wire::encode(wire::WorkerExit{.trial_id = kTrial, .run_id = run, .rank = 0, .exit_code = 0, .signal = 0,
                                         .message = "", .output = {wire::LogEntry{0, 1'000, "stdout", text}}});
  };
  caf::scoped_actor agent{system};
  agent->send(trial, exited_atom::value, exit_with(kRun - 1, "an earlier run's"));  // dropped
  CHECK(answer_to(system, trial, output_line(kRun, "printed first")) == "true");
  agent->send(trial, exited_atom::value, exit_with(kRun, "printed last"));
  CHECK(journaled_texts_when(*journal, 2) == std::vector<std::string>{"printed first", "printed last"});
  caf::anon_send_exit(trial, caf::exit_reason::user_shutdown);
  fs::remove_all(dir);
}
