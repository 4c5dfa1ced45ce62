#include "runtime/trial_api/trial_runner.hpp"

#include <algorithm>
#include <exception>
#include <numeric>
#include <random>

namespace volador::trial_api {
namespace {

// Runs trial code, turning an escaping exception into an Error.
template <class F>
Result<MetricMap> guarded(const char* what, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return fail(Error::internal(std::string(what) + " raised: " + e.what()));
  }
}

}  // namespace

Result<TrialRunner> TrialRunner::create(std::unique_ptr<Trial> trial, const TrialContext& context) {
  std::unique_ptr<Dataset> training, validation;
  try {
    training = trial->build_training_data();
    validation = trial->build_validation_data();
  } catch (const std::exception& e) {
    return fail(Error::internal(std::string("building the data sets raised: ") + e.what()));
  }
  if (!training || training->size() < context.get_global_batch_size())
    return fail(Error::invalid_argument("the training data set holds fewer records than one global batch (" +
                                        std::to_string(context.get_global_batch_size()) + ")"));
  if (!validation || validation->size() == 0)
    return fail(Error::invalid_argument("the validation data set is empty"));
  if (auto s = context.data_parallel().broadcast_from_rank0(trial->parameters()); !s)
    return fail(Error::unavailable("receiving rank 0's initial parameters failed: " + s.error().message));
  return TrialRunner(std::move(trial), context, std::move(training), std::move(validation));
}

TrialRunner::TrialRunner(std::unique_ptr<Trial> trial, const TrialContext& context,
                         std::unique_ptr<Dataset> training, std::unique_ptr<Dataset> validation)
    : trial_(std::move(trial)),
      context_(context),
      training_(std::move(training)),
      validation_(std::move(validation)),
      seed_(context.get_seed()),
      global_batch_size_(context.get_global_batch_size()),
      rank_(context.get_rank()),
      size_(context.get_size()),
      batches_per_epoch_(training_->size() / global_batch_size_) {}

const std::vector<std::size_t>& TrialRunner::epoch_order(std::uint64_t epoch) {
  if (epoch != cached_epoch_) {
    order_.resize(training_->size());
    std::iota(order_.begin(), order_.end(), std::size_t{0});
    std::seed_seq seq{seed_, static_cast<std::uint32_t>(epoch), static_cast<std::uint32_t>(epoch >> 32)};
    std::mt19937_64 rng(seq);
    std::shuffle(order_.begin(), order_.end(), rng);
    cached_epoch_ = epoch;
  }
  return order_;
}

Batch TrialRunner::rank_share(std::uint64_t batch_in_epoch) {
  const auto per_slot = global_batch_size_ / size_;
  const auto first = batch_in_epoch * global_batch_size_ + rank_ * per_slot;
  std::span<const std::size_t> indices(order_.data() + first, per_slot);
  return training_->gather(indices);
}

Result<MetricMap> TrialRunner::train(std::uint64_t start_batch, std::uint64_t batches) {
  MetricAverager averager;
  for (auto b = start_batch; b < start_batch + batches; ++b) {
    const auto epoch = b / batches_per_epoch_;
    epoch_order(epoch);
    const auto batch = rank_share(b % batches_per_epoch_);
    auto metrics = guarded("train_batch", [&] { return trial_->train_batch(batch, epoch, b); });
    if (!metrics) return metrics;
    averager.add(*metrics);
  }
  return context_.data_parallel().mean_over_ranks(averager);
}

Result<MetricMap> TrialRunner::validate() {
  const auto per_slot = global_batch_size_ / size_;
  MetricAverager averager;
  std::vector<std::size_t> indices;
  // Records are dealt to ranks round-robin, so every record is evaluated
  // once; weighting each batch by its records makes the result the mean over
  // the whole validation set, whatever the number of ranks.
  for (std::size_t i = rank_; i < validation_->size(); i += size_) {
    indices.push_back(i);
    if (indices.size() == per_slot || i + size_ >= validation_->size()) {
      auto batch = validation_->gather(indices);
      auto metrics = guarded("evaluate_batch", [&] { return trial_->evaluate_batch(batch); });
      if (!metrics) return metrics;
      averager.add(*metrics, static_cast<double>(indices.size()));
      indices.clear();
    }
  }
  return context_.data_parallel().mean_over_ranks(averager);
}

Status TrialRunner::save(const std::filesystem::path& dir) const {
  try {
    return trial_->save(dir);
  } catch (const std::exception& e) {
    return fail(Error::internal(std::string("save raised: ") + e.what()));
  }
}

Status TrialRunner::load(const std::filesystem::path& dir) {
  try {
    return trial_->load(dir);
  } catch (const std::exception& e) {
    return fail(Error::internal(std::string("load raised: ") + e.what()));
  }
}

}  // namespace volador::trial_api
