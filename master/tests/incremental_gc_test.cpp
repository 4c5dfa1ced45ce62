// The incremental checkpoint GC (checkpoint_gc.hpp over checkpoint_index.hpp)
// against the full scan it replaces: the same decisions at every step, with
// the index fed by the journal (a user's deletions and a resume's marks
// included), a step's journal reads independent of the experiment's size and
// none when nothing is garbage, and the same decisions again after a master
// restart rebuilds the index mid-search.

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "master/checkpoint_gc.hpp"
#include "master/trial_resume.hpp"
#include "master/tests/query_fixture.hpp"
#include "runtime/config/config_parser.hpp"
#include "storage/checkpoints/shared_fs_store.hpp"
#include "storage/checkpoints/uuid.hpp"
#include "storage/journal/memory_store.hpp"

using namespace volador;
using namespace volador::master;

namespace {

constexpr std::uint64_t kExperiment = 3;

// A MemoryStore that counts the records it hands out: point reads and scanned entries.
class CountingStore final : public storage::KeyValueStore {
 public:
  Result<std::optional<std::string>> get(std::string_view key) const override {
    ++reads;
    return inner_.get(key);
  }
  Result<std::optional<std::string>> last_key_with(std::string_view prefix) const override {
    ++reads;
    return inner_.last_key_with(prefix);
  }
  Status scan(std::string_view prefix, std::string_view start, const Visitor& visit) const override {
    return inner_.scan(prefix, start, [&](std::string_view key, std::string_view value) {
      ++reads;
      return visit(key, value);
    });
  }
  Status write(const storage::KeyValueBatch& batch) override { return inner_.write(batch); }

  mutable std::atomic<std::uint64_t> reads{0};

 private:
  storage::MemoryStore inner_;
};

// Experiment 3 of a journal over a CountingStore, with real checkpoint folders.
struct GcWorld {
  config::ExperimentConfig config =
      std::get<config::ExperimentConfig>(config::parse_experiment_config(testing::kConfig, "q.yaml"));
  CountingStore* counting = nullptr;
  std::unique_ptr<storage::Journal> journal = [this] {
    auto store = std::make_unique<CountingStore>();
    counting = store.get();
    return std::make_unique<storage::Journal>(std::move(store));
  }();
  std::filesystem::path data_dir =
      std::filesystem::temp_directory_path() / ("volador-incremental-gc-" + std::to_string(std::random_device{}()));
  std::unique_ptr<checkpoints::SharedFsStore> store =
      std::move(checkpoints::SharedFsStore::open(data_dir / "checkpoints").value());
  std::map<std::uint64_t, std::uint64_t> batches_of;  // trial -> its batches so far
  std::uint32_t versions = 0;

  explicit GcWorld(checkpoints::GcPolicy policy) {
    config.checkpoint_storage = config::CheckpointStorage{.save_experiment_best = policy.save_experiment_best,
                                                          .save_trial_best = policy.save_trial_best,
                                                          .save_trial_latest = policy.save_trial_latest};
    config.searcher.smaller_is_better = policy.smaller_is_better;
  }
  ~GcWorld() { std::filesystem::remove_all(data_dir); }

  storage::TrialRecord start_trial(std::uint64_t id, std::string warm_start = "") {
    auto record = testing::trial_record(id, kExperiment, RunState::active);
    record.warm_start = std::move(warm_start);
    REQUIRE(journal->put_trial(record));
    return record;
  }
  void end_trial(std::uint64_t id) {
    auto record = journal->trial(id).value();
    record.state = RunState::completed;
    REQUIRE(journal->put_trial(record));
  }
  // A committed, journaled checkpoint of `trial` `step` batches after its last.
  std::string checkpoint(std::uint64_t trial, std::uint64_t step, std::optional<double> accuracy) {
    auto uuid = checkpoints::new_uuid().value();
    auto pending = store->begin(uuid).value();
    std::ofstream(pending.dir / "weights.bin") << uuid;
    auto manifest = store->commit(pending).value();
    MetricMap metrics;
    if (accuracy) metrics["accuracy"] = *accuracy;
    REQUIRE(journal->put_checkpoint({.uuid = uuid, .experiment_id = kExperiment, .trial_id = trial,
                                     .batches = batches_of[trial] += step, .run_id = 1,
                                     .validation_metrics = metrics, .state = storage::CheckpointState::active,
                                     .total_bytes = manifest.total_bytes, .created_at_ms = 0, .scheduled = true}));
    return uuid;
  }
  void register_checkpoint(const std::string& uuid) {
    REQUIRE(journal->put_model_version(
        {.model_name = "m", .version = ++versions, .checkpoint_uuid = uuid, .experiment_id = kExperiment}));
  }
  // What a user's `checkpoint delete` does: the record marked deleted.
  void delete_by_hand(const std::string& uuid) {
    auto record = journal->checkpoint(uuid).value();
    record.state = storage::CheckpointState::deleted;
    REQUIRE(store->remove(uuid));
    REQUIRE(journal->put_checkpoint(record));
  }
  [[nodiscard]] std::set<std::string> active() const {
    std::set<std::string> uuids;
    const auto all = journal->checkpoints_of_experiment(kExperiment).value();
    for (const auto& c : all)
      if (c.state == storage::CheckpointState::active) uuids.insert(c.uuid);
    return uuids;
  }

  // The full scan the index replaces: every active checkpoint, every trial
  // record and every registered checkpoint, weighed by checkpoints_to_delete.
  [[nodiscard]] std::set<std::string> full_scan_garbage() const {
    std::vector<storage::CheckpointRecord> live;
    const auto all = journal->checkpoints_of_experiment(kExperiment).value();
    for (const auto& c : all)
      if (c.state == storage::CheckpointState::active) live.push_back(c);
    std::map<std::uint64_t, const storage::CheckpointRecord*> newest;
    for (const auto& c : live)
      if (!newest[c.trial_id] || newest[c.trial_id]->batches < c.batches) newest[c.trial_id] = &c;
    std::set<std::string> in_use = journal->registered_checkpoints().value();
    const auto trials = journal->trials(kExperiment).value();
    for (const auto& t : trials) {
      if (is_terminal(t.state)) continue;
      if (newest[t.id]) in_use.insert(newest[t.id]->uuid);
      else if (!t.warm_start.empty()) in_use.insert(t.warm_start);
    }
    std::vector<checkpoints::GcCandidate> candidates;
    for (const auto& c : live) {
      auto metric = c.validation_metrics.find("accuracy");
      candidates.push_back({c.uuid, c.trial_id, c.batches,
                            metric == c.validation_metrics.end() ? std::nullopt : std::optional(metric->second),
                            in_use.contains(c.uuid)});
    }
    return checkpoints::checkpoints_to_delete(candidates, checkpoints::GcPolicy::of(config));
  }
  // One incremental step after a trial checkpointed; the uuids it deleted.
  std::set<std::string> step(FedCheckpointIndex& gc) {
    const auto before = active();
    REQUIRE(collect_checkpoint_garbage(*journal, *store, gc));
    const auto after = active();
    std::set<std::string> deleted;
    std::ranges::set_difference(before, after, std::inserter(deleted, deleted.end()));
    return deleted;
  }
};

// A random search's life: trials start (some as pbt copies of a live
// checkpoint), checkpoint with metrics that tie, lack or are NaN, end, get
// checkpoints registered or deleted by hand. After every checkpoint the
// incremental step deletes exactly what the full scan would; halfway the
// index is rebuilt from the journal, as a restarted master does.
void run_random_search(std::uint32_t seed, checkpoints::GcPolicy policy) {
  GcWorld w(policy);
  std::mt19937 random(seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(random) < p; };
  auto pick = [&](const auto& items) {
    auto it = items.begin();
    std::advance(it, std::uniform_int_distribution<std::size_t>(0, items.size() - 1)(random));
    return *it;
  };
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  std::set<std::uint64_t> running;
  std::uint64_t next_trial = 100;
  for (int event = 0; event < 200; ++event) {
    if (event == 100) gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
    const auto live = w.active();
    if (running.size() < 2 || chance(0.1)) {
      const bool copy = !live.empty() && chance(0.5);
      auto record = w.start_trial(next_trial, copy ? pick(live) : "");
      gc.index.put_trial(record);
      running.insert(next_trial++);
    } else if (chance(0.08)) {
      const auto trial = pick(running);
      w.end_trial(trial);
      gc.index.end_trial(trial);
      running.erase(trial);
    } else if (!live.empty() && chance(0.04)) {
      w.register_checkpoint(pick(live));
    } else if (!live.empty() && chance(0.04)) {
      // A user may delete any but a running trial's newest (checkpoint_deletion.hpp).
      const auto uuid = pick(live);
      const auto record = w.journal->checkpoint(uuid).value();
      bool newest_of_running = running.contains(record.trial_id);
      const auto of_trial = w.journal->checkpoints_of_trial(record.trial_id).value();
      for (const auto& c : of_trial)
        newest_of_running &= !(c.state == storage::CheckpointState::active && c.batches > record.batches);
      if (!newest_of_running && !w.journal->is_registered(uuid).value()) w.delete_by_hand(uuid);
    } else {
      const auto trial = pick(running);
      const std::optional<double> metric =
          chance(0.1) ? std::nullopt
          : chance(0.05) ? std::optional(std::numeric_limits<double>::quiet_NaN())
                          : std::optional(std::uniform_int_distribution<int>(1, 8)(random) / 10.0);
      w.checkpoint(trial, chance(0.1) ? 0 : 10, metric);
      INFO("seed " << seed << ", event " << event);
      const auto expected = w.full_scan_garbage();
      CHECK(w.step(gc) == expected);
    }
  }
}

}  // namespace

TEST_CASE("An incremental GC step deletes exactly what the full scan of the experiment would, before and after a restart") {
  std::uint32_t seed = 1;
  for (std::uint32_t experiment_best : {0u, 2u})
    for (std::uint32_t trial_best : {0u, 1u, 2u})
      for (std::uint32_t trial_latest : {0u, 1u, 2u}) {
        run_random_search(seed, {.save_experiment_best = experiment_best,
                                 .save_trial_best = trial_best,
                                 .save_trial_latest = trial_latest,
                                 .smaller_is_better = seed % 2 == 0});
        ++seed;
      }
}

TEST_CASE("A GC step reads as many journal records with 1,000 trials behind it as with 10") {
  GcWorld w({.save_experiment_best = 2, .save_trial_best = 1, .save_trial_latest = 1, .smaller_is_better = false});
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  // Each trial checkpoints three times and ends, as a trivial search's trials do.
  auto run_trial = [&](std::uint64_t id) {
    gc.index.put_trial(w.start_trial(id));
    std::vector<std::uint64_t> reads;
    for (int i = 0; i < 3; ++i) {
      w.checkpoint(id, 10, 0.1 * static_cast<double>(id % 7));
      const std::uint64_t before = w.counting->reads;
      REQUIRE(collect_checkpoint_garbage(*w.journal, *w.store, gc));
      reads.push_back(w.counting->reads - before);
    }
    w.end_trial(id);
    gc.index.end_trial(id);
    return reads;
  };
  for (std::uint64_t id = 1; id < 10; ++id) run_trial(id);
  const auto at_10 = run_trial(10);
  for (std::uint64_t id = 11; id < 1000; ++id) run_trial(id);
  const auto at_1000 = run_trial(1000);
  CHECK(at_1000 == at_10);
  CHECK(gc.index.size() == w.active().size());  // deleted checkpoints left memory
}

TEST_CASE("A pbt copy's warm start survives the GC until the copy has a checkpoint of its own or ends") {
  GcWorld w({.save_experiment_best = 0, .save_trial_best = 1, .save_trial_latest = 1, .smaller_is_better = false});
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  gc.index.put_trial(w.start_trial(1));
  const auto source = w.checkpoint(1, 10, 0.1);
  CHECK(w.step(gc).empty());
  gc.index.put_trial(w.start_trial(2, source));
  w.checkpoint(1, 10, 0.9);  // trial 1's best and latest: its first is garbage but for the copy
  CHECK(w.step(gc).empty());
  SECTION("the copy's first checkpoint releases it") {
    w.checkpoint(2, 10, 0.2);
    CHECK(w.step(gc) == std::set{source});
  }
  SECTION("the copy's end releases it at the next step") {
    w.end_trial(2);
    gc.index.end_trial(2);
    w.checkpoint(1, 10, 0.95);
    const auto deleted = w.step(gc);
    CHECK(deleted.size() == 2);
    CHECK(deleted.contains(source));
  }
}

TEST_CASE("A checkpoint registered after the GC read the registry is never deleted") {
  GcWorld w({.save_experiment_best = 0, .save_trial_best = 1, .save_trial_latest = 1, .smaller_is_better = false});
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  gc.index.put_trial(w.start_trial(1));
  const auto first = w.checkpoint(1, 10, 0.1);
  w.checkpoint(1, 10, 0.2);
  CHECK(w.step(gc) == std::set{first});  // asking about `first` read the registry
  const auto registered = w.checkpoint(1, 10, 0.05);
  w.register_checkpoint(registered);
  const auto best = w.checkpoint(1, 10, 0.9);
  CHECK(w.step(gc).size() == 1);  // the 0.2 one
  CHECK(w.active() == std::set{registered, best});
  w.checkpoint(1, 10, 0.3);
  CHECK(w.step(gc).empty());  // the registered one stays, though neither best nor latest
  CHECK(w.active().contains(registered));
}

TEST_CASE("A GC step that finds nothing to give up reads nothing from the journal") {
  // The default policy (trial best 1, latest 1) over trials of one checkpoint each, as a trivial search's.
  GcWorld w({.save_experiment_best = 0, .save_trial_best = 1, .save_trial_latest = 1, .smaller_is_better = false});
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  for (std::uint64_t id = 1; id <= 20; ++id) {
    gc.index.put_trial(w.start_trial(id));
    w.checkpoint(id, 1, 0.5);
    const std::uint64_t before = w.counting->reads;
    CHECK(collect_checkpoint_garbage(*w.journal, *w.store, gc).value() == 0);
    CHECK(w.counting->reads == before);
    w.end_trial(id);
    gc.index.end_trial(id);
  }
  CHECK(w.active().size() == 20);
}

TEST_CASE("The experiment's best checkpoint deleted between two GC steps leaves its place to the next best") {
  // Trial 1 keeps both its checkpoints (latest 2); the better is the experiment's best.
  GcWorld w({.save_experiment_best = 1, .save_trial_best = 0, .save_trial_latest = 2, .smaller_is_better = false});
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  gc.index.put_trial(w.start_trial(1));
  w.checkpoint(1, 10, 0.1);
  CHECK(w.step(gc).empty());
  const auto best = w.checkpoint(1, 10, 0.9);
  CHECK(w.step(gc).empty());
  SECTION("by a user") { w.delete_by_hand(best); }
  SECTION("as unusable, by the resume that found it corrupt") {
    std::ofstream(w.store->path(best).value() / "weights.bin") << "bit rot";
    const auto point = prepare_resume(*w.journal, *w.store, 1);
    REQUIRE(point);
    REQUIRE(point->checkpoint);
    CHECK(point->checkpoint->uuid != best);
  }
  // Trial 2's first checkpoint is the best now: kept once two newer ones are its latest.
  gc.index.put_trial(w.start_trial(2));
  const auto next_best = w.checkpoint(2, 10, 0.5);
  CHECK(w.step(gc).empty());
  w.checkpoint(2, 10, 0.4);
  CHECK(w.step(gc).empty());
  w.checkpoint(2, 10, 0.3);
  CHECK(w.step(gc).empty());
  CHECK(w.active().contains(next_best));
}

TEST_CASE("A trial's best checkpoint deleted by a user between two GC steps leaves its place to the next best") {
  GcWorld w({.save_experiment_best = 0, .save_trial_best = 1, .save_trial_latest = 1, .smaller_is_better = false});
  auto gc = load_checkpoint_index(*w.journal, kExperiment, w.config).value();
  gc.index.put_trial(w.start_trial(1));
  const auto best = w.checkpoint(1, 10, 0.9);
  CHECK(w.step(gc).empty());
  const auto next_best = w.checkpoint(1, 10, 0.2);
  CHECK(w.step(gc).empty());
  w.delete_by_hand(best);
  const auto latest = w.checkpoint(1, 10, 0.1);
  CHECK(w.step(gc).empty());  // the 0.2 one is the trial's best now
  CHECK(w.active() == std::set{next_best, latest});
}
