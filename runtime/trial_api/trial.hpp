#pragma once
// The native (C++) trial API, mirroring the manual's PyTorchTrial: the trial
// builds its training and validation data sets, then the system calls
// train_batch() and evaluate_batch() with batches it draws from them, and
// averages the returned metrics over batches (and, with several ranks, over
// ranks). A trial object lives in one rank worker process and is used from
// one thread.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/core/metrics.hpp"
#include "runtime/trial_api/data_parallel.hpp"

namespace volador::trial_api {

// A dense float tensor, row-major.
struct Tensor {
  std::vector<std::size_t> shape;
  std::vector<float> values;
};

// A batch of records: inputs [n, ...] and targets [n, ...] (first dimension n).
struct Batch {
  Tensor inputs;
  Tensor targets;
  [[nodiscard]] std::size_t size() const { return inputs.shape.empty() ? 0 : inputs.shape[0]; }
};

// Random-access records; the system decides order, sharding and batching.
class Dataset {
 public:
  virtual ~Dataset() = default;
  [[nodiscard]] virtual std::size_t size() const = 0;
  // The records at `indices` (each < size()) as one batch, in that order.
  [[nodiscard]] virtual Batch gather(std::span<const std::size_t> indices) const = 0;
};

// What a trial knows about its run (the manual's PyTorchTrialContext).
// Copies share the rank group.
class TrialContext {
 public:
  // `group` is this rank's view of the trial's ranks (default: a group of one).
  TrialContext(nlohmann::json hparams, nlohmann::json data_config, std::uint32_t seed,
               std::uint64_t global_batch_size, std::shared_ptr<DataParallel> group = std::make_shared<DataParallel>());

  // The hyperparameter `name` (nested ones as a JSON object). Error
  // not_found naming the hyperparameter when absent.
  [[nodiscard]] Result<nlohmann::json> get_hparam(const std::string& name) const;
  [[nodiscard]] const nlohmann::json& get_hparams() const { return hparams_; }
  [[nodiscard]] const nlohmann::json& get_data_config() const { return data_config_; }
  [[nodiscard]] std::uint32_t get_seed() const { return seed_; }
  [[nodiscard]] std::uint64_t get_global_batch_size() const { return global_batch_size_; }
  [[nodiscard]] std::uint64_t get_per_slot_batch_size() const { return global_batch_size_ / get_size(); }
  [[nodiscard]] std::uint32_t get_rank() const { return group_->rank(); }
  [[nodiscard]] std::uint32_t get_size() const { return group_->size(); }

  // Averages the gradients across the trial's ranks, in place; call it in
  // train_batch between computing and applying them (the manual's
  // step_optimizer does this for Python trials). Nothing to do with one rank.
  // Throws std::runtime_error when a peer failed (the runner reports it).
  void average_gradients(std::span<const std::span<float>> gradients) const;
  [[nodiscard]] DataParallel& data_parallel() const { return *group_; }

 private:
  nlohmann::json hparams_;
  nlohmann::json data_config_;
  std::uint32_t seed_;
  std::uint64_t global_batch_size_;
  std::shared_ptr<DataParallel> group_;
};

class Trial {
 public:
  virtual ~Trial() = default;
  [[nodiscard]] virtual std::unique_ptr<Dataset> build_training_data() = 0;
  [[nodiscard]] virtual std::unique_ptr<Dataset> build_validation_data() = 0;
  // One optimisation step on `batch`; returns metrics such as {"loss": ...}.
  virtual MetricMap train_batch(const Batch& batch, std::uint64_t epoch_idx, std::uint64_t batch_idx) = 0;
  // Metrics of `batch` under the current model; no learning.
  virtual MetricMap evaluate_batch(const Batch& batch) = 0;
  // The model's parameters, which the runner overwrites with rank 0's before
  // training so that every rank starts alike. Default: none.
  virtual std::vector<std::span<float>> parameters() { return {}; }

  // Writes everything needed to continue exactly as if never stopped (model,
  // optimizer, schedulers, own RNGs) into the existing, empty folder `dir`.
  virtual Status save(const std::filesystem::path& dir) const = 0;
  // Restores what save() wrote into a freshly built trial.
  virtual Status load(const std::filesystem::path& dir) = 0;
};

// Binary float arrays for trial checkpoints: a count, then the values.
Status write_floats(const std::filesystem::path& file, std::span<const float> values);
// Reads exactly `out.size()` values; corruption naming the file otherwise.
Status read_floats(const std::filesystem::path& file, std::span<float> out);

}  // namespace volador::trial_api
