#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "master/master_queries.hpp"
#include "master/metric_downsampling.hpp"
#include "master/tests/query_fixture.hpp"

using namespace volador;
using namespace volador::master;
using testing::JournalFixture;

namespace {

// The read model of `f`'s journal after an active experiment 1 got trial 4 with one training report and 3,000
// validations.
std::unique_ptr<ReadModel> with_a_long_trial(JournalFixture& f) {
  REQUIRE(f.journal->put_experiment(testing::experiment_record(1, RunState::active)));
  f.add_trial(4, std::vector<double>(3000, 0.5));
  auto summaries = ReadModel::load(*f.journal);
  REQUIRE(summaries);
  return std::move(*summaries);
}

}  // namespace

TEST_CASE("A trial's detail lists every metric report in order by kind with its summary") {
  JournalFixture f;
  REQUIRE(f.journal->put_experiment(testing::experiment_record(1, RunState::completed)));
  f.add_trial(4, {0.1, 0.2, 0.3});
  auto summaries = ReadModel::load(*f.journal);
  REQUIRE(summaries);
  auto detail = describe_trial(*f.journal, **summaries, 4, kDefaultPointsPerSeries);
  REQUIRE(detail.has_value());
  REQUIRE(detail->metrics.size() == 4);
  CHECK(detail->metrics[0].kind == MetricKind::training);
  CHECK(detail->metrics[1].kind == MetricKind::validation);
  CHECK(detail->metrics[3].batches == 15);
  CHECK(detail->total_reports == 4);
  CHECK_FALSE(detail->downsampled);
  CHECK(detail->summary.best_validation == 0.3);
  CHECK(detail->summary.created_at_ms == 4000);
  CHECK(detail->summary.ended_at_ms == 4500);
}

TEST_CASE("A long trial's detail is downsampled by default and whole on request") {
  JournalFixture f;
  const auto summaries = with_a_long_trial(f);
  auto cut = describe_trial(*f.journal, *summaries, 4, 100);
  REQUIRE(cut);
  CHECK(cut->downsampled);
  CHECK(cut->total_reports == 3001);
  CHECK(cut->metrics.size() <= 101);  // 100 validations and the one training report
  auto all = describe_trial(*f.journal, *summaries, 4, 0);
  REQUIRE(all);
  CHECK_FALSE(all->downsampled);
  CHECK(all->metrics.size() == 3001);
}

TEST_CASE("A trial's detail of one kind has only that kind's reports, counted and cut on their own") {
  JournalFixture f;
  const auto summaries = with_a_long_trial(f);
  auto training = describe_trial(*f.journal, *summaries, 4, 100, MetricKind::training);
  REQUIRE(training);
  REQUIRE(training->metrics.size() == 1);
  CHECK(training->metrics[0].kind == MetricKind::training);
  CHECK(training->total_reports == 1);
  CHECK_FALSE(training->downsampled);
  CHECK(training->summary.created_at_ms == 4000);
  auto validation = describe_trial(*f.journal, *summaries, 4, 100, MetricKind::validation);
  REQUIRE(validation);
  CHECK(validation->total_reports == 3000);
  CHECK(validation->downsampled);
  CHECK(validation->metrics.size() <= 100);
  CHECK(std::ranges::all_of(validation->metrics, [](const auto& p) { return p.kind == MetricKind::validation; }));
}

TEST_CASE("Unknown experiments and trials are not_found errors naming them") {
  JournalFixture f;
  auto summaries = ReadModel::load(*f.journal);
  REQUIRE(summaries);
  auto e = (*summaries)->experiment(42);
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().code == ErrorCode::not_found);
  auto t = describe_trial(*f.journal, **summaries, 43, 0);
  REQUIRE_FALSE(t.has_value());
  CHECK(t.error().code == ErrorCode::not_found);
  auto logs = trial_logs(*f.journal, 44, 0, 10);
  REQUIRE_FALSE(logs.has_value());
  CHECK(logs.error().code == ErrorCode::not_found);
}

TEST_CASE("Logs page from a sequence number") {
  JournalFixture f;
  f.add_trial(5, {});
  std::vector<storage::LogLine> lines;
  for (int i = 0; i < 5; ++i) lines.push_back({5, 0, 0, "stdout", "line " + std::to_string(i)});
  REQUIRE(f.journal->append_logs(5, lines));
  auto page = trial_logs(*f.journal, 5, 2, 2);
  REQUIRE(page.has_value());
  REQUIRE(page->lines.size() == 2);
  CHECK(page->lines[0].text == "line 2");
  CHECK(page->lines[0].seq == 3);
  CHECK(page->last_seq == 5);
}

TEST_CASE("A log page names the trial's newest line however many lines it has") {
  JournalFixture f;
  f.add_trial(5, {});
  f.add_trial(6, {});
  CHECK(trial_logs(*f.journal, 5, 0, 10)->last_seq == 0);
  std::uint64_t appended = 0;
  for (std::uint64_t count : {1u, 1u, 2u, 509u, 1024u, 3000u}) {
    std::vector<storage::LogLine> lines(count, storage::LogLine{5, 0, 0, "stdout", "x"});
    REQUIRE(f.journal->append_logs(5, lines));
    appended += count;
    CAPTURE(appended);
    auto page = trial_logs(*f.journal, 5, 0, 1);
    REQUIRE(page.has_value());
    CHECK(page->last_seq == appended);
    CHECK(page->lines.size() == 1);
  }
  CHECK(trial_logs(*f.journal, 6, 0, 10)->last_seq == 0);
}

TEST_CASE("The last N log lines (trial logs --tail N) page out in order, however the appends were cut") {
  JournalFixture f;
  f.add_trial(5, {});
  std::vector<std::string> texts;
  for (std::size_t count : {3u, 600u, 1u, 257u}) {  // appends of several chunks each (storage/journal/log_chunks.hpp)
    std::vector<storage::LogLine> lines;
    for (std::size_t i = 0; i < count; ++i) {
      texts.push_back("line " + std::to_string(texts.size() + 1));
      lines.push_back({5, 0, 0, "stdout", texts.back()});
    }
    REQUIRE(f.journal->append_logs(5, lines));
  }
  for (std::uint64_t tail : {1u, 2u, 256u, 300u, 861u}) {
    CAPTURE(tail);
    const std::uint64_t total = trial_logs(*f.journal, 5, 0, 1)->last_seq;
    REQUIRE(total == texts.size());
    std::vector<std::string> printed;
    for (std::uint64_t after = total - tail;;) {
      auto page = trial_logs(*f.journal, 5, after, 100);
      REQUIRE(page);
      if (page->lines.empty()) break;
      for (const auto& line : page->lines) {
        CHECK(line.seq == after + 1);
        printed.push_back(line.text);
        after = line.seq;
      }
    }
    CHECK(printed == std::vector<std::string>(texts.end() - static_cast<std::ptrdiff_t>(tail), texts.end()));
  }
}

TEST_CASE("The agent list shows each agent's host, its slots as registered and the trial on each") {
  scheduling::SlotScheduler scheduler;
  scheduler.add_agent("a", 4);
  scheduler.add_agent("b", 1);
  scheduler.add_agent("gone", 1);  // no registration known: left out
  REQUIRE(scheduler.request({.trial_id = 7, .slots = 3}));
  REQUIRE(scheduler.schedule().grants.size() == 1);
  const wire::SlotSpec cpu{SlotType::cpu, "", "", 0};
  const std::map<std::string, wire::AgentInfo> registered{{"a", {"a", "host-a", {cpu, cpu, cpu, cpu}, {}}},
                                                          {"b", {"b", "host-b", {cpu}, {}}}};
  const auto list = list_agents(scheduler.usage(), registered);
  REQUIRE(list.agents.size() == 2);
  CHECK(list.agents[0].agent_id == "a");
  CHECK(list.agents[0].hostname == "host-a");
  CHECK(list.agents[0].slots.size() == 4);
  CHECK(list.agents[0].slot_trials == std::vector<std::uint64_t>{7, 7, 7, 0});
  CHECK(list.agents[1].slot_trials == std::vector<std::uint64_t>{0});
}
