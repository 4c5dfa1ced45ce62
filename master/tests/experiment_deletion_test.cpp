#include <catch2/catch.hpp>

#include "master/checkpoint_deletion.hpp"
#include "master/experiment_deletion.hpp"
#include "master/model_registry.hpp"
#include "master/read_model.hpp"
#include "master/tests/lifecycle_fixture.hpp"

using namespace volador;
using namespace volador::master;
using namespace volador::master::testing;

namespace {

// Everything the journal holds of experiment `id` and its trial 10 * id.
void require_whole(const storage::Journal& journal, std::uint64_t id) {
  REQUIRE(journal.experiment(id));
  REQUIRE(journal.trial(10 * id));
  REQUIRE(journal.metrics(10 * id).value().size() == 1);
  REQUIRE(journal.logs(10 * id, 0, 10).value().size() == 1);
  REQUIRE(journal.archive(id));
}

}  // namespace

TEST_CASE("Only an ended experiment whose trials have stopped may be deleted") {
  using namespace std::string_literals;
  CHECK(deletion_refusal(experiment_record(1, RunState::active), false)->message ==
        "experiment 1 is ACTIVE: only an ended experiment can be deleted (kill it first: volador experiment kill 1)"s);
  CHECK(deletion_refusal(experiment_record(1, RunState::paused), false));
  CHECK(deletion_refusal(experiment_record(1, RunState::canceled), true));
  CHECK_FALSE(deletion_refusal(experiment_record(1, RunState::error), false));
  auto marked = experiment_record(1, RunState::completed);
  marked.deleting = true;
  CHECK_FALSE(deletion_refusal(marked, false));  // a deletion that was cut short goes on
}

TEST_CASE("A deletion plan keeps the folders of registered checkpoints") {
  std::vector<storage::CheckpointRecord> checkpoints(3);
  checkpoints[0].uuid = "a";
  checkpoints[1].uuid = "b";
  checkpoints[2].uuid = "c";
  const auto plan = plan_deletion(checkpoints, {"b", "z"});
  CHECK(plan.remove == std::vector<std::string>{"a", "c"});
  CHECK(plan.keep == std::vector<std::string>{"b"});
}

TEST_CASE("Deleting an experiment removes its records and checkpoints and nothing of another experiment") {
  LifecycleFixture f;
  const auto gone = f.checkpoint(10, 5);
  const auto kept = f.checkpoint(10, 10);
  const auto other = f.checkpoint(20, 5);
  REQUIRE(create_model(*f.journal, "m", "", kBob, 0));
  REQUIRE(register_model_version(*f.journal, f.data_dir, "m", kept, kBob, 0));
  REQUIRE(mark_for_deletion(*f.journal, f.journal->experiment(1).value()));
  auto report = finish_deletion(*f.journal, f.data_dir, 1);
  REQUIRE(report);
  CHECK(report->checkpoints_removed == 1);
  CHECK(report->checkpoints_kept == 1);

  CHECK(f.journal->experiment(1).error().code == ErrorCode::not_found);
  CHECK(f.journal->trial(10).error().code == ErrorCode::not_found);
  CHECK(f.journal->metrics(10).value().empty());
  CHECK(f.journal->logs(10, 0, 10).value().empty());
  CHECK(f.journal->archive(1).error().code == ErrorCode::not_found);
  CHECK(f.journal->trials(1).value().empty());
  CHECK(f.journal->checkpoints_of_experiment(1).value().empty());
  CHECK(f.journal->checkpoint(gone).error().code == ErrorCode::not_found);
  CHECK_FALSE(f.on_disk(gone));
  // The registered checkpoint stays whole, and so does the model version naming it.
  CHECK(f.on_disk(kept));
  CHECK(f.journal->checkpoint(kept).value().state == storage::CheckpointState::active);
  CHECK(describe_model(*f.journal, "m").value().versions.at(0).experiment_id == 1);
  // Experiment 2 is untouched.
  require_whole(*f.journal, 2);
  CHECK(f.on_disk(other));
  CHECK(f.journal->checkpoints_of_experiment(2).value().size() == 1);
}

TEST_CASE("A deletion cut short by a crash at any step is finished by the next master") {
  LifecycleFixture f;
  const auto first = f.checkpoint(10, 5);
  const auto second = f.checkpoint(10, 10);
  REQUIRE(mark_for_deletion(*f.journal, f.journal->experiment(1).value()));
  SECTION("after the mark") {}
  SECTION("after one folder of two was removed") { REQUIRE(f.store->remove(first)); }
  SECTION("after every folder was removed") {
    REQUIRE(f.store->remove(first));
    REQUIRE(f.store->remove(second));
  }
  // The experiment is already gone from what clients see.
  CHECK(ReadModel::load(*f.journal).value()->experiment(1).error().code == ErrorCode::not_found);
  CHECK(finish_pending_deletions(*f.journal, f.data_dir).empty());
  CHECK(f.journal->experiment(1).error().code == ErrorCode::not_found);
  CHECK_FALSE(f.on_disk(first));
  CHECK_FALSE(f.on_disk(second));
  require_whole(*f.journal, 2);
  // Nothing left to finish, and finishing again changes nothing.
  CHECK(finish_pending_deletions(*f.journal, f.data_dir).empty());
  require_whole(*f.journal, 2);
}

TEST_CASE("The read model forgets a deleted experiment and its trials as the journal commits it") {
  LifecycleFixture f;
  auto model = ReadModel::load(*f.journal).value();
  auto record = f.journal->experiment(1).value();
  record.deleting = true;
  REQUIRE(model->apply(storage::JournalBatch().put_experiment(record), {}));
  CHECK(model->experiment(1).error().code == ErrorCode::not_found);
  CHECK(model->trial(10).error().code == ErrorCode::not_found);
  CHECK(model->experiments(true).experiments.size() == 1);
  CHECK(model->trial(20));
}

TEST_CASE("A user's description and labels replace the config's in the read model, also when loaded again") {
  LifecycleFixture f;
  storage::ExperimentMetadataRecord metadata{.experiment_id = 1, .description = "retrained", .labels = {"prod"},
                                             .changed_at_ms = 5, .changed_by = "bob"};
  auto model = ReadModel::load(*f.journal).value();
  CHECK(model->experiment(1).value().summary.labels == std::vector<std::string>{"mnist", "baseline"});
  REQUIRE(f.journal->put_experiment_metadata(metadata));
  REQUIRE(model->apply(storage::JournalBatch().put_experiment_metadata(metadata), {}));
  auto loaded = ReadModel::load(*f.journal).value();
  for (const ReadModel* m : {model.get(), loaded.get()}) {
    auto detail = m->experiment(1).value();
    CHECK(detail.description == "retrained");
    CHECK(detail.summary.labels == std::vector<std::string>{"prod"});
  }
}

TEST_CASE("A registered checkpoint and a running trial's resume point cannot be deleted but others can") {
  LifecycleFixture f;
  const auto older = f.checkpoint(10, 5);
  const auto newest = f.checkpoint(10, 10);
  auto trial = f.journal->trial(10).value();
  const auto of_trial = f.journal->checkpoints_of_trial(10).value();
  auto running = trial;
  running.state = RunState::active;
  const auto c_older = f.journal->checkpoint(older).value();
  const auto c_newest = f.journal->checkpoint(newest).value();
  CHECK(checkpoint_deletion_refusal(c_newest, running, of_trial, {})->message ==
        "checkpoint " + newest + " is where trial 10 (ACTIVE) resumes: delete it once the trial has ended");
  CHECK_FALSE(checkpoint_deletion_refusal(c_older, running, of_trial, {}));
  CHECK_FALSE(checkpoint_deletion_refusal(c_newest, trial, of_trial, {}));
  std::vector<storage::ModelVersionRecord> versions{{.model_name = "m", .version = 3, .checkpoint_uuid = older}};
  CHECK(checkpoint_deletion_refusal(c_older, trial, of_trial, versions)->message ==
        "checkpoint " + older + " is version 3 of model 'm': a registered checkpoint is never deleted");

  REQUIRE(delete_checkpoint(*f.journal, f.data_dir, c_older));
  CHECK_FALSE(f.on_disk(older));
  CHECK(f.journal->checkpoint(older).value().state == storage::CheckpointState::deleted);
  CHECK(f.on_disk(newest));
  REQUIRE(delete_checkpoint(*f.journal, f.data_dir, f.journal->checkpoint(older).value()));  // again: nothing to do
}
