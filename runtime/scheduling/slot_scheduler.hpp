#pragma once
// The resource pool's allocation policy, free of actors: agents offer slots,
// trials ask for a number of slots, and schedule() grants requests first
// come, first served. Gang allocation: a request gets all its slots or
// nothing (no partial holds), so two trials can never deadlock each other.
// A request that fits on one agent goes there (best fit); a larger one takes
// whole idle agents, biggest first, so a multi-host trial never shares a host
// with another trial while an agent stays half used.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace volador::scheduling {

using TrialId = std::uint64_t;

// Slots of one agent given to one trial.
struct Placement {
  std::string agent_id;
  std::uint32_t slots = 0;
  bool operator==(const Placement&) const = default;
};

struct Allocation {
  TrialId trial_id = 0;
  std::vector<Placement> placements;  // one per agent, in rank order
  [[nodiscard]] std::uint32_t slots() const;
};

// Slots of one agent held by one trial.
struct TrialSlots {
  TrialId trial_id = 0;
  std::uint32_t slots = 0;
  bool operator==(const TrialSlots&) const = default;
};

// One agent as the scheduler sees it (what `volador agent list` shows).
struct AgentUsage {
  std::string agent_id;
  std::uint32_t slots = 0;       // offered
  std::uint32_t used_slots = 0;  // allocated to trials, held slots included
  std::vector<TrialSlots> trials;  // the trials with slots here, by trial id
};

class SlotScheduler {
 public:
  // Adds an agent (or updates its slot count); its allocations stay.
  void add_agent(const std::string& agent_id, std::uint32_t slots);
  // Removes an agent; returns the trials that had slots there (they lost all of them).
  std::vector<TrialId> remove_agent(const std::string& agent_id);

  // Queues a request; a trial has at most one pending request or allocation.
  void request(TrialId trial_id, std::uint32_t slots);
  // Frees a trial's allocation or drops its pending request.
  void release(TrialId trial_id);

  // Adds slots an agent reports as already used by a trial (its workers
  // outlived a master restart) to that trial's allocation. False, changing
  // nothing, when the agent is unknown, lacks the free slots, or the trial
  // waits in the queue (it gave those workers up).
  bool hold(TrialId trial_id, const std::string& agent_id, std::uint32_t slots);
  // The trial's allocation, if it has one.
  [[nodiscard]] const Allocation* allocation(TrialId trial_id) const;

  // Grants what fits now, in request order; a request that does not fit does
  // not block smaller ones behind it (backfilling). Returns the new grants.
  std::vector<Allocation> schedule();

  [[nodiscard]] std::uint32_t total_slots() const;
  // Every agent, by agent id, with the trials allocated slots on it.
  [[nodiscard]] std::vector<AgentUsage> usage() const;
  [[nodiscard]] std::uint32_t free_slots(const std::string& agent_id) const;
  [[nodiscard]] std::size_t pending() const { return queue_.size(); }

 private:
  struct Agent {
    std::uint32_t slots = 0;
    std::uint32_t used = 0;
    [[nodiscard]] std::uint32_t free() const { return slots - used; }
  };
  struct Request {
    TrialId trial_id;
    std::uint32_t slots;
  };
  [[nodiscard]] std::optional<std::vector<Placement>> place(std::uint32_t slots) const;
  [[nodiscard]] std::optional<Placement> best_single_agent(std::uint32_t slots) const;
  [[nodiscard]] std::optional<std::vector<Placement>> whole_idle_agents(std::uint32_t slots) const;
  void free_allocation(const Allocation& allocation);

  std::map<std::string, Agent> agents_;
  std::deque<Request> queue_;
  std::map<TrialId, Allocation> allocations_;
};

}  // namespace volador::scheduling
