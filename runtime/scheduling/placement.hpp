#pragma once
// Where a trial's slots are: the slots of each agent it was given. Every slot
// has a kind ("cpu", or "gpu:" and the GPU model); a trial's slots are all of
// one kind. Slots are numbered per agent, so each rank can be bound to its
// own device.

#include <cstdint>
#include <string>
#include <vector>

namespace volador::scheduling {

using TrialId = std::uint64_t;

inline const std::string kCpuKind = "cpu";

// Slots of one agent given to one trial.
struct Placement {
  std::string agent_id;
  std::vector<std::uint32_t> slot_indices;  // the agent's slots, ascending
  [[nodiscard]] std::uint32_t slots() const { return static_cast<std::uint32_t>(slot_indices.size()); }
  bool operator==(const Placement&) const = default;
};

struct Allocation {
  TrialId trial_id = 0;
  std::vector<Placement> placements;  // one per agent, in rank order
  [[nodiscard]] std::uint32_t slots() const;
  bool operator==(const Allocation&) const = default;
};

}  // namespace volador::scheduling
