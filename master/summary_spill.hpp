#pragma once
// The trials of ended experiments, kept by the read model (master/read_model.*)
// in a file per experiment rather than in memory, so that the master's memory
// does not grow with every trial it has run. A file holds the packed
// wire::KeptTrialSummary of each trial (wire::pack), each after its length
// (4 bytes, little-endian). The files are derived data: the read model
// rebuilds them from the journal at every start, so they are written without
// syncing and a previous run's are removed on opening.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::master {

class SummarySpill {
 public:
  // Spills into `folder` (created if missing), emptied of a previous run's files.
  [[nodiscard]] static Result<SummarySpill> open(std::filesystem::path folder);

  // Replaces experiment `experiment_id`'s file with `packed_trials`.
  Status write(std::uint64_t experiment_id, const std::vector<std::string>& packed_trials) const;
  // The packed trials last written for experiment `experiment_id`, in order;
  // an error naming the file when it is missing, cut or unreadable.
  [[nodiscard]] Result<std::vector<std::string>> read(std::uint64_t experiment_id) const;
  // The packed trial at position `index` of that file; read()'s errors, and
  // one when the file holds fewer trials.
  [[nodiscard]] Result<std::string> read_one(std::uint64_t experiment_id, std::size_t index) const;
  // Removes experiment `experiment_id`'s file, if any.
  void remove(std::uint64_t experiment_id) const;

 private:
  explicit SummarySpill(std::filesystem::path folder) : folder_(std::move(folder)) {}
  [[nodiscard]] std::filesystem::path file_of(std::uint64_t experiment_id) const;
  // The whole file of experiment `experiment_id`.
  [[nodiscard]] Result<std::string> contents(std::uint64_t experiment_id) const;

  std::filesystem::path folder_;
};

}  // namespace volador::master
