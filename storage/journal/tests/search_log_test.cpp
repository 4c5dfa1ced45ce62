// The journaled search state: a snapshot (put_searcher_state) and the events
// appended after it (JournalBatch::append_search_event), on both stores.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/journal/journal.hpp"
#include "storage/journal/memory_store.hpp"
#include "storage/journal/tests/journal_test_support.hpp"

using namespace volador;
using namespace volador::storage;
using namespace volador::storage::testing;

namespace {

// An event that told the searcher of a validation of `request` and moved its target on.
SearchEventRecord validation_event(std::uint64_t request, double metric) {
  SearchEventRecord event;
  event.inputs.push_back(
      {.kind = SearcherInputKind::validation_completed, .request_id = request, .metric = metric, .batches = 100});
  event.trials.push_back({.request_id = request, .target = 200, .closing = false, .validated = 100, .ended = false});
  return event;
}

// The metric of each journaled event's first input, in the order read back.
std::vector<double> event_metrics(const Journal& journal, std::uint64_t experiment_id) {
  auto log = journal.search_log(experiment_id);
  REQUIRE(log);
  REQUIRE(log->has_value());
  std::vector<double> metrics;
  for (const auto& event : (*log)->events) metrics.push_back(event.inputs.at(0).metric);
  return metrics;
}

}  // namespace

TEMPLATE_TEST_CASE("search events come back whole and in append order after their snapshot", "[journal][search]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->put_searcher_state(1, {{"searcher", "random"}}));
  REQUIRE(journal->commit(JournalBatch().append_search_event(1, validation_event(3, 0.5))));
  SearchEventRecord ended = validation_event(4, 0.25);
  ended.inputs.push_back({.kind = SearcherInputKind::trial_closed, .request_id = 4, .metric = 0, .batches = 0});
  ended.trials.at(0).ended = true;
  ended.shutdown = true;
  ended.search_failed = true;
  REQUIRE(journal->commit(JournalBatch()
                              .put_trial(make_trial(9, 1))
                              .append_search_event(1, ended)
                              .append_search_event(1, validation_event(5, 0.125))
                              .put_experiment(make_experiment(1))));
  under_test.reopen();

  auto log = journal->search_log(1);
  REQUIRE(log);
  REQUIRE(log->has_value());
  CHECK((*log)->snapshot == nlohmann::json{{"searcher", "random"}});
  REQUIRE((*log)->events.size() == 3);
  check_same((*log)->events[0], validation_event(3, 0.5));
  check_same((*log)->events[1], ended);
  check_same((*log)->events[2], validation_event(5, 0.125));
}

TEMPLATE_TEST_CASE("a snapshot deletes the events it covers and only those of its experiment", "[journal][search]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  for (std::uint64_t experiment : {1, 2}) {
    REQUIRE(journal->put_searcher_state(experiment, {{"generation", 1}}));
    for (double metric : {1.0, 2.0, 3.0})
      REQUIRE(journal->commit(JournalBatch().append_search_event(experiment, validation_event(1, metric))));
  }
  SECTION("a snapshot alone") {
    REQUIRE(journal->put_searcher_state(1, {{"generation", 2}}));
    CHECK(event_metrics(*journal, 1).empty());
  }
  SECTION("a snapshot after an event in the same batch covers that event too") {
    REQUIRE(journal->commit(
        JournalBatch().append_search_event(1, validation_event(1, 4.0)).put_searcher_state(1, {{"generation", 2}})));
    CHECK(event_metrics(*journal, 1).empty());
  }
  SECTION("events after a snapshot in the same batch are kept") {
    REQUIRE(journal->commit(
        JournalBatch().put_searcher_state(1, {{"generation", 2}}).append_search_event(1, validation_event(1, 4.0))));
    CHECK(event_metrics(*journal, 1) == std::vector<double>{4.0});
  }
  under_test.reopen();
  CHECK((*journal->search_log(1))->snapshot == nlohmann::json{{"generation", 2}});
  REQUIRE(journal->commit(JournalBatch().append_search_event(1, validation_event(1, 5.0))));
  CHECK(event_metrics(*journal, 1).back() == 5.0);
  CHECK(event_metrics(*journal, 2) == std::vector<double>{1.0, 2.0, 3.0});
  CHECK((*journal->search_log(2))->snapshot == nlohmann::json{{"generation", 1}});
}

TEMPLATE_TEST_CASE("a journal of earlier versions (a snapshot and no events) reads back as the snapshot alone",
                   "[journal][search][compatibility]", RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  const nlohmann::json whole_state = {{"searcher", {{"next", 3}}}, {"trials", {{"1", {{"target", 100}}}}}};
  REQUIRE(journal->put_searcher_state(7, whole_state));
  under_test.reopen();
  auto log = journal->search_log(7);
  REQUIRE(log);
  REQUIRE(log->has_value());
  CHECK((*log)->snapshot == whole_state);
  CHECK((*log)->events.empty());
}

TEMPLATE_TEST_CASE("a batch whose other record cannot be encoded appends no search event", "[journal][search]",
                   RocksdbUnderTest, MemoryUnderTest) {
  TestType under_test;
  auto& journal = under_test.journal;
  REQUIRE(journal->put_searcher_state(1, {{"generation", 1}}));
  TrialRecord bad = make_trial(2, 1);
  bad.hparams = std::string("\xff\xfe");
  auto refused = journal->commit(JournalBatch().append_search_event(1, validation_event(1, 1.0)).put_trial(bad));
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(event_metrics(*journal, 1).empty());
}

// The journal caches each search's last event seq: a search event costs no
// seek of the store, and the seqs stay right across snapshots, refused
// batches and deletions.
TEST_CASE("search events are appended without seeking the store and keep their order", "[journal][search]") {
  std::uint64_t seeks = 0;
  Journal journal(seek_counting_store(seeks));
  REQUIRE(journal.put_searcher_state(1, {{"generation", 1}}));
  for (double metric : {1.0, 2.0, 3.0})
    REQUIRE(journal.commit(JournalBatch().append_search_event(1, validation_event(1, metric))));
  CHECK(seeks == 0);
  TrialRecord bad = make_trial(2, 1);
  bad.hparams = std::string("\xff\xfe");
  REQUIRE_FALSE(journal.commit(JournalBatch().append_search_event(1, validation_event(1, 9.0)).put_trial(bad)));
  REQUIRE(journal.commit(JournalBatch().append_search_event(1, validation_event(1, 4.0))));
  CHECK(event_metrics(journal, 1) == std::vector<double>{1.0, 2.0, 3.0, 4.0});

  REQUIRE(journal.commit(JournalBatch().put_searcher_state(1, {{"generation", 2}}).append_search_event(1, validation_event(1, 5.0))));
  REQUIRE(journal.commit(JournalBatch().append_search_event(1, validation_event(1, 6.0))));
  CHECK(event_metrics(journal, 1) == std::vector<double>{5.0, 6.0});
  CHECK(seeks == 0);

  REQUIRE(journal.delete_experiment(1));
  REQUIRE(journal.put_searcher_state(1, {{"generation", 1}}));
  REQUIRE(journal.commit(JournalBatch().append_search_event(1, validation_event(1, 7.0))));
  CHECK(event_metrics(journal, 1) == std::vector<double>{7.0});
}

TEST_CASE("a search journaled before the journal opened continues after its last event", "[journal][search]") {
  TempDir tmp;
  {
    auto journal = open_journal(tmp.journal());
    REQUIRE(journal->put_searcher_state(1, {{"generation", 1}}));
    REQUIRE(journal->commit(JournalBatch().append_search_event(1, validation_event(1, 1.0))));
  }
  auto journal = open_journal(tmp.journal());
  REQUIRE(journal->commit(JournalBatch().append_search_event(1, validation_event(1, 2.0))));
  REQUIRE(journal->commit(JournalBatch().append_search_event(1, validation_event(1, 3.0))));
  CHECK(event_metrics(*journal, 1) == std::vector<double>{1.0, 2.0, 3.0});
}
