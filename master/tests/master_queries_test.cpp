#include <catch2/catch.hpp>

#include "master/master_queries.hpp"

using namespace volador;
using namespace volador::master;

namespace {

const char* kConfig = R"(name: q
description: a baseline
workspace: research
project: resnets
labels: [mnist, baseline]
entrypoint: native:mlp_classifier
hyperparameters:
  global_batch_size: 8
  lr: {type: double, minval: 0.1, maxval: 0.2}
searcher:
  name: random
  metric: accuracy
  smaller_is_better: false
  max_trials: 2
  max_length: {batches: 10}
)";

struct JournalFixture {
  std::unique_ptr<storage::Journal> journal = storage::Journal::in_memory();

  void add_trial(std::uint64_t id, std::vector<double> accuracies) {
    storage::TrialRecord t;
    t.id = id;
    t.experiment_id = 1;
    t.request_id = id;
    t.hparams = {{"lr", 0.1 * static_cast<double>(id)}};
    t.state = RunState::completed;
    t.created_at_ms = 1000 * static_cast<std::int64_t>(id);
    t.ended_at_ms = t.created_at_ms + 500;
    REQUIRE(journal->put_trial(t));
    std::uint64_t step = 0;
    for (double a : accuracies)
      REQUIRE(journal->append_metrics({id, storage::MetricKind::validation, step += 5, {{"accuracy", a}}, 0}));
    REQUIRE(journal->append_metrics({id, storage::MetricKind::training, 5, {{"accuracy", 0.99}}, 0}));
  }
};

}  // namespace

TEST_CASE("The best metric respects smaller_is_better and ignores training metrics") {
  JournalFixture f;
  REQUIRE(f.journal->put_experiment({1, "q", kConfig, "q.yaml", RunState::active, 7, 0.5, "", 1, 0}));
  f.add_trial(1, {0.5, 0.7});
  f.add_trial(2, {0.8, 0.6});

  auto detail = describe_experiment(*f.journal, 1);
  REQUIRE(detail.has_value());
  CHECK(detail->summary.searcher == "random");
  CHECK(detail->summary.labels == std::vector<std::string>{"mnist", "baseline"});
  REQUIRE(detail->summary.best.has_value());
  CHECK(detail->summary.best->metric == 0.8);  // larger is better; the 0.99 is a training metric
  CHECK(detail->summary.best->trial_id == 2);
  REQUIRE(detail->trials.size() == 2);
  CHECK(detail->trials[0].best_validation == 0.7);
  CHECK(detail->summary.state == RunState::active);

  auto list = list_experiments(*f.journal);
  REQUIRE(list.has_value());
  REQUIRE(list->experiments.size() == 1);
  CHECK(list->experiments[0].num_trials == 2);
}

TEST_CASE("Summaries show the config's workspace and project and the detail its description") {
  JournalFixture f;
  REQUIRE(f.journal->put_experiment({1, "q", kConfig, "q.yaml", RunState::active, 7, 0.5, "", 1, 0}));
  auto list = list_experiments(*f.journal);
  REQUIRE(list.has_value());
  REQUIRE(list->experiments.size() == 1);
  CHECK(list->experiments[0].workspace == "research");
  CHECK(list->experiments[0].project == "resnets");
  auto detail = describe_experiment(*f.journal, 1);
  REQUIRE(detail.has_value());
  CHECK(detail->description == "a baseline");
  CHECK(nlohmann::json(*detail)["workspace"] == "research");
}

TEST_CASE("Summaries show the owner (admin for experiments from before users) and the archived flag") {
  JournalFixture f;
  storage::ExperimentRecord legacy{1, "q", kConfig, "q.yaml", RunState::completed, 7, 1, "", 1, 2};
  auto owned = legacy;
  owned.id = 2;
  owned.owner = "bob";
  owned.archived = true;
  REQUIRE(f.journal->put_experiment(legacy));
  REQUIRE(f.journal->put_experiment(owned));
  auto list = list_experiments(*f.journal);
  REQUIRE(list.has_value());
  REQUIRE(list->experiments.size() == 2);
  CHECK(list->experiments[0].owner == "admin");
  CHECK_FALSE(list->experiments[0].archived);
  CHECK(list->experiments[1].owner == "bob");
  CHECK(list->experiments[1].archived);
  auto detail = describe_experiment(*f.journal, 2);
  REQUIRE(detail.has_value());
  CHECK(nlohmann::json(*detail)["owner"] == "bob");
}

TEST_CASE("A trial's detail lists every metric report in order, by kind") {
  JournalFixture f;
  REQUIRE(f.journal->put_experiment({1, "q", kConfig, "q.yaml", RunState::completed, 7, 1, "", 1, 2}));
  f.add_trial(4, {0.1, 0.2, 0.3});
  auto detail = describe_trial(*f.journal, 4);
  REQUIRE(detail.has_value());
  REQUIRE(detail->metrics.size() == 4);
  CHECK(detail->metrics[0].kind == MetricKind::training);
  CHECK(detail->metrics[1].kind == MetricKind::validation);
  CHECK(detail->metrics[3].batches == 15);
  CHECK(detail->summary.best_validation == 0.3);
  CHECK(detail->summary.created_at_ms == 4000);
  CHECK(detail->summary.ended_at_ms == 4500);
}

TEST_CASE("Unknown experiments and trials are not_found errors naming them") {
  JournalFixture f;
  auto e = describe_experiment(*f.journal, 42);
  REQUIRE_FALSE(e.has_value());
  CHECK(e.error().code == ErrorCode::not_found);
  auto t = describe_trial(*f.journal, 43);
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

TEST_CASE("The agent list shows each agent's host, its slots as registered and the trial on each") {
  scheduling::SlotScheduler scheduler;
  scheduler.add_agent("a", 4);
  scheduler.add_agent("b", 1);
  scheduler.add_agent("gone", 1);  // no registration known: left out
  scheduler.request(7, 3);
  REQUIRE(scheduler.schedule().size() == 1);
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

TEST_CASE("Ended trials' best validations are read once and running trials' every time") {
  JournalFixture f;
  REQUIRE(f.journal->put_experiment({1, "q", kConfig, "q.yaml", RunState::active, 7, 0.5, "", 1, 0}));
  f.add_trial(1, {0.5, 0.7});  // COMPLETED
  f.add_trial(2, {0.6});
  auto running = f.journal->trial(2);
  REQUIRE(running);
  running->state = RunState::active;
  REQUIRE(f.journal->put_trial(*running));

  EndedTrialBests ended;
  auto first = list_experiments(*f.journal, &ended);
  REQUIRE(first);
  CHECK(first->experiments.at(0).best->metric == 0.7);
  CHECK(ended.find(1) == std::optional<std::optional<double>>(0.7));
  CHECK_FALSE(ended.find(2).has_value());

  // A report the ended trial cannot really get shows that its best is no longer read.
  REQUIRE(f.journal->append_metrics({1, storage::MetricKind::validation, 50, {{"accuracy", 0.95}}, 0}));
  REQUIRE(f.journal->append_metrics({2, storage::MetricKind::validation, 50, {{"accuracy", 0.9}}, 0}));
  auto second = describe_experiment(*f.journal, 1, &ended);
  REQUIRE(second);
  CHECK(second->trials.at(0).best_validation == 0.7);
  CHECK(second->trials.at(1).best_validation == 0.9);
  CHECK(second->summary.best->trial_id == 2);
  CHECK(describe_experiment(*f.journal, 1)->trials.at(0).best_validation == 0.95);  // without the memo: read
}
