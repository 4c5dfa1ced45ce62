#include <catch2/catch.hpp>

#include "master/experiment_continuation.hpp"
#include "master/lifecycle_requests.hpp"
#include "master/tests/lifecycle_fixture.hpp"
#include "master/trial_resume.hpp"
#include "runtime/config/config_parser.hpp"

using namespace volador;
using namespace volador::master;
using namespace volador::master::testing;

namespace {

config::ExperimentConfig query_config() {
  return std::get<config::ExperimentConfig>(config::parse_experiment_config(kConfig, "q.yaml"));
}

// Experiment 3, continuing experiment 1 (`state`), its trial 30 continuing trial 10 from `uuid`.
void add_continuation(storage::Journal& journal, RunState state, const std::string& uuid) {
  auto record = experiment_record(3, state);
  record.continued_from = 1;
  record.continues = {{.source_trial_id = 10, .checkpoint_uuid = uuid, .hparams = {{"lr", 1.0}}, .seed = 77}};
  REQUIRE(journal.put_experiment(record));
  auto trial = trial_record(30, 3, RunState::active);
  trial.request_id = 1;
  take_continued_trial(record, trial);
  REQUIRE(journal.put_trial(trial));
}

}  // namespace

TEST_CASE("A continuation takes each ended trial's newest live checkpoint, hyperparameters and seed") {
  LifecycleFixture f;
  f.checkpoint(10, 5);
  const auto newest = f.checkpoint(10, 10);
  auto plan = continuation_plan(*f.journal, 1);
  REQUIRE(plan);
  REQUIRE(plan->size() == 1);
  CHECK((*plan)[0].source_trial_id == 10);
  CHECK((*plan)[0].checkpoint_uuid == newest);
  CHECK((*plan)[0].hparams == nlohmann::json{{"lr", 1.0}});
  CHECK(continuation_plan(*f.journal, 0).value().empty());
  CHECK(continuation_plan(*f.journal, 2).error().message ==
        "experiment 2 has no trial with a checkpoint to continue from (fork it to start over)");
  REQUIRE(f.journal->put_experiment(experiment_record(4, RunState::paused)));
  CHECK(continuation_plan(*f.journal, 4).error().message ==
        "experiment 4 is PAUSED: only an ended experiment can be continued");
}

TEST_CASE("A continuation's searcher trains each continued trial to max_length with its hyperparameters, then ends") {
  std::vector<storage::ContinuedTrial> plan{{.source_trial_id = 10, .checkpoint_uuid = "a", .hparams = {{"lr", 0.5}}, .seed = 1},
                                           {.source_trial_id = 11, .checkpoint_uuid = "b", .hparams = {{"lr", 0.7}}, .seed = 2}};
  auto searcher = experiment_searcher(plan, query_config(), 9).value();
  auto ops = searcher->initial_operations();
  REQUIRE(ops.size() == 2);
  CHECK(std::get<search::CreateTrial>(ops[0]).hparams == plan[0].hparams);
  CHECK(std::get<search::CreateTrial>(ops[1]).hparams == plan[1].hparams);
  for (search::RequestId id : {1, 2})
    CHECK(searcher->on_trial_created(id) == search::Operations{search::ValidateAfter{id, 10}});
  CHECK(searcher->on_validation_completed(1, 0.9, 10) == search::Operations{search::CloseTrial{1, false}});
  CHECK(searcher->on_trial_closed(1).empty());
  searcher->on_validation_completed(2, 0.8, 10);
  CHECK(searcher->on_trial_closed(2) == search::Operations{search::Shutdown{false}});
  // Without a plan, the config's own searcher (random, 2 trials of sampled hyperparameters).
  auto own = experiment_searcher({}, query_config(), 9).value()->initial_operations();
  CHECK(std::get<search::CreateTrial>(own.at(0)).hparams.contains("lr"));
}

TEST_CASE("A continued trial starts from its source's checkpoint until it has its own, and from the beginning when that is gone") {
  LifecycleFixture f;
  const auto source = f.checkpoint(10, 10);
  add_continuation(*f.journal, RunState::active, source);
  CHECK(f.journal->trial(30).value().seed == 77);

  auto point = prepare_resume(*f.journal, *f.store, 30, source);
  REQUIRE(point);
  REQUIRE(point->checkpoint);
  CHECK(point->checkpoint->uuid == source);
  CHECK(point->progress.batches_trained == 10);
  CHECK(point->progress.last_checkpoint_at == 10);
  CHECK(standing_point(*f.journal, 30, 12, source).value().checkpoint->uuid == source);

  const auto own = f.checkpoint(30, 15);
  CHECK(prepare_resume(*f.journal, *f.store, 30, source).value().checkpoint->uuid == own);

  auto deleted = f.journal->checkpoint(own).value();
  deleted.state = storage::CheckpointState::deleted;
  REQUIRE(f.journal->put_checkpoint(deleted));
  REQUIRE(f.store->remove(source));
  auto fresh = prepare_resume(*f.journal, *f.store, 30, source);
  REQUIRE(fresh);
  CHECK_FALSE(fresh->checkpoint);
  REQUIRE(fresh->notes.size() == 1);
  CHECK(fresh->notes[0].find("checkpoint " + source + " this trial continues from is unusable") == 0);
}

TEST_CASE("An unended continuation keeps the experiment and checkpoints it starts from") {
  LifecycleFixture f;
  const auto older = f.checkpoint(10, 5);
  const auto source = f.checkpoint(10, 10);
  add_continuation(*f.journal, RunState::active, source);
  auto refused = delete_experiment_for(*f.journal, f.data_dir, kAdmin, 1, false);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message ==
        "experiment 1 is where experiment 3 (ACTIVE) continues from: delete it once that experiment has ended");
  CHECK(delete_checkpoint_for(*f.journal, f.data_dir, kBob, source).error().message ==
        "checkpoint " + source + " is where experiment 3 (ACTIVE) continues from: delete it once that experiment has ended");
  CHECK(delete_checkpoint_for(*f.journal, f.data_dir, kBob, older));
  add_continuation(*f.journal, RunState::completed, source);
  CHECK(delete_experiment_for(*f.journal, f.data_dir, kBob, 1, false));
}
