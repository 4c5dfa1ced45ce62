#pragma once
// An in-memory journal with two ended experiments (1 and 2) of the query
// fixture's config, a trial each, and real checkpoint folders in the default
// checkpoint storage under a temporary data folder: shared by the tests of
// the model registry, checkpoint GC and deletion.

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <catch2/catch.hpp>

#include "master/tests/query_fixture.hpp"
#include "master/users/user_directory.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"
#include "storage/checkpoints/uuid.hpp"

namespace volador::master::testing {

struct LifecycleFixture : JournalFixture {
  std::filesystem::path data_dir =
      std::filesystem::temp_directory_path() / ("volador-lifecycle-" + std::to_string(std::random_device{}()));
  std::unique_ptr<checkpoints::SharedFsStore> store =
      std::move(checkpoints::SharedFsStore::open(data_dir / "checkpoints").value());

  LifecycleFixture() {
    for (std::uint64_t id : {1, 2}) {
      REQUIRE(journal->put_experiment(experiment_record(id, RunState::completed)));
      REQUIRE(journal->put_trial(trial_record(10 * id, id, RunState::completed)));
      REQUIRE(journal->append_metrics(report(10 * id, MetricKind::validation, 5, {{"accuracy", 0.5}})));
      REQUIRE(journal->append_logs(10 * id, {{.trial_id = 10 * id, .seq = 0, .time_ms = 1, .stream = "stdout", .text = "hi"}}));
      REQUIRE(journal->put_archive(id, "archive " + std::to_string(id)));
    }
  }
  ~LifecycleFixture() { std::filesystem::remove_all(data_dir); }

  // A committed checkpoint of trial `trial_id` (of experiment trial_id / 10) after `batches`, journaled.
  std::string checkpoint(std::uint64_t trial_id, std::uint64_t batches, double accuracy = 0.5) {
    auto uuid = checkpoints::new_uuid().value();
    auto pending = store->begin(uuid).value();
    std::ofstream(pending.dir / "weights.bin") << "weights of " << trial_id << " after " << batches;
    auto manifest = store->commit(pending).value();
    REQUIRE(journal->put_checkpoint({.uuid = uuid, .experiment_id = trial_id / 10, .trial_id = trial_id,
                                     .batches = batches, .run_id = 1, .validation_metrics = {{"accuracy", accuracy}},
                                     .state = storage::CheckpointState::active, .total_bytes = manifest.total_bytes,
                                     .created_at_ms = 0, .scheduled = true}));
    return uuid;
  }
  [[nodiscard]] bool on_disk(const std::string& uuid) const { return store->path(uuid).has_value(); }
};

inline const User kBob{.name = "bob", .admin = false};
inline const User kCarol{.name = "carol", .admin = false};
inline const User kAdmin{.name = "admin", .admin = true};

}  // namespace volador::master::testing
