// EndedTrialCurves on an in-memory journal: an ended trial's curve is read
// from the journal once, a running trial's anew every time.

#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "http/ended_trial_curves.hpp"

using namespace volador;
using volador::http::EndedTrialCurves;

namespace {

std::string example_config() {
  std::ifstream file(std::string(VOLADOR_SOURCE_DIR) + "/examples/native_mlp/distributed.yaml");
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Experiment 1 in `experiment_state` with trial 1 in `trial_state`, which validated accuracy 0.5 at batch 50.
std::unique_ptr<storage::Journal> journal_with(RunState experiment_state, RunState trial_state) {
  auto journal = storage::Journal::in_memory();
  storage::JournalBatch batch;
  batch.put_experiment({.id = 1, .name = "e", .config_yaml = example_config(), .config_file_name = "distributed.yaml",
                        .state = experiment_state, .owner = "admin"});
  batch.put_trial({.id = 1, .experiment_id = 1, .request_id = 1, .hparams = nlohmann::json::object(),
                   .state = trial_state});
  batch.append_metrics({.trial_id = 1, .kind = MetricKind::validation, .batches = 50, .metrics = {{"accuracy", 0.5}}});
  REQUIRE(journal->commit(batch));
  return journal;
}

// A later report of accuracy 0.9: seen only by what reads the journal again.
void report_better(storage::Journal& journal) {
  REQUIRE(journal.append_metrics(
      {.trial_id = 1, .kind = MetricKind::validation, .batches = 100, .metrics = {{"accuracy", 0.9}}}));
}

std::size_t points_of(EndedTrialCurves& curves, const storage::Journal& journal, bool ended) {
  auto curve = curves.curve(journal, {.trial_id = 1, .kind = MetricKind::validation, .metric = "accuracy", .max_points = 500},
                            ended);
  REQUIRE(curve);
  return (*curve)->points.size();
}

}  // namespace

TEST_CASE("An ended trial's curve is read once and a running trial's every time") {
  auto journal = journal_with(RunState::active, RunState::active);
  EndedTrialCurves ended, running;
  CHECK(points_of(ended, *journal, true) == 1);
  CHECK(points_of(running, *journal, false) == 1);
  report_better(*journal);
  CHECK(points_of(ended, *journal, true) == 1);
  CHECK(points_of(running, *journal, false) == 2);
}
