#pragma once
// The resource pool's allocation policy, free of actors: agents offer slots,
// trials ask for a number of slots, and schedule() grants requests first
// come, first served. A request is granted all its slots on one agent or
// nothing (no partial holds), so two trials can never deadlock each other.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace volador::scheduling {

using TrialId = std::uint64_t;

struct Allocation {
  TrialId trial_id = 0;
  std::string agent_id;
  std::uint32_t slots = 0;
};

class SlotScheduler {
 public:
  // Adds an agent (or updates its slot count); its allocations stay.
  void add_agent(const std::string& agent_id, std::uint32_t slots);
  // Removes an agent; returns the trials that had slots there (they lost them).
  std::vector<TrialId> remove_agent(const std::string& agent_id);

  // Queues a request; a trial has at most one pending request or allocation.
  void request(TrialId trial_id, std::uint32_t slots);
  // Frees a trial's allocation or drops its pending request.
  void release(TrialId trial_id);

  // Grants what fits now, in request order; a request that does not fit does
  // not block smaller ones behind it (backfilling). Returns the new grants.
  std::vector<Allocation> schedule();

  [[nodiscard]] std::uint32_t total_slots() const;
  [[nodiscard]] std::uint32_t free_slots(const std::string& agent_id) const;
  [[nodiscard]] std::size_t pending() const { return queue_.size(); }

 private:
  struct Agent {
    std::uint32_t slots = 0;
    std::uint32_t used = 0;
  };
  struct Request {
    TrialId trial_id;
    std::uint32_t slots;
  };
  std::optional<std::string> agent_with_room(std::uint32_t slots) const;

  std::map<std::string, Agent> agents_;
  std::deque<Request> queue_;
  std::map<TrialId, Allocation> allocations_;
};

}  // namespace volador::scheduling
