#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <rocksdb/db.h>

#include "storage/journal/durable_reads.hpp"
#include "storage/journal/journal.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/tests/journal_test_support.hpp"
#include "tests/support/release_on_exit.hpp"

namespace fs = std::filesystem;
using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

constexpr int kCrashRecords = 20;

}  // namespace

TEMPLATE_TEST_CASE("experiments round-trip and are replaced and come back in id order", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  for (std::uint64_t id : {256u, 3u, 1u}) REQUIRE(journal->put_experiment(make_experiment(id)));

  auto one = journal->experiment(3);
  REQUIRE(one);
  check_same(*one, make_experiment(3));

  auto changed = make_experiment(3);
  changed.state = RunState::error;
  changed.error_message = "searcher failed";
  changed.ended_at_ms = 1'700'000'500'000;
  REQUIRE(journal->put_experiment(changed));
  check_same(*journal->experiment(3), changed);

  auto all = journal->experiments();
  REQUIRE(all);
  REQUIRE(all->size() == 3);
  CHECK((*all)[0].id == 1);
  CHECK((*all)[1].id == 3);
  CHECK((*all)[2].id == 256);

  auto missing = journal->experiment(99);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::not_found);
}

TEMPLATE_TEST_CASE("trials round-trip and are listed per experiment in id order", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->put_trial(make_trial(300, 1)));
  REQUIRE(journal->put_trial(make_trial(2, 1)));
  REQUIRE(journal->put_trial(make_trial(5, 2)));

  check_same(*journal->trial(300), make_trial(300, 1));

  auto changed = make_trial(2, 1);
  changed.state = RunState::completed;
  changed.batches_trained = 5000;
  changed.hparams["lr"] = 0.5;
  REQUIRE(journal->put_trial(changed));
  check_same(*journal->trial(2), changed);

  auto of_one = journal->trials(1);
  REQUIRE(of_one);
  REQUIRE(of_one->size() == 2);
  CHECK((*of_one)[0].id == 2);
  CHECK((*of_one)[0].state == RunState::completed);
  CHECK((*of_one)[1].id == 300);
  CHECK(journal->trials(2)->size() == 1);
  CHECK(journal->trials(3)->empty());

  auto missing = journal->trial(4);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::not_found);
}

TEMPLATE_TEST_CASE("metrics come back by kind then batches then append order also after reopening", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  auto metric = [](MetricKind kind, std::uint64_t batches, double loss) {
    return MetricRecord{.trial_id = 9, .kind = kind, .batches = batches,
                        .metrics = {{"loss", loss}, {"accuracy", 0.5}}, .reported_at_ms = 11};
  };
  REQUIRE(journal->append_metrics(metric(MetricKind::validation, 100, 1.0)));
  REQUIRE(journal->append_metrics(metric(MetricKind::training, 256, 2.0)));
  REQUIRE(journal->append_metrics(metric(MetricKind::training, 3, 3.0)));
  REQUIRE(journal->append_metrics(metric(MetricKind::training, 3, 4.0)));
  REQUIRE(journal->append_metrics({.trial_id = 10, .kind = MetricKind::training, .batches = 1,
                                   .metrics = {{"loss", 9.0}}, .reported_at_ms = 0}));
  under_test.reopen();
  REQUIRE(journal->append_metrics(metric(MetricKind::training, 3, 5.0)));

  auto records = journal->metrics(9);
  REQUIRE(records);
  std::vector<double> losses;
  for (const auto& r : *records) losses.push_back(r.metrics.at("loss"));
  CHECK(losses == std::vector<double>{3.0, 4.0, 5.0, 2.0, 1.0});
  CHECK((*records)[0].kind == MetricKind::training);
  CHECK((*records)[0].batches == 3);
  CHECK((*records)[0].metrics.at("accuracy") == 0.5);
  CHECK((*records)[0].reported_at_ms == 11);
  CHECK((*records)[4].kind == MetricKind::validation);
  CHECK((*records)[4].batches == 100);
  CHECK(journal->metrics(10)->size() == 1);
  CHECK(journal->metrics(11)->empty());
}

// Reports beyond the highest stored step skip the store's seek (a cached
// highest step per trial and kind): none may overwrite another, whatever the
// order of steps, deletions, reopenings and batches written together.
TEMPLATE_TEST_CASE("every metric report is kept across rising steps deletions reopenings and grouped batches",
                   "[journal]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  auto report = [](std::uint64_t batches, double loss) {
    return MetricRecord{.trial_id = 4, .kind = MetricKind::training, .batches = batches, .metrics = {{"loss", loss}}};
  };
  JournalBatch flood;
  for (std::uint64_t step = 1; step <= 50; ++step) flood.append_metrics(report(step, double(step)));
  flood.append_metrics(report(50, 50.5));  // the same step twice in one batch
  REQUIRE(journal->commit(flood));
  REQUIRE(journal->append_metrics(report(50, 50.75)));  // the highest step again, later
  REQUIRE(journal->append_metrics(report(20, 20.5)));   // a step below the highest
  REQUIRE(journal->delete_metrics_after(4, 30));
  REQUIRE(journal->append_metrics(report(40, 40.5)));  // a deleted step, below the cached highest
  under_test.reopen();
  REQUIRE(journal->append_metrics(report(40, 40.75)));
  REQUIRE(journal->append_metrics(report(60, 60.0)));  // beyond, after a reopen
  // Two threads at once: their batches may share one write.
  auto first = std::async(std::launch::async, [&] { return journal->commit(JournalBatch().append_metrics(report(70, 70.0))); });
  auto second = std::async(std::launch::async, [&] { return journal->append_metrics(report(70, 70.5)); });
  REQUIRE(first.get());
  REQUIRE(second.get());

  auto records = journal->metrics(4);
  REQUIRE(records);
  std::vector<double> losses;
  for (const auto& r : *records) losses.push_back(r.metrics.at("loss"));
  std::vector<double> expected;
  for (std::uint64_t step = 1; step <= 30; ++step) {
    expected.push_back(double(step));
    if (step == 20) expected.push_back(20.5);
  }
  for (double loss : {40.5, 40.75, 60.0}) expected.push_back(loss);
  REQUIRE(losses.size() == expected.size() + 2);
  CHECK(std::vector<double>(losses.begin(), losses.end() - 2) == expected);
  CHECK(std::set<double>(losses.end() - 2, losses.end()) == std::set<double>{70.0, 70.5});  // either order
}

TEST_CASE("a metric's key lies under its step's, its kind's and its trial's prefixes and names its batches", "[journal]") {
  const auto key = keys::metric(7, MetricKind::validation, 100, 3);
  CHECK(key.starts_with(keys::metric_step_prefix(7, MetricKind::validation, 100)));
  CHECK(keys::metric_step_prefix(7, MetricKind::validation, 100).starts_with(keys::metric_kind_prefix(7, MetricKind::validation)));
  CHECK(keys::metric_kind_prefix(7, MetricKind::validation).starts_with(keys::metrics_prefix(7)));
  CHECK(keys::metric_batches(key, keys::metric_kind_prefix(7, MetricKind::validation)) == 100);
  CHECK(keys::describe(key) == "m/7/validation/100/3");
}

TEST_CASE("A run rewound to its checkpoint journals its reports without a seek each") {
  // After the deletion each such seek crossed every deleted report, so a
  // restarted trial's journal writes slowed with the square of its reports.
  std::uint64_t seeks = 0;
  Journal journal(seek_counting_store(seeks));
  auto flood = [&](double loss) {
    for (std::uint64_t batches = 1; batches <= 200; ++batches)
      REQUIRE(journal.append_metrics({.trial_id = 4, .kind = MetricKind::training, .batches = batches,
                                      .metrics = {{"loss", loss}}}));
  };
  flood(1.0);
  REQUIRE(journal.delete_metrics_after(4, 10));
  const std::uint64_t before = seeks;
  flood(2.0);
  CHECK(seeks - before <= 10);  // the steps up to 10 that survived the deletion may seek
  const auto records = journal.metrics(4).value();
  REQUIRE(records.size() == 210);
  CHECK((records[0].metrics.at("loss") == 1.0 && records[1].metrics.at("loss") == 2.0));  // batches 1 twice, in order
  CHECK(records[20].batches == 11);  // the rewound run's alone from there
}

TEST_CASE("A trial journaled with the raise of the trial counter appends its first logs and reports without a seek") {
  // Ids only rise, so nothing is stored under a raised one; each first append
  // seeked for its last seq, two or three iterators per trial of a search
  // (about 7 % of the master's CPU for trivial trials).
  std::uint64_t seeks = 0;
  Journal journal(seek_counting_store(seeks));
  REQUIRE(journal.commit(JournalBatch().raise_counter("trial", 5).put_trial(make_trial(5, 1))));
  const std::uint64_t before = seeks;
  CHECK(*journal.append_logs(5, make_lines({"first", "second"})) == 2);
  REQUIRE(journal.append_metrics({.trial_id = 5, .kind = MetricKind::training, .batches = 1, .metrics = {{"loss", 1.0}}}));
  REQUIRE(journal.append_metrics({.trial_id = 5, .kind = MetricKind::validation, .batches = 1, .metrics = {{"loss", 0.5}}}));
  CHECK(seeks == before);
  REQUIRE(journal.metrics(5).value().size() == 2);

  // A trial counter raised to no new value (an older trial's batch) marks nothing.
  REQUIRE(journal.append_metrics({.trial_id = 3, .kind = MetricKind::training, .batches = 1, .metrics = {{"loss", 1.0}}}));
  const std::uint64_t after_older = seeks;
  CHECK(after_older > before);  // trial 3 was never raised: its first report seeks
  REQUIRE(journal.commit(JournalBatch().raise_counter("trial", 3).put_trial(make_trial(3, 1))));
  REQUIRE(journal.append_metrics({.trial_id = 3, .kind = MetricKind::training, .batches = 2, .metrics = {{"loss", 0.9}}}));
  CHECK(journal.metrics(3).value().size() == 2);
}

TEMPLATE_TEST_CASE("log lines get per-trial seqs that continue after reopening and page by seq", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  CHECK(*journal->append_logs(4, make_lines({"a", "b", "c"})) == 3);
  CHECK(*journal->append_logs(4, make_lines({"d", "e"})) == 5);
  CHECK(*journal->append_logs(8, make_lines({"other"})) == 1);
  CHECK(*journal->append_logs(4, {}) == 5);
  under_test.reopen();
  CHECK(*journal->append_logs(4, make_lines({"f"})) == 6);
  CHECK(*journal->append_logs(8, make_lines({"other 2"})) == 2);

  auto all = journal->logs(4, 0, 100);
  REQUIRE(all);
  CHECK(seqs(*all) == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6});
  CHECK((*all)[0].text == "a");
  CHECK((*all)[0].stream == "stdout");
  CHECK((*all)[0].trial_id == 4);
  CHECK((*all)[5].text == "f");

  CHECK(seqs(*journal->logs(4, 2, 2)) == std::vector<std::uint64_t>{3, 4});
  CHECK(seqs(*journal->logs(4, 4, 10)) == std::vector<std::uint64_t>{5, 6});
  CHECK(journal->logs(4, 6, 10)->empty());
  CHECK(journal->logs(4, 0, 0)->empty());
  CHECK(journal->logs(5, 0, 10)->empty());
  CHECK(journal->logs(8, 1, 10)->at(0).text == "other 2");
}

TEMPLATE_TEST_CASE("appends stored as chunks of lines page line by line from any seq, across reopening, until deleted",
                   "[journal]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->commit(JournalBatch().put_experiment(make_experiment(1)).put_trial(make_trial(4, 1))));
  std::vector<std::string> texts;  // of lines 1, 2, ...
  auto append = [&](std::size_t count) {
    std::vector<LogLine> lines;
    for (std::size_t i = 0; i < count; ++i) {
      texts.push_back("line " + std::to_string(texts.size() + 1));
      lines.push_back({.trial_id = 0, .seq = 0, .time_ms = 5, .stream = "stdout", .text = texts.back()});
    }
    REQUIRE(*journal->append_logs(4, std::move(lines)) == texts.size());
  };
  for (std::size_t count : {1, 700, 256, 2}) append(count);  // 700: chunks of 256, 256 and 188 lines
  under_test.reopen();
  for (std::size_t count : {257, 3}) append(count);
  REQUIRE(*journal->append_logs(9, make_lines({"other trial"})) == 1);
  check_every_log_page(*journal, 4, texts);
  CHECK(*journal->last_log_seq(4) == texts.size());
  CHECK(*journal->last_log_seq(5) == 0);

  REQUIRE(journal->delete_experiment(1));
  CHECK(journal->logs(4, 0, 10'000)->empty());
  CHECK(*journal->last_log_seq(4) == 0);
  CHECK(journal->logs(9, 0, 10)->size() == 1);
}

TEST_CASE("an append of lines is one record per chunk, not per line", "[journal]") {
  TempDir tmp;
  {
    auto journal = open_journal(tmp.journal());
    std::vector<LogLine> lines(600, {.trial_id = 0, .seq = 0, .time_ms = 5, .stream = "stdout", .text = "loss=0.5"});
    REQUIRE(*journal->append_logs(3, std::move(lines)) == 600);
  }
  rocksdb::DB* raw = nullptr;
  REQUIRE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), tmp.journal().string(), &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(rocksdb::ReadOptions()));
  std::vector<std::string> keys_found;
  const std::string prefix = keys::logs_prefix(3);
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next())
    keys_found.push_back(keys::describe(it->key().ToStringView()));
  CHECK(keys_found == std::vector<std::string>{"l/3/256", "l/3/512", "l/3/600"});
}

TEMPLATE_TEST_CASE("archives and searcher state round-trip and are replaced", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  std::string archive(300 << 10, '\0');  // large enough for a blob file
  std::mt19937 random(1);
  for (char& c : archive) c = static_cast<char>(random());
  REQUIRE(journal->put_archive(1, archive));
  REQUIRE(journal->put_archive(2, std::string("\0\1small", 7)));
  CHECK(*journal->archive(1) == archive);
  CHECK(*journal->archive(2) == std::string("\0\1small", 7));
  CHECK(journal->archive(3).error().code == ErrorCode::not_found);

  auto none = journal->search_log(1);
  REQUIRE(none);
  CHECK_FALSE(none->has_value());
  const nlohmann::json first = {{"searcher", "asha"}, {"rungs", {{1, 2}, {3}}}};
  const nlohmann::json second = {{"searcher", "asha"}, {"rungs", nlohmann::json::array()}};
  REQUIRE(journal->put_searcher_state(1, first));
  CHECK((*journal->search_log(1))->snapshot == first);
  REQUIRE(journal->put_searcher_state(1, second));
  CHECK((*journal->search_log(1))->snapshot == second);

  const nlohmann::json bad_utf8 = std::string("\xff\xfe");
  auto refused = journal->put_searcher_state(2, bad_utf8);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
}

TEMPLATE_TEST_CASE("counters are independent and never repeat across reopening", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  CHECK(*journal->next_id("experiment") == 1);
  CHECK(*journal->next_id("experiment") == 2);
  CHECK(*journal->next_id("trial") == 1);
  CHECK(journal->next_id("").error().code == ErrorCode::invalid_argument);
  under_test.reopen();
  CHECK(*journal->next_id("experiment") == 3);
  CHECK(*journal->next_id("trial") == 2);
}

TEST_CASE("a reserved id is durable once its raise is written and a lower raise writes nothing", "[journal]") {
  RocksdbUnderTest under_test;
  auto& journal = under_test.journal;
  CHECK(*journal->reserve_id("trial") == 1);
  CHECK(*journal->reserve_id("trial") == 2);
  CHECK(*journal->reserve_id("trial") == 3);
  CHECK(journal->reserve_id("").error().code == ErrorCode::invalid_argument);
  CHECK(journal->commit(JournalBatch().raise_counter("", 1)).error().code == ErrorCode::invalid_argument);
  under_test.reopen();
  CHECK(*journal->reserve_id("trial") == 1);  // none was raised: nothing journaled refers to them
  REQUIRE(journal->commit(JournalBatch().raise_counter("trial", 5)));
  REQUIRE(journal->commit(JournalBatch().raise_counter("trial", 4)));  // queued late: must not lower it
  under_test.reopen();
  CHECK(*journal->reserve_id("trial") == 6);
}

TEST_CASE("A read waits for the batches queued before it, from any thread") {
  auto journal = Journal::in_memory();
  for (std::uint64_t id = 1; id <= 200; ++id) {
    journal->commit_async(std::make_shared<JournalBatch>(JournalBatch().put_trial(make_trial(id, 1))),
                          [](const Status&) {});
    REQUIRE(journal->trial(id));  // not found if the read ran ahead of the queued write
  }
  CHECK(journal->trials(1)->size() == 200);
}

TEST_CASE("Within DurableReads a read answers from what is written at once, while a plain read waits for the queue") {
  auto journal = Journal::in_memory();
  std::promise<void> writer_held, release_writer;
  auto released = release_writer.get_future().share();
  // The writer stays in the first batch's completion, so the second stays queued.
  journal->commit_async(std::make_shared<JournalBatch>(JournalBatch().put_trial(make_trial(1, 1))),
                        [&writer_held, released](const Status&) {
                          writer_held.set_value();
                          released.wait();
                        });
  writer_held.get_future().wait();
  journal->commit_async(std::make_shared<JournalBatch>(JournalBatch().put_trial(make_trial(2, 1))),
                        [](const Status&) {});
  auto durable = std::async(std::launch::async, [&] {
    const DurableReads written_only;
    return std::pair{journal->trial(1).has_value(), journal->trial(2).has_value()};
  });
  auto waiting = std::async(std::launch::async, [&] { return journal->trial(2).has_value(); });
  volador::testing::ReleaseOnExit release(release_writer);  // after the futures: it goes first
  REQUIRE(durable.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK(durable.get() == std::pair{true, false});  // the written batch, not the queued one
  CHECK(waiting.wait_for(std::chrono::milliseconds(100)) == std::future_status::timeout);
  CHECK_FALSE(DurableReads::active());  // the scope was the other thread's
  release.release();
  CHECK(waiting.get());
}

TEMPLATE_TEST_CASE("concurrent callers get unique ids and gap-free log seqs", "[journal]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  constexpr int kThreads = 4;
  constexpr int kPerThread = 15;
  std::vector<std::vector<std::uint64_t>> ids(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto id = journal->next_id("trial");
        auto seq = journal->append_logs(1, make_lines({"line"}));
        if (!id || !seq) ++failures;
        else ids[t].push_back(*id);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  REQUIRE(failures == 0);
  std::set<std::uint64_t> unique;
  for (const auto& per_thread : ids) unique.insert(per_thread.begin(), per_thread.end());
  CHECK(unique.size() == kThreads * kPerThread);
  CHECK(*unique.begin() == 1);
  CHECK(*unique.rbegin() == kThreads * kPerThread);

  auto lines = journal->logs(1, 0, 1000);
  REQUIRE(lines->size() == kThreads * kPerThread);
  for (std::size_t i = 0; i < lines->size(); ++i) CHECK((*lines)[i].seq == i + 1);
}

TEST_CASE("reopening the journal loses nothing", "[journal]") {
  TempDir tmp;
  {
    auto journal = open_journal(tmp.journal());
    REQUIRE(journal->put_experiment(make_experiment(1)));
    REQUIRE(journal->put_trial(make_trial(1, 1)));
    REQUIRE(journal->append_metrics({.trial_id = 1, .kind = MetricKind::validation, .batches = 10,
                                     .metrics = {{"loss", 0.1}}, .reported_at_ms = 3}));
    REQUIRE(journal->append_logs(1, make_lines({"hello"})));
    REQUIRE(journal->put_archive(1, "tar bytes"));
    REQUIRE(journal->put_searcher_state(1, {{"k", 1}}));
  }
  auto journal = open_journal(tmp.journal());
  check_same(*journal->experiment(1), make_experiment(1));
  check_same(journal->trials(1)->at(0), make_trial(1, 1));
  CHECK(journal->metrics(1)->at(0).metrics.at("loss") == 0.1);
  CHECK(journal->logs(1, 0, 10)->at(0).text == "hello");
  CHECK(*journal->archive(1) == "tar bytes");
  CHECK((*journal->search_log(1))->snapshot == nlohmann::json{{"k", 1}});
}

TEST_CASE("a value that does not decode is reported as corruption naming its key", "[journal]") {
  TempDir tmp;
  {
    auto journal = open_journal(tmp.journal());
    REQUIRE(journal->put_trial(make_trial(7, 1)));
    REQUIRE(journal->put_experiment(make_experiment(2)));
    REQUIRE(journal->append_logs(3, make_lines({"ok"})));
  }
  {
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(rocksdb::Options(), tmp.journal().string(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Put(rocksdb::WriteOptions(), keys::trial(7), "garbage!").ok());       // 8 bytes: a bad segment table
    REQUIRE(db->Put(rocksdb::WriteOptions(), keys::experiment(2), "xyz").ok());       // not whole words
    REQUIRE(db->Put(rocksdb::WriteOptions(), keys::log(3, 1), std::string(16, '\xff')).ok());
  }
  auto journal = open_journal(tmp.journal());
  auto trial = journal->trial(7);
  REQUIRE_FALSE(trial);
  CHECK(trial.error().code == ErrorCode::corruption);
  CHECK_THAT(trial.error().message, Catch::Contains("t/7"));
  CHECK(journal->trials(1).error().code == ErrorCode::corruption);

  auto experiment = journal->experiment(2);
  REQUIRE_FALSE(experiment);
  CHECK_THAT(experiment.error().message, Catch::Contains("e/2"));
  CHECK(journal->experiments().error().code == ErrorCode::corruption);

  auto logs = journal->logs(3, 0, 10);
  REQUIRE_FALSE(logs);
  CHECK_THAT(logs.error().message, Catch::Contains("l/3/1"));
}

TEST_CASE("a record stored under another record's key is corruption", "[journal]") {
  TempDir tmp;
  std::string value;
  {
    auto journal = open_journal(tmp.journal());
    REQUIRE(journal->put_experiment(make_experiment(5)));
  }
  {
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(rocksdb::Options(), tmp.journal().string(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Get(rocksdb::ReadOptions(), keys::experiment(5), &value).ok());
    REQUIRE(db->Put(rocksdb::WriteOptions(), keys::experiment(6), value).ok());
  }
  auto journal = open_journal(tmp.journal());
  auto moved = journal->experiment(6);
  REQUIRE_FALSE(moved);
  CHECK(moved.error().code == ErrorCode::corruption);
  CHECK_THAT(moved.error().message, Catch::Contains("e/6") && Catch::Contains("holds experiment 5"));
}

TEST_CASE("a second open of a journal in use fails clearly", "[journal]") {
  TempDir tmp;
  auto journal = open_journal(tmp.journal());
  auto second = Journal::open(tmp.journal());
  REQUIRE_FALSE(second);
  CHECK(second.error().code == ErrorCode::io);
  CHECK_THAT(second.error().message,
             Catch::Contains("journal at " + tmp.journal().string() + " is in use by another process"));
}

TEST_CASE("an open in another process is refused until that process dies", "[journal][process]") {
  TempDir tmp;
  const pid_t child = spawn_child("journal child holding the journal open", tmp.path);
  const fs::path ready = tmp.path / "ready";
  int status = 0;
  for (int i = 0; i < 500 && !fs::exists(ready); ++i) {
    REQUIRE(::waitpid(child, &status, WNOHANG) == 0);  // the child must not have ended
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(fs::exists(ready));

  auto refused = Journal::open(tmp.journal());
  REQUIRE_FALSE(refused);
  CHECK_THAT(refused.error().message, Catch::Contains("is in use by another process"));

  ::kill(child, SIGKILL);
  REQUIRE(::waitpid(child, &status, 0) == child);
  auto journal = open_journal(tmp.journal());
  CHECK(journal->experiment(1));
}

TEST_CASE("journal child holding the journal open", "[.][child]") {
  if (child_dir() == nullptr) return;
  const fs::path dir = child_dir();
  auto journal = open_journal(dir / "journal");
  REQUIRE(journal->put_experiment(make_experiment(1)));
  std::ofstream(dir / "ready") << "ready";
  for (;;) ::pause();
}

TEST_CASE("every acknowledged write survives a kill -9 right after it", "[journal][process]") {
  TempDir tmp;
  const pid_t child = spawn_child("journal child killed after writing", tmp.path);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);

  auto journal = open_journal(tmp.journal());
  auto experiments = journal->experiments();
  REQUIRE(experiments);
  CHECK(experiments->size() == kCrashRecords);
  CHECK(journal->logs(1, 0, 1000)->size() == kCrashRecords);
  CHECK(*journal->next_id("experiment") == kCrashRecords + 1);
}

TEST_CASE("journal child killed after writing", "[.][child]") {
  if (child_dir() == nullptr) return;
  auto journal = open_journal(fs::path(child_dir()) / "journal");
  for (int i = 0; i < kCrashRecords; ++i) {
    auto id = journal->next_id("experiment");
    REQUIRE(id);
    REQUIRE(journal->put_experiment(make_experiment(*id)));
    REQUIRE(journal->append_logs(1, make_lines({"line"})));
  }
  ::kill(::getpid(), SIGKILL);
}
