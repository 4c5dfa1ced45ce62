// Log lines that a batch appends (JournalBatch::append_logs): numbered by the
// journal as it queues the batch, in order with the trial's other lines, and
// written with the batch's other records, all or nothing.
#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "storage/journal/journal.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

std::vector<std::string> texts(const std::vector<LogLine>& lines) {
  std::vector<std::string> out;
  for (const auto& line : lines) out.push_back(line.text);
  return out;
}

// Trial `id`'s record, ended (COMPLETED).
TrialRecord ended_trial(std::uint64_t id) {
  TrialRecord record = make_trial(id, 1);
  record.state = RunState::completed;
  return record;
}

// Queues `batch` without waiting; the future holds the write's outcome.
std::future<Status> commit_later(Journal& journal, JournalBatch batch) {
  auto outcome = std::make_shared<std::promise<Status>>();
  auto written = outcome->get_future();
  journal.commit_async(std::make_shared<const JournalBatch>(std::move(batch)),
                       [outcome](const Status& status) { outcome->set_value(status); });
  return written;
}

}  // namespace

TEMPLATE_TEST_CASE("a batch's log lines are numbered after the lines appended before it and continue after reopening",
                   "[journal][logs]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(*journal->append_logs(4, make_lines({"a", "b"})) == 2);
  journal->append_logs_async(4, make_lines({"c"}), [](const Status&) {});
  REQUIRE(journal->commit(JournalBatch()
                              .put_trial(make_trial(4, 1))
                              .append_logs(4, make_lines({"d", "e"}))
                              .append_metrics(make_metrics(4, MetricKind::validation, 10, 0.5))
                              .append_logs(8, make_lines({"other"}))
                              .append_logs(4, make_lines({"f"}))));
  auto queued = commit_later(*journal, JournalBatch().append_logs(4, make_lines({"g"})).put_trial(make_trial(4, 1)));
  CHECK(*journal->append_logs(4, make_lines({"h"})) == 8);
  REQUIRE(queued.get());
  under_test.reopen();
  REQUIRE(journal->commit(JournalBatch().append_logs(4, make_lines({"i"})).append_logs(8, make_lines({"other 2"}))));

  auto lines = journal->logs(4, 0, 100);
  REQUIRE(lines);
  CHECK(texts(*lines) == std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h", "i"});
  CHECK(seqs(*lines) == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK((*lines)[3].trial_id == 4);
  CHECK(texts(*journal->logs(8, 0, 100)) == std::vector<std::string>{"other", "other 2"});
  CHECK(journal->metrics(4)->size() == 1);
}

TEST_CASE("a batch's log lines travel in its one write, numbered as the commit observer sees them", "[journal][logs]") {
  auto journal = Journal::in_memory();
  std::vector<std::vector<std::uint64_t>> observed;  // the seqs of each batch written, on the writer thread
  journal->observe_commits([&observed](const JournalBatch& batch) {
    std::vector<std::uint64_t> batch_seqs;
    for (const auto& operation : batch.operations()) {
      CHECK_FALSE(std::holds_alternative<JournalBatch::LogAppend>(operation));
      if (const auto* lines = std::get_if<JournalBatch::NumberedLogLines>(&operation))
        for (std::uint64_t seq : seqs(lines->lines)) batch_seqs.push_back(seq);
    }
    observed.push_back(batch_seqs);
  });
  REQUIRE(*journal->append_logs(3, make_lines({"launching"})) == 1);
  REQUIRE(journal->commit(
      JournalBatch().put_trial(make_trial(3, 1)).append_logs(3, make_lines({"the command finished", "and more"}))));
  CHECK(journal->stats().commits == 2);
  CHECK(observed == std::vector<std::vector<std::uint64_t>>{{1}, {2, 3}});
}

TEMPLATE_TEST_CASE("a batch with log lines and a record that cannot be encoded writes neither", "[journal][logs]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(*journal->append_logs(4, make_lines({"kept"})) == 1);
  auto refused = journal->commit(JournalBatch()
                                     .append_logs(4, make_lines({"lost"}))
                                     .put_trial(make_trial(4, 1))
                                     .put_checkpoint(make_checkpoint("", 1, 4, 5)));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(journal->trial(4).error().code == ErrorCode::not_found);
  CHECK(texts(*journal->logs(4, 0, 10)) == std::vector<std::string>{"kept"});

  // The refused line's seq stays unused; later lines page on after it, also reopened.
  REQUIRE(journal->commit(JournalBatch().append_logs(4, make_lines({"next"}))));
  under_test.reopen();
  REQUIRE(journal->append_logs(4, make_lines({"last"})));
  CHECK(texts(*journal->logs(4, 0, 10)) == std::vector<std::string>{"kept", "next", "last"});
  CHECK(texts(*journal->logs(4, 1, 10)) == std::vector<std::string>{"next", "last"});
}

TEST_CASE("a batch whose log lines cannot be numbered fails alone, its completion on the writer thread",
          "[journal][logs]") {
  std::atomic<bool> failing{true};
  Journal journal(std::make_unique<SeekHookStore>([&failing]() -> Status {
    if (failing) return fail(Error::io("the disk is gone"));
    return {};
  }));
  auto numbered_first = commit_later(journal, JournalBatch().put_trial(make_trial(4, 1)).append_logs(4, make_lines({"a"})));
  const Status refused = numbered_first.get();
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::io);
  CHECK(journal.trial(4).error().code == ErrorCode::not_found);

  failing = false;  // the next append reads the trial's last seq again
  REQUIRE(journal.commit(JournalBatch().put_trial(make_trial(4, 1)).append_logs(4, make_lines({"b"}))));
  CHECK(seqs(*journal.logs(4, 0, 10)) == std::vector<std::uint64_t>{1});
  CHECK(journal.trial(4));
}

// The journal keeps a trial's last log seq and highest metric batches while
// it runs; kept for every trial it ever saw, they grew with a long search.
TEMPLATE_TEST_CASE("the journal lets go of an ended trial's append state and numbers its later lines on",
                   "[journal][logs]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  constexpr std::uint64_t kTrials = 20;
  for (std::uint64_t trial = 1; trial <= kTrials; ++trial) {
    REQUIRE(journal->commit(JournalBatch()
                                .put_trial(make_trial(trial, 1))
                                .append_logs(trial, make_lines({"a", "b"}))
                                .append_metrics(make_metrics(trial, MetricKind::validation, 10, 0.5))));
    REQUIRE(journal->commit(JournalBatch().put_trial(ended_trial(trial))));
  }
  const std::uint64_t running = kTrials + 1;
  REQUIRE(journal->append_logs(running, make_lines({"running"})));
  CHECK(journal->trials_with_append_state() == 1);  // the running one

  // After its end, a trial's lines and reports go on from the stored ones.
  REQUIRE(journal->commit(JournalBatch()
                              .append_logs(7, make_lines({"c"}))
                              .append_metrics(make_metrics(7, MetricKind::validation, 20, 0.4))));
  CHECK(*journal->append_logs(7, make_lines({"d"})) == 4);
  auto lines = journal->logs(7, 0, 100);
  REQUIRE(lines);
  CHECK(texts(*lines) == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(seqs(*lines) == std::vector<std::uint64_t>{1, 2, 3, 4});
  CHECK(journal->metrics(7)->size() == 2);
}

// With trials' ends written meanwhile: each end lets the journal drop the
// trial's append state when no append holds it, and the next append reads
// its last seq back.
TEMPLATE_TEST_CASE("lines appended by batches and by appends from many threads get gap-free seqs in each thread's order",
                   "[journal][logs]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 12;
  std::atomic<int> failures{0};
  std::atomic<bool> appending{true};
  std::thread ender([&] {
    while (appending)
      for (std::uint64_t trial : {1u, 2u})
        if (!journal->commit(JournalBatch().put_trial(ended_trial(trial)))) ++failures;
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::uint64_t first = t % 2 == 0 ? 1 : 2;  // half the threads name the trials in the other order
      std::vector<std::future<Status>> queued;
      for (int i = 0; i < kPerThread; ++i) {
        const std::string text = std::to_string(t) + "/" + std::to_string(i);
        auto lines = make_lines({text.c_str()});
        switch (i % 4) {
          case 0:
            if (!journal->commit(JournalBatch().append_logs(first, lines).append_logs(3 - first, lines))) ++failures;
            break;
          case 1:
            queued.push_back(commit_later(*journal, JournalBatch().append_logs(first, lines).append_logs(3 - first, lines)));
            break;
          case 2:
            if (!journal->append_logs(first, lines) || !journal->append_logs(3 - first, lines)) ++failures;
            break;
          default:
            for (std::uint64_t trial : {first, 3 - first})
              journal->append_logs_async(trial, lines, [&failures](const Status& written) {
                if (!written) ++failures;
              });
        }
      }
      for (auto& written : queued)
        if (!written.get()) ++failures;
    });
  }
  for (auto& thread : threads) thread.join();
  appending = false;
  ender.join();
  REQUIRE(failures == 0);
  for (std::uint64_t trial : {1u, 2u}) {
    auto lines = journal->logs(trial, 0, 1000);
    REQUIRE(lines->size() == kThreads * kPerThread);
    std::vector<int> next(kThreads, 0);  // each thread's lines come in its order
    for (std::size_t i = 0; i < lines->size(); ++i) {
      const LogLine& line = (*lines)[i];
      CHECK(line.seq == i + 1);
      const int t = std::stoi(line.text);
      CHECK(line.text == std::to_string(t) + "/" + std::to_string(next[t]++));
    }
  }
}
