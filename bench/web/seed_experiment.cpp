// volador-bench-seed DATA N_TRIALS N_POINTS [--seed S]
//
// Writes one COMPLETED experiment straight into the master's journal in
// DATA/journal, as if a random search had run it: the config of
// examples/native_mlp (max_trials N_TRIALS), its packed project folder,
// N_TRIALS trials with sampled hyperparameters, and for each trial N_POINTS
// VALIDATION reports (accuracy, validation_loss) and N_POINTS / 10 TRAINING
// reports (loss) on noisy learning curves. The web benchmark (bench/web)
// serves it with `volador-node up --data DATA`; running that many trials for
// real would take hours here, and the benchmark measures the read side.
// Prints the experiment's id. Run it while no master holds DATA/journal.

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>

#include <fmt/format.h>

#include "runtime/core/clock.hpp"
#include "storage/archives/archive.hpp"
#include "storage/journal/journal.hpp"

namespace volador::bench {
namespace {

constexpr std::uint64_t kBatchesPerPoint = 50;  // a validation every scheduling unit
constexpr std::uint64_t kTrainingEvery = 10;    // one training report per 10 validations
constexpr std::int64_t kReportEveryMs = 1000;

struct SeedOptions {
  std::filesystem::path data_dir;
  std::uint64_t trials = 0;
  std::uint64_t points = 0;
  std::uint32_t seed = 1;
};

std::string experiment_config(std::uint64_t trials) {
  return fmt::format(R"(# Seeded by volador-bench-seed (bench/web): the shape of examples/native_mlp.
name: web-bench-seeded
description: {} trials of a random search, written into the journal for the web benchmark
entrypoint: native:mlp_classifier
data:
  seed: 2024
  train_records: 6000
  validation_records: 1500
hyperparameters:
  global_batch_size: 32
  learning_rate:
    type: log
    base: 10
    minval: -3
    maxval: -0.5
  hidden_units:
    type: int
    minval: 8
    maxval: 64
  momentum: 0.9
records_per_epoch: 6000
scheduling_unit: 50
min_validation_period:
  epochs: 1
searcher:
  name: random
  metric: accuracy
  smaller_is_better: false
  max_trials: {}
  max_concurrent_trials: 2
  max_length:
    epochs: 3
max_restarts: 0
experiment_seed: 7
)",
                     trials, trials);
}

// The project folder a user would submit: the config alone, packed.
Result<std::string> project_archive(const std::string& config) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("volador-bench-seed-{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "distributed.yaml") << config;
  auto packed = archives::pack_directory(dir);
  std::filesystem::remove_all(dir);
  return packed;
}

// One trial's curves: accuracy rises from chance (0.1) towards a ceiling set
// by its learning rate, at a speed set by its learning rate too, with noise.
class CurveModel {
 public:
  CurveModel(std::mt19937_64& random, double learning_rate)
      : random_(random),
        ceiling_(0.93 - 0.25 * std::abs(std::log10(learning_rate) + 1.5) / 1.5),
        speed_(3 + 8 * learning_rate / 0.3) {}

  [[nodiscard]] double accuracy(double progress) {
    const double clean = ceiling_ - (ceiling_ - 0.1) * std::exp(-speed_ * progress);
    return std::clamp(clean + noise_(random_), 0.0, 1.0);
  }
  [[nodiscard]] double loss(double accuracy) { return std::max(0.01, -std::log(std::max(accuracy, 0.01)) + noise_(random_)); }

 private:
  std::mt19937_64& random_;
  double ceiling_;
  double speed_;
  std::normal_distribution<double> noise_{0, 0.015};
};

storage::MetricRecord report(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, MetricMap metrics,
                             std::int64_t at_ms) {
  return {.trial_id = trial_id, .kind = kind, .batches = batches, .metrics = std::move(metrics), .reported_at_ms = at_ms};
}

// One trial and all its reports, as one batch.
Result<storage::JournalBatch> trial_batch(storage::Journal& journal, std::uint64_t experiment_id, std::uint64_t request_id,
                                          const SeedOptions& options, std::mt19937_64& random, std::int64_t start_ms) {
  auto id = journal.next_id("trial");
  if (!id) return fail(id.error());
  const double learning_rate = std::pow(10.0, std::uniform_real_distribution<double>(-3, -0.5)(random));
  const auto hidden_units = std::uniform_int_distribution<int>(8, 64)(random);
  storage::JournalBatch batch;
  batch.put_trial({.id = *id,
                   .experiment_id = experiment_id,
                   .request_id = request_id,
                   .hparams = {{"global_batch_size", 32}, {"learning_rate", learning_rate},
                               {"hidden_units", hidden_units}, {"momentum", 0.9}},
                   .seed = static_cast<std::uint32_t>(random()),
                   .state = RunState::completed,
                   .batches_trained = options.points * kBatchesPerPoint,
                   .restarts = 0,
                   .run_id = 1,
                   .error_message = "",
                   .created_at_ms = start_ms,
                   .ended_at_ms = start_ms + static_cast<std::int64_t>(options.points) * kReportEveryMs,
                   .run_token = "",
                   .run_agents = {}});
  CurveModel curve(random, learning_rate);
  for (std::uint64_t i = 1; i <= options.points; ++i) {
    const auto batches = i * kBatchesPerPoint;
    const auto at_ms = start_ms + static_cast<std::int64_t>(i) * kReportEveryMs;
    const double accuracy = curve.accuracy(static_cast<double>(i) / static_cast<double>(options.points));
    if (i % kTrainingEvery == 0)
      batch.append_metrics(report(*id, MetricKind::training, batches, {{"loss", curve.loss(accuracy + 0.02)}}, at_ms));
    batch.append_metrics(report(*id, MetricKind::validation, batches,
                                {{"accuracy", accuracy}, {"validation_loss", curve.loss(accuracy)}}, at_ms));
  }
  return batch;
}

Result<std::uint64_t> seed_experiment(const SeedOptions& options) {
  auto journal = storage::Journal::open(options.data_dir / "journal");
  if (!journal) return fail(journal.error());
  auto id = (*journal)->next_id("experiment");
  if (!id) return fail(id.error());
  const auto config = experiment_config(options.trials);
  auto archive = project_archive(config);
  if (!archive) return fail(archive.error());
  if (auto stored = (*journal)->put_archive(*id, *archive); !stored) return fail(stored.error());
  std::mt19937_64 random(options.seed);
  const auto created_ms = system_now_ms() - static_cast<std::int64_t>(options.points) * kReportEveryMs;
  for (std::uint64_t request = 1; request <= options.trials; ++request) {
    auto batch = trial_batch(**journal, *id, request, options, random, created_ms);
    if (!batch) return fail(batch.error());
    if (auto written = (*journal)->commit(*batch); !written) return fail(written.error());
  }
  storage::ExperimentRecord record{.id = *id,
                                   .name = "web-bench-seeded",
                                   .config_yaml = config,
                                   .config_file_name = "distributed.yaml",
                                   .state = RunState::completed,
                                   .experiment_seed = 7,
                                   .progress = 1,
                                   .error_message = "",
                                   .created_at_ms = created_ms,
                                   .ended_at_ms = system_now_ms(),
                                   .owner = "admin",
                                   .archived = false};
  if (auto stored = (*journal)->put_experiment(record); !stored) return fail(stored.error());
  return *id;
}

Result<std::uint64_t> positive_count(const char* text, const char* what) {
  try {
    std::size_t used = 0;
    const auto value = std::stoull(text, &used);
    if (used == std::string(text).size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  return fail(Error::invalid_argument(fmt::format("{} must be a positive integer, not '{}'", what, text)));
}

}  // namespace
}  // namespace volador::bench

int main(int argc, char** argv) {
  using namespace volador;
  if (argc != 4 && !(argc == 6 && std::string(argv[4]) == "--seed")) {
    std::cerr << "usage: volador-bench-seed DATA N_TRIALS N_POINTS [--seed S]\n";
    return 1;
  }
  auto trials = bench::positive_count(argv[2], "N_TRIALS");
  auto points = bench::positive_count(argv[3], "N_POINTS");
  auto seed = argc == 6 ? bench::positive_count(argv[5], "--seed") : Result<std::uint64_t>(1);
  for (const auto* parsed : {&trials, &points, &seed}) {
    if (!*parsed) {
      std::cerr << "volador-bench-seed: " << parsed->error().message << "\n";
      return 1;
    }
  }
  auto id = bench::seed_experiment({.data_dir = argv[1], .trials = *trials, .points = *points,
                                    .seed = static_cast<std::uint32_t>(*seed)});
  if (!id) {
    std::cerr << "volador-bench-seed: " << id.error().message << "\n";
    return 1;
  }
  std::cout << *id << "\n";
  return 0;
}
