#pragma once
// An in-memory journal with one experiment's config (random search of
// accuracy, larger is better) and helpers that journal its trials and
// reports: shared by the tests of the queries and of their read model.

#include <cstdint>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "storage/journal/journal.hpp"

namespace volador::master::testing {

inline const char* kConfig = R"(name: q
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

inline storage::ExperimentRecord experiment_record(std::uint64_t id, RunState state) {
  return {.id = id, .name = "q", .config_yaml = kConfig, .config_file_name = "q.yaml", .state = state,
          .experiment_seed = 7, .progress = 0.5, .created_at_ms = 1, .owner = "bob"};
}

inline storage::TrialRecord trial_record(std::uint64_t id, std::uint64_t experiment_id, RunState state) {
  return {.id = id, .experiment_id = experiment_id, .request_id = id, .hparams = {{"lr", 0.1 * static_cast<double>(id)}},
          .state = state, .created_at_ms = 1000 * static_cast<std::int64_t>(id),
          .ended_at_ms = is_terminal(state) ? 1000 * static_cast<std::int64_t>(id) + 500 : 0};
}

inline storage::MetricRecord report(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, MetricMap metrics) {
  return {.trial_id = trial_id, .kind = kind, .batches = batches, .metrics = std::move(metrics), .reported_at_ms = 0};
}

struct JournalFixture {
  std::unique_ptr<storage::Journal> journal = storage::Journal::in_memory();

  // Trial `id` of experiment 1, COMPLETED, with a validation of each accuracy
  // every 5 batches and a training report at batch 5.
  void add_trial(std::uint64_t id, const std::vector<double>& accuracies) {
    REQUIRE(journal->put_trial(trial_record(id, 1, RunState::completed)));
    std::uint64_t step = 0;
    for (double a : accuracies) REQUIRE(journal->append_metrics(report(id, MetricKind::validation, step += 5, {{"accuracy", a}})));
    REQUIRE(journal->append_metrics(report(id, MetricKind::training, 5, {{"accuracy", 0.99}})));
  }
};

}  // namespace volador::master::testing
