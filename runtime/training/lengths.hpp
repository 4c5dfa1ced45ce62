#pragma once
// Training-length arithmetic: every length in distributed.yaml becomes a
// number of batches of global_batch_size records, as the manual specifies.

#include <cstdint>
#include <optional>

#include "runtime/config/experiment_config.hpp"

namespace volador::training {

// Batches covered by `length`. records -> floor(records / global_batch_size);
// epochs -> floor(epochs * records_per_epoch / global_batch_size) (partial
// batches are dropped); any non-zero length shorter than one batch -> 1.
// Precondition: records_per_epoch present when unit is epochs and the result
// at most config::kMaxTrainingBatches (the config parser guarantees both).
std::uint64_t to_batches(const config::Length& length, std::uint64_t global_batch_size,
                         std::optional<std::uint64_t> records_per_epoch);

// Batches in one epoch (at least 1); nullopt without records_per_epoch.
std::optional<std::uint64_t> batches_per_epoch(std::uint64_t global_batch_size,
                                               std::optional<std::uint64_t> records_per_epoch);

}  // namespace volador::training
