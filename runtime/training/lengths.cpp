#include "runtime/training/lengths.hpp"

#include <algorithm>

namespace volador::training {
namespace {
__extension__ using Wide = unsigned __int128;  // GCC's, to multiply two 64-bit counts
}  // namespace

std::uint64_t to_batches(const config::Length& length, std::uint64_t global_batch_size,
                         std::optional<std::uint64_t> records_per_epoch) {
  // 128 bits: epochs times records may pass 2^64 though the batches stay
  // within kMaxTrainingBatches (the config parser refuses longer lengths).
  Wide batches = length.value;
  switch (length.unit) {
    case config::LengthUnit::batches: break;
    case config::LengthUnit::records: batches /= global_batch_size; break;
    case config::LengthUnit::epochs: batches = batches * records_per_epoch.value() / global_batch_size; break;
  }
  return length.value > 0 ? static_cast<std::uint64_t>(std::max<Wide>(batches, 1)) : 0;
}

std::optional<std::uint64_t> batches_per_epoch(std::uint64_t global_batch_size,
                                               std::optional<std::uint64_t> records_per_epoch) {
  if (!records_per_epoch) return std::nullopt;
  return std::max<std::uint64_t>(*records_per_epoch / global_batch_size, 1);
}

}  // namespace volador::training
