#include "examples/native_mlp/synthetic_data.hpp"

#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace volador::examples {
namespace {

constexpr std::uint32_t kBlobsPerClass = 2;

class SyntheticDataset : public trial_api::Dataset {
 public:
  SyntheticDataset(std::vector<float> inputs, std::vector<float> labels, std::size_t features)
      : inputs_(std::move(inputs)), labels_(std::move(labels)), features_(features) {}

  std::size_t size() const override { return labels_.size(); }

  trial_api::Batch gather(std::span<const std::size_t> indices) const override {
    trial_api::Batch batch;
    batch.inputs.shape = {indices.size(), features_};
    batch.targets.shape = {indices.size()};
    batch.inputs.values.reserve(indices.size() * features_);
    for (auto i : indices) {
      auto row = inputs_.begin() + static_cast<std::ptrdiff_t>(i * features_);
      batch.inputs.values.insert(batch.inputs.values.end(), row, row + static_cast<std::ptrdiff_t>(features_));
      batch.targets.values.push_back(labels_[i]);
    }
    return batch;
  }

 private:
  std::vector<float> inputs_;
  std::vector<float> labels_;
  std::size_t features_;
};

// data.KEY as an integer from `least` to `most`; `fallback` when absent.
// Throws std::invalid_argument naming the field and the range otherwise
// (a wrapped 2^64-1 would have become 4 billion records to allocate).
std::uint32_t bounded(const nlohmann::json& data_config, const char* key, std::uint32_t fallback, std::uint32_t least,
                      std::uint32_t most) {
  const auto found = data_config.find(key);
  if (found == data_config.end()) return fallback;
  const bool in_range = (found->is_number_unsigned() && found->get<std::uint64_t>() >= least &&
                         found->get<std::uint64_t>() <= most) ||
                        (found->is_number_integer() && found->get<std::int64_t>() >= least &&
                         found->get<std::int64_t>() <= static_cast<std::int64_t>(most));
  if (!in_range) {
    throw std::invalid_argument("data." + std::string(key) + ": " + found->dump() + " is not an integer from " +
                                std::to_string(least) + " to " + std::to_string(most));
  }
  return static_cast<std::uint32_t>(found->get<std::uint64_t>());
}

}  // namespace

SyntheticSpec synthetic_spec_from(const nlohmann::json& data_config) {
  SyntheticSpec spec;
  if (!data_config.is_object()) return spec;
  const std::uint32_t kAnySeed = std::numeric_limits<std::uint32_t>::max();
  spec.seed = bounded(data_config, "seed", spec.seed, 0, kAnySeed);
  spec.classes = bounded(data_config, "classes", spec.classes, 2, SyntheticSpec::kMaxClasses);
  spec.features = bounded(data_config, "features", spec.features, 1, SyntheticSpec::kMaxFeatures);
  spec.train_records = bounded(data_config, "train_records", spec.train_records, 1, SyntheticSpec::kMaxRecords);
  spec.validation_records =
      bounded(data_config, "validation_records", spec.validation_records, 1, SyntheticSpec::kMaxRecords);
  spec.noise = data_config.value("noise", spec.noise);
  return spec;
}

std::unique_ptr<trial_api::Dataset> make_synthetic_dataset(const SyntheticSpec& spec, bool validation) {
  // Blob centres come from the task seed alone, so both splits share them.
  std::mt19937_64 task_rng(spec.seed);
  std::normal_distribution<float> centre(0.0f, 1.6f);
  std::vector<float> centres(static_cast<std::size_t>(spec.classes) * kBlobsPerClass * spec.features);
  for (auto& c : centres) c = centre(task_rng);

  std::mt19937_64 rng(spec.seed * 2654435761u + (validation ? 1 : 0));
  std::normal_distribution<float> noise(0.0f, static_cast<float>(spec.noise));
  std::uniform_int_distribution<std::uint32_t> blob(0, spec.classes * kBlobsPerClass - 1);
  const auto records = validation ? spec.validation_records : spec.train_records;
  std::vector<float> inputs;
  std::vector<float> labels;
  inputs.reserve(static_cast<std::size_t>(records) * spec.features);
  for (std::uint32_t r = 0; r < records; ++r) {
    const auto b = blob(rng);
    for (std::uint32_t f = 0; f < spec.features; ++f) inputs.push_back(centres[b * spec.features + f] + noise(rng));
    labels.push_back(static_cast<float>(b / kBlobsPerClass));
  }
  return std::make_unique<SyntheticDataset>(std::move(inputs), std::move(labels), spec.features);
}

}  // namespace volador::examples
