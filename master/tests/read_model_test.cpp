// The read model of the queries: each kind of journaled record updates the
// summaries it should and no other; a model fed the journal's commits live
// equals one loaded from that journal afterwards.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "master/read_model.hpp"
#include "master/tests/query_fixture.hpp"

using namespace volador;
using namespace volador::master;
using namespace volador::master::testing;
using storage::JournalBatch;

namespace {

// A journal whose commits feed a read model, as the master's does.
struct FollowedJournal {
  std::unique_ptr<storage::Journal> journal = storage::Journal::in_memory();
  std::shared_ptr<const ReadModel> model = follow_journal(*journal).value();

  void commit(const JournalBatch& batch) { REQUIRE(journal->commit(batch)); }
  [[nodiscard]] wire::ExperimentDetail detail(std::uint64_t id = 1) const { return model->experiment(id).value(); }
  [[nodiscard]] wire::TrialSummary trial(std::uint64_t id) const { return model->trial(id).value(); }
};

// A journal whose commits feed a read model that spills ended experiments' trials to a folder.
struct SpillingJournal {
  std::filesystem::path folder =
      std::filesystem::temp_directory_path() / ("volador-read-model-" + std::to_string(std::random_device{}()));
  std::unique_ptr<storage::Journal> journal = storage::Journal::in_memory();
  std::shared_ptr<const ReadModel> model = follow_journal(*journal, SummarySpill::open(folder).value()).value();
  ~SpillingJournal() { std::filesystem::remove_all(folder); }

  void commit(const JournalBatch& batch) { REQUIRE(journal->commit(batch)); }
  [[nodiscard]] std::filesystem::path file_of(std::uint64_t experiment) const {
    return folder / ("experiment-" + std::to_string(experiment) + ".trials");
  }
};

// Experiment 1 (ACTIVE) with ACTIVE trials 1 and 2.
FollowedJournal two_trials() {
  FollowedJournal f;
  f.commit(JournalBatch()
               .put_experiment(experiment_record(1, RunState::active))
               .put_trial(trial_record(1, 1, RunState::active))
               .put_trial(trial_record(2, 1, RunState::active)));
  return f;
}

std::map<RunState, std::uint32_t> states_of(const wire::ExperimentSummary& summary) {
  std::map<RunState, std::uint32_t> out;
  for (const auto& count : summary.trial_states) out[count.state] = count.count;
  return out;
}

// Everything the model answers, for comparing two models.
struct Answers {
  wire::ExperimentList experiments;
  std::vector<wire::ExperimentDetail> details;
  wire::TrialList trials;
  bool operator==(const Answers&) const = default;
};

Answers answers_of(const ReadModel& model) {
  Answers out{.experiments = model.experiments(true), .details = {}, .trials = model.trials(0).value()};
  for (const auto& e : out.experiments.experiments) out.details.push_back(model.experiment(e.id).value());
  return out;
}

}  // namespace

TEST_CASE("An experiment record sets its summary and the facts of its config") {
  FollowedJournal f;
  auto record = experiment_record(1, RunState::active);
  f.commit(JournalBatch().put_experiment(record));
  auto detail = f.detail();
  CHECK(detail.summary.name == "q");
  CHECK(detail.summary.state == RunState::active);
  CHECK(detail.summary.progress == 0.5);
  CHECK(detail.summary.owner == "bob");
  CHECK(detail.summary.searcher == "random");
  CHECK(detail.summary.metric == "accuracy");
  CHECK_FALSE(detail.summary.smaller_is_better);
  CHECK(detail.summary.labels == std::vector<std::string>{"mnist", "baseline"});
  CHECK(detail.summary.workspace == "research");
  CHECK(detail.summary.project == "resnets");
  CHECK(detail.description == "a baseline");
  CHECK(detail.config == kConfig);
  CHECK(detail.summary.num_trials == 0);

  record.state = RunState::completed;
  record.progress = 1;
  record.ended_at_ms = 9;
  record.archived = true;
  f.commit(JournalBatch().put_experiment(record));
  CHECK(f.detail().summary.state == RunState::completed);
  CHECK(f.detail().summary.progress == 1);
  CHECK(f.detail().summary.ended_at_ms == 9);
  CHECK(f.model->experiments(false).experiments.empty());
  REQUIRE(f.model->experiments(true).experiments.size() == 1);
  CHECK(f.model->experiments(true).experiments[0].archived);
}

TEST_CASE("An experiment journaled before users existed belongs to admin") {
  FollowedJournal f;
  auto legacy = experiment_record(1, RunState::completed);
  legacy.owner = "";
  f.commit(JournalBatch().put_experiment(legacy));
  CHECK(f.detail().summary.owner == "admin");
}

TEST_CASE("Trial records set the trial's summary and their experiment's counts by state") {
  auto f = two_trials();
  auto detail = f.detail();
  CHECK(detail.summary.num_trials == 2);
  CHECK(states_of(detail.summary) == std::map<RunState, std::uint32_t>{{RunState::active, 2}});
  REQUIRE(detail.trials.size() == 2);
  CHECK(detail.trials[0].id == 1);
  CHECK(detail.trials[1].hparams == R"({"lr":0.2})");

  auto ended = trial_record(2, 1, RunState::error);
  ended.error_message = "boom";
  ended.batches_trained = 40;
  ended.restarts = 1;
  f.commit(JournalBatch().put_trial(ended));
  const auto trial = f.trial(2);
  CHECK(trial.state == RunState::error);
  CHECK(trial.error == "boom");
  CHECK(trial.batches_trained == 40);
  CHECK(trial.restarts == 1);
  CHECK(trial.ended_at_ms == 2500);
  CHECK(states_of(f.detail().summary) ==
        std::map<RunState, std::uint32_t>{{RunState::active, 1}, {RunState::error, 1}});
  CHECK(f.model->trials(1).value().trials.size() == 2);
}

TEST_CASE("Validation reports of the searcher metric make the trial's and the experiment's best") {
  auto f = two_trials();
  struct Step {
    std::uint64_t trial;
    MetricKind kind;
    std::uint64_t batches;
    double accuracy;
    std::optional<double> trial_best;  // of the trial reported
    std::optional<wire::BestTrial> experiment_best;
  };
  const std::vector<Step> steps{
      {1, MetricKind::training, 5, 0.99, std::nullopt, std::nullopt},  // training reports never count
      {1, MetricKind::validation, 5, 0.5, 0.5, wire::BestTrial{0.5, 1}},
      {2, MetricKind::validation, 5, 0.4, 0.4, wire::BestTrial{0.5, 1}},
      {2, MetricKind::validation, 10, 0.7, 0.7, wire::BestTrial{0.7, 2}},  // larger is better
      {1, MetricKind::validation, 10, 0.6, 0.6, wire::BestTrial{0.7, 2}},
      {1, MetricKind::validation, 15, 0.7, 0.7, wire::BestTrial{0.7, 1}},  // a tie goes to the smaller trial id
      {2, MetricKind::validation, 15, 0.1, 0.7, wire::BestTrial{0.7, 1}},
  };
  for (const auto& step : steps) {
    CAPTURE(step.trial, step.batches, step.accuracy);
    f.commit(JournalBatch().append_metrics(report(step.trial, step.kind, step.batches, {{"accuracy", step.accuracy}})));
    CHECK(f.trial(step.trial).best_validation == step.trial_best);
    CHECK(f.detail().summary.best == step.experiment_best);
  }
  // A validation without the searcher metric changes no best.
  f.commit(JournalBatch().append_metrics(report(1, MetricKind::validation, 20, {{"loss", 0.1}})));
  CHECK(f.trial(1).best_validation == 0.7);
}

TEST_CASE("The latest report of each kind is the one with the most batches") {
  auto f = two_trials();
  f.commit(JournalBatch()
               .append_metrics(report(1, MetricKind::training, 10, {{"loss", 0.5}}))
               .append_metrics(report(1, MetricKind::training, 5, {{"loss", 0.9}}))
               .append_metrics(report(1, MetricKind::validation, 10, {{"accuracy", 0.3}})));
  CHECK(f.trial(1).latest_training == MetricMap{{"loss", 0.5}});
  CHECK(f.trial(1).latest_validation == MetricMap{{"accuracy", 0.3}});
  f.commit(JournalBatch().append_metrics(report(1, MetricKind::training, 10, {{"loss", 0.4}})));
  CHECK(f.trial(1).latest_training == MetricMap{{"loss", 0.4}});  // of one step, the last journaled
  CHECK(f.trial(2).latest_training.empty());
}

TEST_CASE("Deleting a trial's later reports (a restart) takes back its best and latest metrics") {
  auto f = two_trials();
  f.commit(JournalBatch()
               .append_metrics(report(1, MetricKind::validation, 5, {{"accuracy", 0.5}}))
               .append_metrics(report(1, MetricKind::validation, 10, {{"accuracy", 0.8}}))
               .append_metrics(report(1, MetricKind::training, 10, {{"loss", 0.2}}))
               .append_metrics(report(2, MetricKind::validation, 5, {{"accuracy", 0.6}})));
  REQUIRE(f.detail().summary.best == wire::BestTrial{0.8, 1});

  SECTION("the deleted reports go") {
    f.commit(JournalBatch().delete_metrics_after(1, 5));
    CHECK(f.trial(1).best_validation == 0.5);
    CHECK(f.trial(1).latest_validation == MetricMap{{"accuracy", 0.5}});
    CHECK(f.trial(1).latest_training.empty());
    CHECK(f.detail().summary.best == wire::BestTrial{0.6, 2});
  }
  SECTION("reports appended in the same batch after the deletion stay") {
    f.commit(JournalBatch().delete_metrics_after(1, 5).append_metrics(report(1, MetricKind::validation, 10, {{"accuracy", 0.55}})));
    CHECK(f.trial(1).best_validation == 0.55);
    CHECK(f.trial(1).latest_validation == MetricMap{{"accuracy", 0.55}});
    CHECK(f.detail().summary.best == wire::BestTrial{0.6, 2});
  }
  SECTION("a deletion after the best and latest reports changes nothing") {
    const auto before = answers_of(*f.model);
    f.commit(JournalBatch().delete_metrics_after(1, 10));
    CHECK(answers_of(*f.model) == before);
  }
}

TEST_CASE("An ended trial, kept packed, reads back whole and still takes late reports and deletions") {
  auto f = two_trials();
  f.commit(JournalBatch()
               .append_metrics(report(1, MetricKind::validation, 5, {{"accuracy", 0.5}}))
               .append_metrics(report(1, MetricKind::training, 5, {{"loss", 0.3}}))
               .append_metrics(report(2, MetricKind::validation, 5, {{"accuracy", 0.6}})));
  auto completed = trial_record(1, 1, RunState::completed);
  completed.batches_trained = 5;
  f.commit(JournalBatch().put_trial(completed));
  auto expected = f.trial(2);  // trial 2 as it was, for the same fields on trial 1
  auto ended = f.trial(1);
  CHECK(ended.state == RunState::completed);
  CHECK(ended.hparams == R"({"lr":0.1})");
  CHECK(ended.best_validation == 0.5);
  CHECK(ended.latest_training == MetricMap{{"loss", 0.3}});
  CHECK(ended.latest_validation == MetricMap{{"accuracy", 0.5}});
  CHECK(ended.batches_trained == 5);
  CHECK(expected.best_validation == 0.6);
  CHECK(f.detail().trials.at(0) == ended);
  CHECK(f.model->trials(0).value().trials.at(0) == ended);
  CHECK(states_of(f.detail().summary) ==
        std::map<RunState, std::uint32_t>{{RunState::active, 1}, {RunState::completed, 1}});

  // A report that comes after the trial's end record still counts, and the trial stays ended.
  f.commit(JournalBatch().append_metrics(report(1, MetricKind::validation, 10, {{"accuracy", 0.9}})));
  CHECK(f.trial(1).best_validation == 0.9);
  CHECK(f.trial(1).latest_validation == MetricMap{{"accuracy", 0.9}});
  CHECK(f.trial(1).state == RunState::completed);
  CHECK(f.detail().summary.best == wire::BestTrial{0.9, 1});

  // Deleting its later reports takes them back, as for a running trial.
  f.commit(JournalBatch().delete_metrics_after(1, 5));
  CHECK(f.trial(1).best_validation == 0.5);
  CHECK(f.trial(1).latest_validation == MetricMap{{"accuracy", 0.5}});
  CHECK(f.detail().summary.best == wire::BestTrial{0.6, 2});

  auto loaded = ReadModel::load(*f.journal);
  REQUIRE(loaded);
  CHECK(answers_of(**loaded) == answers_of(*f.model));

  f.commit(JournalBatch().delete_experiment(1));
  CHECK(f.model->trial(1).error().code == ErrorCode::not_found);
  CHECK(f.model->trial(2).error().code == ErrorCode::not_found);
}

TEST_CASE("Records the summaries do not show change nothing") {
  auto f = two_trials();
  f.commit(JournalBatch().append_metrics(report(1, MetricKind::validation, 5, {{"accuracy", 0.5}})));
  const auto before = answers_of(*f.model);
  f.commit(JournalBatch()
               .put_searcher_state(1, {{"anything", 1}})
               .put_checkpoint({.uuid = "c1", .experiment_id = 1, .trial_id = 1, .batches = 5})
               .put_user({.name = "carol"})
               .put_token({.token_hash = "ab", .user_name = "carol"})
               .append_metrics(report(99, MetricKind::validation, 5, {{"accuracy", 0.9}})));  // no such trial
  CHECK(answers_of(*f.model) == before);
}

TEST_CASE("A batch the journal refuses reaches no summary") {
  auto f = two_trials();
  const auto before = answers_of(*f.model);
  auto bad = trial_record(1, 1, RunState::completed);
  CHECK_FALSE(f.journal->commit(JournalBatch().put_trial(bad).put_checkpoint({.uuid = ""})));
  CHECK(answers_of(*f.model) == before);
}

TEST_CASE("A model loaded from the journal equals the one its commits fed") {
  FollowedJournal f;
  f.commit(JournalBatch().put_experiment(experiment_record(1, RunState::active)));
  auto other = experiment_record(2, RunState::active);
  other.config_yaml = std::string(kConfig).replace(std::string(kConfig).find("smaller_is_better: false"), 24,
                                                   "smaller_is_better: true");
  f.commit(JournalBatch().put_experiment(other));
  for (std::uint64_t id = 1; id <= 6; ++id) {
    const std::uint64_t experiment = id % 2 + 1;
    f.commit(JournalBatch().put_trial(trial_record(id, experiment, RunState::active)));
    for (std::uint64_t step = 1; step <= 8; ++step) {
      const double accuracy = static_cast<double>((id * 7 + step * 3) % 10) / 10;
      auto trial = trial_record(id, experiment, RunState::active);
      trial.batches_trained = step * 5;
      f.commit(JournalBatch()
                   .append_metrics(report(id, MetricKind::training, step * 5, {{"loss", 1 - accuracy}}))
                   .append_metrics(report(id, MetricKind::validation, step * 5, {{"accuracy", accuracy}}))
                   .put_trial(trial));
    }
  }
  f.commit(JournalBatch().delete_metrics_after(3, 15).append_metrics(report(3, MetricKind::validation, 20, {{"accuracy", 0.05}})));
  f.commit(JournalBatch().delete_metrics_after(4, 0));
  f.commit(JournalBatch().put_trial(trial_record(5, 2, RunState::completed)).put_trial(trial_record(6, 1, RunState::error)));
  auto ended = experiment_record(2, RunState::completed);
  ended.config_yaml = other.config_yaml;
  ended.archived = true;
  f.commit(JournalBatch().put_experiment(ended));

  auto loaded = ReadModel::load(*f.journal);
  REQUIRE(loaded);
  const auto live = answers_of(*f.model);
  CHECK(answers_of(**loaded) == live);
  CHECK(live.experiments.experiments.size() == 2);
  CHECK(live.trials.trials.size() == 6);
  CHECK(f.trial(4).best_validation == std::nullopt);
}

TEST_CASE("The read model answers not_found naming an unknown experiment or trial") {
  FollowedJournal f;
  auto experiment = f.model->experiment(7);
  REQUIRE_FALSE(experiment);
  CHECK(experiment.error().code == ErrorCode::not_found);
  CHECK(experiment.error().message == "experiment 7 not found");
  CHECK(f.model->trials(7).error().code == ErrorCode::not_found);
  CHECK(f.model->trial(8).error().message == "trial 8 not found");
  CHECK(f.model->trials(0).value().trials.empty());
}

TEST_CASE("An experiment's version grows with each change to it or its trials and only then") {
  auto f = two_trials();
  f.commit(JournalBatch().put_experiment(experiment_record(2, RunState::active)));
  const auto first = f.model->version(1), other = f.model->version(2), any = f.model->version(0);
  CHECK(first > 0);
  f.commit(JournalBatch().put_searcher_state(1, {{"anything", 1}}));
  CHECK(f.model->version(1) == first);
  f.commit(JournalBatch().append_metrics(report(1, MetricKind::training, 5, {{"loss", 0.5}})));
  const auto reported = f.model->version(1);
  CHECK(reported > first);
  f.commit(JournalBatch().put_trial(trial_record(2, 1, RunState::completed)));
  CHECK(f.model->version(1) > reported);
  CHECK(f.model->version(2) == other);
  CHECK(f.model->version(0) > any);
  CHECK(f.model->version(9) == 0);
}

namespace {

// Experiment 1 ended with COMPLETED trials 1 and 2 (validated and trained), experiment 2 running trial 3.
void one_ended_one_running(SpillingJournal& f) {
  f.commit(JournalBatch()
               .put_experiment(experiment_record(1, RunState::active))
               .put_experiment(experiment_record(2, RunState::active))
               .put_trial(trial_record(1, 1, RunState::active))
               .put_trial(trial_record(2, 1, RunState::active))
               .put_trial(trial_record(3, 2, RunState::active)));
  f.commit(JournalBatch()
               .append_metrics(report(1, MetricKind::validation, 5, {{"accuracy", 0.5}}))
               .append_metrics(report(1, MetricKind::training, 5, {{"loss", 0.3}}))
               .append_metrics(report(2, MetricKind::validation, 5, {{"accuracy", 0.6}}))
               .append_metrics(report(3, MetricKind::validation, 5, {{"accuracy", 0.7}})));
  f.commit(JournalBatch().put_trial(trial_record(1, 1, RunState::completed)).put_trial(trial_record(2, 1, RunState::completed)));
  f.commit(JournalBatch().put_experiment(experiment_record(1, RunState::completed)));
}

}  // namespace

TEST_CASE("The trials of an ended experiment leave memory for a file and read back the same") {
  SpillingJournal f;
  one_ended_one_running(f);
  CHECK(f.model->trials_in_memory() == 1);  // trial 3's
  CHECK(std::filesystem::exists(f.file_of(1)));
  CHECK_FALSE(std::filesystem::exists(f.file_of(2)));
  const auto held_in_memory = ReadModel::load(*f.journal).value();
  CHECK(answers_of(*f.model) == answers_of(*held_in_memory));
  CHECK(f.model->trial(2).value() == held_in_memory->trial(2).value());
  CHECK(f.model->trial(9).error().code == ErrorCode::not_found);

  SECTION("a late report reads them back, counts, and they go again") {
    f.commit(JournalBatch().append_metrics(report(1, MetricKind::validation, 10, {{"accuracy", 0.9}})));
    CHECK(f.model->trial(1).value().best_validation == 0.9);
    CHECK(f.model->experiment(1).value().summary.best == wire::BestTrial{0.9, 1});
    CHECK(f.model->trials_in_memory() == 1);
    CHECK(answers_of(*f.model) == answers_of(*ReadModel::load(*f.journal).value()));
  }
  SECTION("a deletion of reports reads them back and takes the reports back") {
    f.commit(JournalBatch().delete_metrics_after(2, 0));
    CHECK(f.model->trial(2).value().best_validation == std::nullopt);
    CHECK(f.model->experiment(1).value().summary.best == wire::BestTrial{0.5, 1});
    CHECK(f.model->trials_in_memory() == 1);
  }
  SECTION("a model loaded with a spill answers the same") {
    const std::filesystem::path other = f.folder.string() + "-loaded";
    auto loaded = ReadModel::load(*f.journal, SummarySpill::open(other).value()).value();
    CHECK(loaded->trials_in_memory() == 1);
    CHECK(answers_of(*loaded) == answers_of(*f.model));
    std::filesystem::remove_all(other);
  }
  SECTION("deleting the experiment removes its file") {
    f.commit(JournalBatch().delete_experiment(1));
    CHECK_FALSE(std::filesystem::exists(f.file_of(1)));
    CHECK(f.model->trial(1).error().code == ErrorCode::not_found);
  }
}

TEST_CASE("A damaged spill file fails the queries of its experiment's trials, naming it, and no others") {
  SpillingJournal f;
  one_ended_one_running(f);
  std::ofstream(f.file_of(1), std::ios::trunc) << "garbage";
  for (const auto& error : {f.model->experiment(1).error(), f.model->trials(1).error(), f.model->trial(1).error()})
    CHECK_THAT(error.message, Catch::Contains("experiment-1.trials"));
  CHECK(f.model->experiments(true).experiments.size() == 2);
  CHECK(f.model->experiment(2).value().trials.size() == 1);
  CHECK(f.model->trial(3).value().best_validation == 0.7);
}
