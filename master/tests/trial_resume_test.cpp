#include <catch2/catch.hpp>

#include <fstream>
#include <random>

#include "master/trial_resume.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"
#include "storage/checkpoints/uuid.hpp"

using namespace volador;
using namespace volador::master;
namespace fs = std::filesystem;

namespace {

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("volador-resume-" + std::to_string(std::random_device{}()));
  std::unique_ptr<storage::Journal> journal = storage::Journal::in_memory();
  std::unique_ptr<checkpoints::SharedFsStore> store = std::move(checkpoints::SharedFsStore::open(dir / "ckpt").value());
  ~Fixture() { fs::remove_all(dir); }

  // Commits a checkpoint of trial 1 after `batches` and journals it
  // (`scheduled`: the plan asked for it, else a pausing trial took it).
  std::string checkpoint(std::uint64_t batches, bool scheduled = true,
                         storage::CheckpointState state = storage::CheckpointState::active) {
    auto uuid = checkpoints::new_uuid().value();
    auto pending = store->begin(uuid).value();
    std::ofstream(pending.dir / "weights.bin") << "weights after " << batches;
    auto manifest = store->commit(pending).value();
    REQUIRE(journal->put_checkpoint({uuid, 1, 1, batches, 1, {{"accuracy", 0.5}}, state, manifest.total_bytes, 0,
                                     scheduled}));
    return uuid;
  }
  void report(storage::MetricKind kind, std::uint64_t batches) {
    REQUIRE(journal->append_metrics({1, kind, batches, {{"accuracy", static_cast<double>(batches)}}, 0}));
  }
  // Checkpoints after 100 and 200 batches, both kinds of report after 100,
  // 200 and 300; the newest checkpoint's uuid.
  std::string checkpoints_and_reports() {
    checkpoint(100);
    auto newest = checkpoint(200);
    for (std::uint64_t b : {100, 200, 300}) {
      report(storage::MetricKind::training, b);
      report(storage::MetricKind::validation, b);
    }
    return newest;
  }
};

}  // namespace

TEST_CASE("A trial resumes from its newest checkpoint and later reports are dropped") {
  Fixture f;
  const auto newest = f.checkpoints_and_reports();
  auto point = prepare_resume(*f.journal, *f.store, 1);
  REQUIRE(point.has_value());
  REQUIRE(point->checkpoint.has_value());
  CHECK(point->checkpoint->uuid == newest);
  CHECK(point->progress.batches_trained == 200);
  CHECK(point->progress.last_checkpoint_at == 200);
  CHECK(point->progress.last_validation_at == 200);
  CHECK(point->last_validation.at("accuracy") == 200);
  auto metrics = f.journal->metrics(1).value();
  CHECK(metrics.size() == 4);  // the reports at 300 are gone, both kinds
  for (const auto& m : metrics) CHECK(m.batches <= 200);
}

TEST_CASE("A corrupt checkpoint is detected by its checksum, marked deleted, and the previous one is used") {
  Fixture f;
  const auto older = f.checkpoint(100);
  const auto newest = f.checkpoint(200);
  std::ofstream(f.store->path(newest).value() / "weights.bin") << "bit rot";
  auto point = prepare_resume(*f.journal, *f.store, 1);
  REQUIRE(point.has_value());
  REQUIRE(point->checkpoint.has_value());
  CHECK(point->checkpoint->uuid == older);
  REQUIRE(point->notes.size() == 1);
  CHECK(point->notes[0].find(newest) != std::string::npos);
  CHECK(point->notes[0].find("weights.bin") != std::string::npos);
  CHECK(f.journal->checkpoint(newest).value().state == storage::CheckpointState::deleted);
}

TEST_CASE("Without a usable checkpoint a trial starts over, keeping only an initial validation") {
  Fixture f;
  f.report(storage::MetricKind::validation, 0);
  f.report(storage::MetricKind::training, 50);
  auto point = prepare_resume(*f.journal, *f.store, 1);
  REQUIRE(point.has_value());
  CHECK_FALSE(point->checkpoint.has_value());
  CHECK(point->progress.batches_trained == 0);
  CHECK(point->progress.last_validation_at == 0);
  CHECK(f.journal->metrics(1).value().size() == 1);
}

TEST_CASE("A run that goes on stands where its journal ends, with the checkpoint and validation before it") {
  Fixture f;
  const auto newest = f.checkpoints_and_reports();
  f.report(storage::MetricKind::training, 350);
  auto point = standing_point(*f.journal, 1, 350);
  REQUIRE(point.has_value());
  REQUIRE(point->checkpoint.has_value());
  CHECK(point->checkpoint->uuid == newest);
  CHECK(point->progress.batches_trained == 350);
  CHECK(point->progress.last_checkpoint_at == 200);
  CHECK(point->progress.last_validation_at == 300);
  CHECK(point->last_validation.at("accuracy") == 300);
  CHECK(point->validations.size() == 3);
  CHECK(f.journal->metrics(1).value().size() == 7);  // nothing dropped
}

TEST_CASE("A run standing before its first checkpoint has none") {
  Fixture f;
  f.checkpoint(200);
  f.report(storage::MetricKind::training, 50);
  auto point = standing_point(*f.journal, 1, 50);
  REQUIRE(point.has_value());
  CHECK_FALSE(point->checkpoint.has_value());
  CHECK(point->progress.last_checkpoint_at == -1);
  CHECK(point->progress.last_validation_at == -1);
}

TEST_CASE("A checkpoint a pausing trial took where it stood leaves the plan's periodic count where the plan left it") {
  Fixture f;
  f.checkpoint(100, true, storage::CheckpointState::deleted);  // the plan's, since collected: it still counts
  f.checkpoint(120, false);                                     // an earlier pause
  const auto paused_at = f.checkpoint(150, false);
  auto point = prepare_resume(*f.journal, *f.store, 1);
  REQUIRE(point.has_value());
  REQUIRE(point->checkpoint.has_value());
  CHECK(point->checkpoint->uuid == paused_at);
  CHECK_FALSE(point->checkpoint->scheduled);
  CHECK(point->progress.batches_trained == 150);
  CHECK(point->progress.last_checkpoint_at == 100);
}

TEST_CASE("Without any checkpoint of the plan the periodic count starts from the beginning") {
  Fixture f;
  f.checkpoint(70, false);
  auto point = prepare_resume(*f.journal, *f.store, 1);
  REQUIRE(point.has_value());
  CHECK(point->progress.batches_trained == 70);
  CHECK(point->progress.last_checkpoint_at == -1);
}

TEST_CASE("A pbt copy starts from its parent's newest active checkpoint and names the parent") {
  Fixture f;
  f.checkpoint(100);
  const auto newest = f.checkpoint(200);
  f.checkpoint(300, true, storage::CheckpointState::deleted);
  storage::TrialRecord child{.id = 2, .experiment_id = 1, .request_id = 5};
  REQUIRE(warm_start_from(*f.journal, 1, child));
  CHECK(child.warm_start == newest);
  CHECK(child.warm_start_trial == 1);
  // It stands at the parent's length: its batch count goes on from there.
  auto point = prepare_resume(*f.journal, *f.store, 2, child.warm_start);
  REQUIRE(point.has_value());
  CHECK(point->progress.batches_trained == 200);
  CHECK(point->last_validation.empty());
  storage::TrialRecord orphan{.id = 3, .experiment_id = 1, .request_id = 6};
  CHECK(warm_start_from(*f.journal, 2, orphan).error().code == ErrorCode::not_found);  // trial 2 has none of its own
  CHECK(orphan.warm_start.empty());
}

TEST_CASE("A restarted master holds back a validation at the target until the trial has a checkpoint there") {
  Fixture f;
  f.checkpoints_and_reports();  // checkpoints after 100 and 200; validations after 100, 200 and 300
  using Seen = std::vector<std::pair<std::uint64_t, double>>;
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 100, 300).value() == Seen{{200, 200.0}});
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 100, 200).value() == Seen{{200, 200.0}, {300, 300.0}});
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 100).value() == Seen{{200, 200.0}, {300, 300.0}});
  f.checkpoint(300);
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 100, 300).value() == Seen{{200, 200.0}, {300, 300.0}});
}

TEST_CASE("The validations a restarted master's searcher has not seen are those after the last it saw, in order") {
  Fixture f;
  f.checkpoints_and_reports();  // validations of accuracy after 100, 200 and 300
  REQUIRE(f.journal->append_metrics({1, storage::MetricKind::validation, 400, {{"loss", 0.1}}, 0}));  // not the metric
  using Seen = std::vector<std::pair<std::uint64_t, double>>;
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 100).value() == Seen{{200, 200.0}, {300, 300.0}});
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 300).value().empty());
  CHECK(unseen_validations(*f.journal, 1, "accuracy", 0).value().size() == 3);
  CHECK(unseen_validations(*f.journal, 1, "loss", 300).value() == Seen{{400, 0.1}});
}
