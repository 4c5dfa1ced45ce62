#pragma once
// A seeded classification data set: each class is a mixture of two Gaussian
// blobs in `features` dimensions, so a linear model is not enough for the
// best accuracy but a small MLP gets far above chance.

#include <cstdint>
#include <memory>

#include "runtime/trial_api/trial.hpp"

namespace volador::examples {

struct SyntheticSpec {
  // The data set is generated in memory: 1,000,000 records of 256 features
  // are 1 GiB.
  static constexpr std::uint32_t kMaxRecords = 1'000'000;
  static constexpr std::uint32_t kMaxFeatures = 256;
  static constexpr std::uint32_t kMaxClasses = 1000;
  std::uint32_t seed = 2024;        // the same seed gives the same task and records
  std::uint32_t classes = 10;
  std::uint32_t features = 16;
  std::uint32_t train_records = 6000;
  std::uint32_t validation_records = 1500;
  double noise = 1.6;               // blob standard deviation (centres spread 1.6, so classes overlap)
};

// Reads `data:` of distributed.yaml (missing keys keep their defaults).
// Throws std::invalid_argument naming a field that is not an integer within
// its range (records 1 to kMaxRecords, features 1 to kMaxFeatures, classes 2
// to kMaxClasses); the trial then fails at start with that message.
SyntheticSpec synthetic_spec_from(const nlohmann::json& data_config);

// The training (validation = false) or validation split of the task.
std::unique_ptr<trial_api::Dataset> make_synthetic_dataset(const SyntheticSpec& spec, bool validation);

}  // namespace volador::examples
