#include <catch2/catch.hpp>

#include <future>
#include <string>
#include <vector>

#include <rocksdb/db.h>

#include "storage/journal/journal.hpp"
#include "storage/journal/journal_keys.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

std::vector<std::string> uuids(const Result<std::vector<CheckpointRecord>>& records) {
  REQUIRE(records);
  std::vector<std::string> out;
  for (const auto& record : *records) out.push_back(record.uuid);
  return out;
}

std::vector<std::string> uuids(const std::vector<CheckpointRecord>& records) {
  return uuids(Result<std::vector<CheckpointRecord>>(records));
}

}  // namespace

TEMPLATE_TEST_CASE("checkpoints round-trip and are replaced by uuid", "[journal][checkpoint]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  const CheckpointRecord first = make_checkpoint("6f1c2d3e-aaaa-4bbb-8ccc-000000000001", 1, 4, 300);
  REQUIRE(journal->put_checkpoint(first));
  auto read = journal->checkpoint(first.uuid);
  REQUIRE(read);
  check_same(*read, first);

  CheckpointRecord replaced = first;
  replaced.validation_metrics.clear();
  replaced.state = CheckpointState::deleted;
  replaced.total_bytes = 0;
  REQUIRE(journal->put_checkpoint(replaced));
  check_same(*journal->checkpoint(first.uuid), replaced);
  CHECK(uuids(journal->checkpoints_of_experiment(1)) == std::vector<std::string>{first.uuid});
  CHECK(uuids(journal->checkpoints_of_trial(4)) == std::vector<std::string>{first.uuid});
}

TEMPLATE_TEST_CASE("checkpoints are listed per experiment and per trial by trial then batches then uuid",
                   "[journal][checkpoint]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->put_checkpoint(make_checkpoint("d", 1, 300, 100)));
  REQUIRE(journal->put_checkpoint(make_checkpoint("c", 1, 2, 256)));
  REQUIRE(journal->put_checkpoint(make_checkpoint("b", 1, 2, 3)));
  REQUIRE(journal->put_checkpoint(make_checkpoint("a", 1, 2, 256)));
  REQUIRE(journal->put_checkpoint(make_checkpoint("e", 2, 5, 1)));

  CHECK(uuids(journal->checkpoints_of_experiment(1)) == std::vector<std::string>{"b", "a", "c", "d"});
  CHECK(uuids(journal->checkpoints_of_trial(2)) == std::vector<std::string>{"b", "a", "c"});
  CHECK(uuids(journal->checkpoints_of_trial(300)) == std::vector<std::string>{"d"});
  CHECK(uuids(journal->checkpoints_of_experiment(2)) == std::vector<std::string>{"e"});
  CHECK(journal->checkpoints_of_experiment(3)->empty());
  CHECK(journal->checkpoints_of_trial(6)->empty());

  SECTION("a replace that changes where it belongs moves it in both listings") {
    REQUIRE(journal->put_checkpoint(make_checkpoint("b", 1, 2, 1000)));
    CHECK(uuids(journal->checkpoints_of_experiment(1)) == std::vector<std::string>{"a", "c", "b", "d"});
    CHECK(uuids(journal->checkpoints_of_trial(2)) == std::vector<std::string>{"a", "c", "b"});
  }
  SECTION("also when it was put earlier in the same batch") {
    REQUIRE(journal->commit(JournalBatch()
                                .put_checkpoint(make_checkpoint("f", 2, 7, 50))
                                .put_checkpoint(make_checkpoint("f", 2, 5, 0))));
    CHECK(uuids(journal->checkpoints_of_experiment(2)) == std::vector<std::string>{"f", "e"});
    CHECK(journal->checkpoints_of_trial(7)->empty());
    CHECK(journal->checkpoint("f")->batches == 0);
  }
}

TEMPLATE_TEST_CASE("an unknown checkpoint is not_found and an empty uuid is refused", "[journal][checkpoint]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  auto missing = journal->checkpoint("no-such-uuid");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ErrorCode::not_found);
  CHECK_THAT(missing.error().message, Catch::Contains("no-such-uuid"));

  auto refused = journal->put_checkpoint(make_checkpoint("", 1, 2, 3));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(journal->checkpoints_of_trial(2)->empty());
}

TEMPLATE_TEST_CASE("a deleted checkpoint stays deleted after reopening", "[journal][checkpoint]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  CheckpointRecord record = make_checkpoint("0a0b", 3, 9, 500);
  REQUIRE(journal->put_checkpoint(record));
  record.state = CheckpointState::deleted;
  REQUIRE(journal->put_checkpoint(record));
  under_test.reopen();
  check_same(*journal->checkpoint("0a0b"), record);
  auto listed = journal->checkpoints_of_experiment(3);
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().state == CheckpointState::deleted);
}

TEST_CASE("a checkpoint index entry without its record is corruption naming the entry", "[journal][checkpoint]") {
  TempDir tmp;
  {
    auto journal = open_journal(tmp.journal());
    REQUIRE(journal->put_checkpoint(make_checkpoint("lost", 1, 2, 7)));
  }
  {
    rocksdb::DB* raw = nullptr;
    REQUIRE(rocksdb::DB::Open(rocksdb::Options(), tmp.journal().string(), &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    REQUIRE(db->Delete(rocksdb::WriteOptions(), keys::checkpoint("lost")).ok());
  }
  auto journal = open_journal(tmp.journal());
  auto listed = journal->checkpoints_of_experiment(1);
  REQUIRE_FALSE(listed);
  CHECK(listed.error().code == ErrorCode::corruption);
  CHECK_THAT(listed.error().message, Catch::Contains("kx/1/2/7/lost") && Catch::Contains("checkpoint lost"));
  CHECK_THAT(journal->checkpoints_of_trial(2).error().message, Catch::Contains("kt/2/7/lost"));
}

TEST_CASE("checkpoint keys read back in error messages", "[journal][checkpoint]") {
  const CheckpointRecord record = make_checkpoint("u-1", 1, 2, 300);
  CHECK(keys::describe(keys::checkpoint("u-1")) == "k/u-1");
  CHECK(keys::describe(keys::checkpoint_experiment_index(record)) == "kx/1/2/300/u-1");
  CHECK(keys::describe(keys::checkpoint_trial_index(record)) == "kt/2/300/u-1");
  CHECK(keys::checkpoint_uuid(keys::checkpoint_experiment_index(record)) == "u-1");
  CHECK(keys::checkpoint_uuid(keys::checkpoint_trial_index(record)) == "u-1");
  CHECK(keys::describe(keys::metric(7, MetricKind::validation, 100, 3)) == "m/7/validation/100/3");
  CHECK(keys::describe(keys::counter("trial")) == "c/trial");
}

TEMPLATE_TEST_CASE("is_registered follows the model versions written before and after its first answer, and a reopening",
                   "[journal][checkpoint]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->put_model_version({.model_name = "m", .version = 1, .checkpoint_uuid = "before"}));
  CHECK(journal->is_registered("before").value());
  CHECK_FALSE(journal->is_registered("after").value());
  REQUIRE(journal->put_model_version({.model_name = "m", .version = 2, .checkpoint_uuid = "after"}));
  CHECK(journal->is_registered("after").value());
  // A replaced version registers its new checkpoint instead of the old one.
  REQUIRE(journal->put_model_version({.model_name = "m", .version = 1, .checkpoint_uuid = "replacement"}));
  CHECK_FALSE(journal->is_registered("before").value());
  CHECK(journal->is_registered("replacement").value());
  under_test.reopen();
  CHECK(journal->is_registered("after").value());
  CHECK_FALSE(journal->is_registered("before").value());
}

TEST_CASE("a checkpoint feed gets its experiment's records from commits and queued batches, in order, while held",
          "[journal][checkpoint]") {
  auto journal = Journal::in_memory();
  auto before = make_checkpoint("6f1c2d3e-aaaa-4bbb-8ccc-000000000001", 1, 4, 300);
  REQUIRE(journal->put_checkpoint(before));  // before the feed: not in it
  auto feed = journal->follow_checkpoints(before.experiment_id);
  auto other_experiment = make_checkpoint("6f1c2d3e-aaaa-4bbb-8ccc-000000000002", 1, 4, 300);
  other_experiment.experiment_id = before.experiment_id + 1;
  REQUIRE(journal->put_checkpoint(other_experiment));
  auto queued = make_checkpoint("6f1c2d3e-aaaa-4bbb-8ccc-000000000003", 1, 8, 300);
  journal->commit_async(std::make_shared<JournalBatch>(JournalBatch().put_checkpoint(queued)), [](const Status&) {});
  auto deleted = before;
  deleted.state = CheckpointState::deleted;
  REQUIRE(journal->put_checkpoint(deleted));
  CHECK(uuids(feed->take()) == std::vector<std::string>{queued.uuid, deleted.uuid});
  CHECK(feed->take().empty());  // taken
  SECTION("a failed commit hands nothing over") {
    auto unnamed = make_checkpoint("", 1, 9, 300);
    CHECK_FALSE(journal->put_checkpoint(unnamed));
    CHECK(feed->take().empty());
  }
  SECTION("the journal does not keep a dropped feed") {
    std::weak_ptr<CheckpointFeed> dropped = feed;
    feed.reset();
    REQUIRE(journal->put_checkpoint(before));
    CHECK(dropped.expired());
  }
}

TEST_CASE("a queued checkpoint record reaches its feed once written, never before, and its follower is told",
          "[journal][checkpoint]") {
  auto store = std::make_unique<GatedStore>();
  auto& gate = *store;
  Journal journal(std::move(store));
  int told = 0;
  auto feed = journal.follow_checkpoints(1, [&told] { ++told; });
  const auto queued = make_checkpoint("6f1c2d3e-aaaa-4bbb-8ccc-000000000004", 1, 8, 300);
  std::promise<Status> written;
  journal.commit_async(std::make_shared<JournalBatch>(JournalBatch().put_checkpoint(queued)),
                       [&written](const Status& status) { written.set_value(status); });
  CHECK(feed->take().empty());  // a master killed now has no such record: nothing may act on it
  CHECK(told == 0);
  gate.open();
  REQUIRE(written.get_future().get());
  CHECK(uuids(feed->take()) == std::vector<std::string>{queued.uuid});
  CHECK(told == 1);
}
