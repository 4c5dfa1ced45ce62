#include "storage/journal/tests/journal_test_support.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <algorithm>
#include <utility>
#include <vector>

extern char** environ;

namespace volador::storage::testing {

namespace fs = std::filesystem;

constexpr const char* kChildDirVariable = "VOLADOR_JOURNAL_CHILD_DIR";

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  std::random_device random;
  path = fs::temp_directory_path() / ("volador-journal-test-" + std::to_string(::getpid()) + "-" +
                                      std::to_string(counter++) + "-" + std::to_string(random()));
  fs::create_directories(path);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::unique_ptr<Journal> open_journal(const fs::path& dir) {
  auto journal = Journal::open(dir);
  if (!journal) FAIL("open: " << journal.error().message);
  return std::move(*journal);
}

void RocksdbUnderTest::reopen() {
  journal.reset();
  journal = open_journal(tmp.journal());
}

ExperimentRecord make_experiment(std::uint64_t id) {
  return {.id = id,
          .name = "exp-" + std::to_string(id),
          .config_yaml = "name: mnist\nsearcher:\n  name: random\n",
          .config_file_name = "distributed.yaml",
          .state = RunState::active,
          .experiment_seed = 42,
          .progress = 0.25,
          .error_message = "",
          .created_at_ms = 1'700'000'000'000,
          .ended_at_ms = 0,
          .owner = "alice",
          .archived = false};
}

TrialRecord make_trial(std::uint64_t id, std::uint64_t experiment_id) {
  return {.id = id,
          .experiment_id = experiment_id,
          .request_id = id * 10,
          .hparams = {{"lr", 0.01}, {"layers", {64, 32}}, {"optimizer", "adam"}},
          .seed = 7,
          .state = RunState::paused,
          .batches_trained = 1200,
          .restarts = 1,
          .run_id = 2,
          .error_message = "",
          .created_at_ms = 1'700'000'000'001,
          .ended_at_ms = 0,
          .run_token = "0badc0de",
          .run_agents = {"agent-a", "agent-b"}};
}

CheckpointRecord make_checkpoint(std::string uuid, std::uint64_t experiment_id, std::uint64_t trial_id,
                                 std::uint64_t batches) {
  return {.uuid = std::move(uuid),
          .experiment_id = experiment_id,
          .trial_id = trial_id,
          .batches = batches,
          .run_id = 3,
          .validation_metrics = {{"loss", 0.25}, {"accuracy", 0.875}},
          .state = CheckpointState::active,
          .total_bytes = 5'000'000'000,
          .created_at_ms = 1'700'000'000'002,
          .scheduled = false};  // not the default: the round trip must keep it
}

void check_every_log_page(const Journal& journal, std::uint64_t trial_id, const std::vector<std::string>& texts) {
  for (std::uint64_t after = 0; after <= texts.size() + 1; ++after) {
    for (std::size_t limit : {std::size_t{1}, std::size_t{2}, std::size_t{255}, std::size_t{257}, texts.size() + 1}) {
      CAPTURE(after, limit);
      auto page = journal.logs(trial_id, after, limit);
      REQUIRE(page);
      const std::size_t expected = after >= texts.size() ? 0 : std::min(limit, texts.size() - after);
      REQUIRE(page->size() == expected);
      for (std::size_t i = 0; i < expected; ++i) {
        const LogLine& line = (*page)[i];
        if (line.seq != after + 1 + i || line.trial_id != trial_id || line.text != texts[after + i])
          FAIL("line " << i << " of the page: seq " << line.seq << " trial " << line.trial_id << " '" << line.text << "'");
      }
    }
  }
}

MetricRecord make_metrics(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, double loss) {
  return {.trial_id = trial_id, .kind = kind, .batches = batches, .metrics = {{"loss", loss}}, .reported_at_ms = 11};
}

std::vector<LogLine> make_lines(std::initializer_list<const char*> texts) {
  std::vector<LogLine> lines;
  for (const char* text : texts) lines.push_back({.trial_id = 0, .seq = 0, .time_ms = 5, .stream = "stdout", .text = text});
  return lines;
}

std::vector<std::uint64_t> seqs(const std::vector<LogLine>& lines) {
  std::vector<std::uint64_t> out;
  for (const auto& line : lines) out.push_back(line.seq);
  return out;
}

pid_t spawn_child(const std::string& test_name, const fs::path& dir) {
  ::setenv(kChildDirVariable, dir.c_str(), 1);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  std::string exe = "/proc/self/exe";
  std::vector<char*> argv{exe.data(), const_cast<char*>(test_name.c_str()), nullptr};
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::unsetenv(kChildDirVariable);
  REQUIRE(rc == 0);
  return pid;
}

const char* child_dir() { return std::getenv(kChildDirVariable); }

}  // namespace volador::storage::testing
