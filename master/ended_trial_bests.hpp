#pragma once
// The best validation of each ended trial, remembered by the queries that
// compute it (master_queries.hpp): an ended trial's metric reports never
// change, so listing a running search of thousands of trials reads only the
// reports of those still running. Thread-safe.

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

namespace volador::master {

class EndedTrialBests {
 public:
  // The best remembered for `trial_id` (which may be "no validation"), or
  // nullopt when none is.
  [[nodiscard]] std::optional<std::optional<double>> find(std::uint64_t trial_id) const;
  // Remembers the best of a trial that has ended.
  void remember(std::uint64_t trial_id, std::optional<double> best);

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::optional<double>> bests_;
};

}  // namespace volador::master
