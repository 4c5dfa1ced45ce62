#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "storage/journal/journal.hpp"
#include "storage/journal/journal_codec.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/log_chunks.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

namespace fs = std::filesystem;
using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

// (kind, batches, loss) of each report, in the journal's order.
using Report = std::tuple<MetricKind, std::uint64_t, double>;
std::vector<Report> reports(const Journal& journal, std::uint64_t trial_id) {
  auto records = journal.metrics(trial_id);
  REQUIRE(records);
  std::vector<Report> out;
  for (const auto& r : *records) out.emplace_back(r.kind, r.batches, r.metrics.at("loss"));
  return out;
}

constexpr auto T = MetricKind::training;
constexpr auto V = MetricKind::validation;

// Every kind of operation, for experiment `id` and its trial `id`.
JournalBatch mixed_batch(std::uint64_t id) {
  JournalBatch batch;
  batch.put_experiment(make_experiment(id))
      .put_trial(make_trial(id, id))
      .put_searcher_state(id, {{"searcher", "random"}, {"created", id}})
      .append_metrics(make_metrics(id, T, 100, 1.0))
      .append_metrics(make_metrics(id, V, 100, 2.0))
      .put_checkpoint(make_checkpoint("ckpt-" + std::to_string(id), id, id, 100));
  return batch;
}

// Checks that everything mixed_batch(id) writes is there.
void check_mixed_batch(const Journal& journal, std::uint64_t id) {
  check_same(*journal.experiment(id), make_experiment(id));
  check_same(journal.trials(id)->at(0), make_trial(id, id));
  CHECK((*journal.search_log(id))->snapshot == nlohmann::json{{"searcher", "random"}, {"created", id}});
  CHECK(reports(journal, id) == std::vector<Report>{{T, 100, 1.0}, {V, 100, 2.0}});
  check_same(journal.checkpoints_of_trial(id)->at(0), make_checkpoint("ckpt-" + std::to_string(id), id, id, 100));
}

constexpr int kCrashBatches = 10;

}  // namespace

TEST_CASE("a batch appended to another follows its operations, their encoded values with them", "[journal][batch]") {
  auto journal = Journal::in_memory();
  JournalBatch batch;
  batch.put_experiment(make_experiment(1)).append_metrics(make_metrics(1, T, 50, 0.5));
  JournalBatch more = mixed_batch(1);
  more.append_metrics(make_metrics(1, V, 200, 3.0));
  batch.append(std::move(more));
  REQUIRE(batch.operations().size() == 9);
  REQUIRE(journal->commit(batch));
  CHECK(reports(*journal, 1) == std::vector<Report>{{T, 50, 0.5}, {T, 100, 1.0}, {V, 100, 2.0}, {V, 200, 3.0}});
}

TEMPLATE_TEST_CASE("a batch of mixed operations is written together and survives reopening", "[journal][batch]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->commit(mixed_batch(1)));
  check_mixed_batch(*journal, 1);
  REQUIRE(journal->commit(JournalBatch()));
  under_test.reopen();
  check_mixed_batch(*journal, 1);
}

TEMPLATE_TEST_CASE("a batch with a record that cannot be encoded writes nothing", "[journal][batch]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->append_metrics(make_metrics(1, T, 200, 9.0)));

  JournalBatch batch = mixed_batch(1);
  batch.delete_metrics_after(1, 0);
  SECTION("JSON that cannot be dumped, last") { batch.put_searcher_state(1, std::string("\xff\xfe")); }
  SECTION("an empty checkpoint uuid, last") { batch.put_checkpoint(make_checkpoint("", 1, 1, 5)); }
  SECTION("JSON that cannot be dumped, first") {
    TrialRecord bad = make_trial(2, 1);
    bad.hparams = {{"name", std::string("\xc3")}};
    batch = JournalBatch().put_trial(bad).put_experiment(make_experiment(1)).delete_metrics_after(1, 0);
  }
  auto refused = journal->commit(batch);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);

  CHECK(journal->experiment(1).error().code == ErrorCode::not_found);
  CHECK(journal->trial(1).error().code == ErrorCode::not_found);
  CHECK(journal->trial(2).error().code == ErrorCode::not_found);
  CHECK_FALSE(journal->search_log(1)->has_value());
  CHECK(journal->checkpoint("ckpt-1").error().code == ErrorCode::not_found);
  CHECK(journal->checkpoints_of_experiment(1)->empty());
  CHECK(reports(*journal, 1) == std::vector<Report>{{T, 200, 9.0}});
}

TEST_CASE("a batch encodes its metric reports and log lines as they are added", "[journal][batch]") {
  // The journal's writer thread then only files them under their keys: a
  // metric flood's encoding is done by the threads that build the batches.
  const MetricRecord report = make_metrics(3, V, 40, 0.25);
  const std::vector<LogLine> lines{{3, 1, 100, "stdout", "loss=1"}, {3, 2, 101, "stderr", "done"}};
  JournalBatch batch;
  batch.append_metrics(report).put_experiment(make_experiment(1)).put_numbered_logs(lines);

  const auto& report_values = batch.encoded_values(0);
  REQUIRE(report_values);
  REQUIRE(report_values->size() == 1);
  auto decoded = codec::decode<MetricRecord>("m/", report_values->front());
  REQUIRE(decoded);
  CHECK(*decoded == report);
  CHECK(batch.encoded_values(1)->empty());  // encoded by the writer
  const auto& line_values = batch.encoded_values(2);
  REQUIRE(line_values);
  REQUIRE(line_values->size() == 1);  // one chunk (log_chunks.hpp)
  auto chunk = log_chunks::decode(keys::log(3, 2), line_values->front());
  REQUIRE(chunk);
  CHECK(*chunk == lines);
}

TEMPLATE_TEST_CASE("reports appended in one batch get distinct increasing seqs", "[journal][batch]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->append_metrics(make_metrics(1, T, 100, 1.0)));
  REQUIRE(journal->commit(JournalBatch()
                              .append_metrics(make_metrics(1, T, 100, 2.0))
                              .append_metrics(make_metrics(1, V, 100, 5.0))
                              .append_metrics(make_metrics(1, T, 100, 3.0))
                              .append_metrics(make_metrics(2, T, 100, 6.0))
                              .append_metrics(make_metrics(1, T, 100, 4.0))));
  REQUIRE(journal->append_metrics(make_metrics(1, T, 100, 4.5)));
  CHECK(reports(*journal, 1) ==
        std::vector<Report>{{T, 100, 1.0}, {T, 100, 2.0}, {T, 100, 3.0}, {T, 100, 4.0}, {T, 100, 4.5}, {V, 100, 5.0}});
  CHECK(reports(*journal, 2) == std::vector<Report>{{T, 100, 6.0}});
}

TEMPLATE_TEST_CASE("delete_metrics_after removes the trial's later reports of both kinds", "[journal][batch]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  for (std::uint64_t batches : {0u, 100u, 200u, 201u, 300u}) {
    REQUIRE(journal->append_metrics(make_metrics(1, T, batches, static_cast<double>(batches))));
    REQUIRE(journal->append_metrics(make_metrics(1, V, batches, -static_cast<double>(batches))));
    REQUIRE(journal->append_metrics(make_metrics(2, T, batches, static_cast<double>(batches))));
  }
  const std::vector<Report> untouched = reports(*journal, 2);

  SECTION("equal batches are kept, greater ones removed") {
    REQUIRE(journal->delete_metrics_after(1, 200));
    CHECK(reports(*journal, 1) == std::vector<Report>{{T, 0, 0.0}, {T, 100, 100.0}, {T, 200, 200.0},
                                                      {V, 0, -0.0}, {V, 100, -100.0}, {V, 200, -200.0}});
  }
  SECTION("after 0 keeps only batches 0") {
    REQUIRE(journal->delete_metrics_after(1, 0));
    CHECK(reports(*journal, 1) == std::vector<Report>{{T, 0, 0.0}, {V, 0, -0.0}});
  }
  SECTION("after the largest batches deletes nothing") {
    REQUIRE(journal->delete_metrics_after(1, std::numeric_limits<std::uint64_t>::max()));
    CHECK(reports(*journal, 1).size() == 10);
  }
  SECTION("a report appended after the deletion in the same batch is kept, one before it is not") {
    REQUIRE(journal->commit(JournalBatch()
                                .append_metrics(make_metrics(1, T, 400, 1.0))
                                .delete_metrics_after(1, 100)
                                .append_metrics(make_metrics(1, V, 300, 2.0))
                                .append_metrics(make_metrics(1, T, 400, 3.0))));
    CHECK(reports(*journal, 1) == std::vector<Report>{{T, 0, 0.0}, {T, 100, 100.0}, {T, 400, 3.0},
                                                      {V, 0, -0.0}, {V, 100, -100.0}, {V, 300, 2.0}});
  }
  CHECK(reports(*journal, 2) == untouched);
  CHECK(untouched.size() == 5);
}

TEMPLATE_TEST_CASE("concurrent batches over the same trials neither deadlock nor lose reports", "[journal][batch]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 8;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::uint64_t first = t % 2 == 0 ? 1 : 2;  // half the threads name the trials in the other order
      for (int i = 0; i < kPerThread; ++i) {
        const double loss = t * 100 + i;
        JournalBatch batch;
        batch.append_metrics(make_metrics(first, T, 10, loss)).append_metrics(make_metrics(3 - first, T, 10, loss));
        if (t == 0) batch.put_checkpoint(make_checkpoint("shared", 1, 1, static_cast<std::uint64_t>(i)));
        if (!journal->commit(batch)) ++failures;
        if (!journal->append_metrics(make_metrics(first, V, 10, loss))) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  REQUIRE(failures == 0);
  for (std::uint64_t trial : {1u, 2u}) {
    std::multiset<double> losses;
    for (const auto& [kind, batches, loss] : reports(*journal, trial)) {
      if (kind == T) losses.insert(loss);
    }
    CHECK(losses.size() == kThreads * kPerThread);
    CHECK(std::set<double>(losses.begin(), losses.end()).size() == kThreads * kPerThread);
  }
  // Two training reports per batch, one validation report per single append.
  CHECK(reports(*journal, 1).size() + reports(*journal, 2).size() == 3 * kThreads * kPerThread);
  CHECK(journal->checkpoints_of_trial(1)->size() == 1);
}

TEMPLATE_TEST_CASE("successful commits are counted with their reports and checkpoints and refused ones are not",
                   "[journal][batch]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->commit(mixed_batch(1)));
  REQUIRE(journal->commit(mixed_batch(2)));
  REQUIRE(journal->commit(JournalBatch()));
  CHECK_FALSE(journal->put_checkpoint(make_checkpoint("", 1, 1, 100)));  // an empty uuid is refused
  const auto stats = journal->stats();
  CHECK(stats.commits == 2);
  CHECK(stats.training_reports == 2);
  CHECK(stats.validation_reports == 2);
  CHECK(stats.checkpoints == 2);
  CHECK(stats.commits_within.back() <= 2);
  CHECK(stats.commit_seconds >= 0);
}

TEST_CASE("every committed batch survives a kill -9 right after it", "[journal][batch][process]") {
  TempDir tmp;
  const pid_t child = spawn_child("journal child killed after committing batches", tmp.path);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);

  auto journal = open_journal(tmp.journal());
  REQUIRE(journal->experiments()->size() == kCrashBatches);
  for (std::uint64_t id = 1; id <= kCrashBatches; ++id) check_mixed_batch(*journal, id);
}

TEST_CASE("journal child killed after committing batches", "[.][child]") {
  if (child_dir() == nullptr) return;
  auto journal = open_journal(fs::path(child_dir()) / "journal");
  for (std::uint64_t id = 1; id <= kCrashBatches; ++id) REQUIRE(journal->commit(mixed_batch(id)));
  ::kill(::getpid(), SIGKILL);
}
