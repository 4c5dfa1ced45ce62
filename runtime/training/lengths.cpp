#include "runtime/training/lengths.hpp"

#include <algorithm>

namespace volador::training {

std::uint64_t to_batches(const config::Length& length, std::uint64_t global_batch_size,
                         std::optional<std::uint64_t> records_per_epoch) {
  std::uint64_t batches = length.value;
  switch (length.unit) {
    case config::LengthUnit::batches: break;
    case config::LengthUnit::records: batches = length.value / global_batch_size; break;
    case config::LengthUnit::epochs: batches = length.value * records_per_epoch.value() / global_batch_size; break;
  }
  return length.value > 0 ? std::max<std::uint64_t>(batches, 1) : 0;
}

std::optional<std::uint64_t> batches_per_epoch(std::uint64_t global_batch_size,
                                               std::optional<std::uint64_t> records_per_epoch) {
  if (!records_per_epoch) return std::nullopt;
  return std::max<std::uint64_t>(*records_per_epoch / global_batch_size, 1);
}

}  // namespace volador::training
