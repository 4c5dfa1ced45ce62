#pragma once
// The resource pool's allocation policy, free of actors: agents offer slots,
// trials ask for a number of slots, and schedule() grants requests first
// come, first served. Gang allocation: a request gets all its slots or
// nothing (no partial holds), so two trials can never deadlock each other.
// Every slot has a kind ("cpu", or "gpu:" and the GPU model) and a trial's
// slots are all of one kind, GPU kinds preferred to CPU slots. A request
// that fits on one agent goes there (best fit); a larger one takes whole idle
// agents of one kind, biggest first, so a multi-host trial never shares a
// host with another trial and never mixes GPU models. Slots are numbered per
// agent; an allocation names the slots it got, so each rank can be bound to
// its own device.

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/scheduling/placement.hpp"
#include "runtime/scheduling/scheduler_usage.hpp"

namespace volador::scheduling {

class SlotScheduler {
 public:
  // Adds an agent with one slot per entry of `slot_kinds` (or updates its
  // slots); its allocations stay.
  void add_agent(const std::string& agent_id, std::vector<std::string> slot_kinds);
  // Shorthand: an agent of `cpu_slots` CPU slots.
  void add_agent(const std::string& agent_id, std::uint32_t cpu_slots);
  // Removes an agent; returns the trials that had slots there (they lost all of them).
  std::vector<TrialId> remove_agent(const std::string& agent_id);

  // Queues a request; a trial has at most one pending request or allocation.
  void request(TrialId trial_id, std::uint32_t slots);
  // Frees a trial's allocation or drops its pending request.
  void release(TrialId trial_id);

  // Adds slots an agent reports as already used by a trial (its workers
  // outlived a master restart) to that trial's allocation. False, changing
  // nothing, when the agent is unknown, any of the slots is not free, or the
  // trial waits in the queue (it gave those workers up).
  bool hold(TrialId trial_id, const std::string& agent_id, const std::vector<std::uint32_t>& slot_indices);
  // The trial's allocation, if it has one.
  [[nodiscard]] const Allocation* allocation(TrialId trial_id) const;

  // Grants what fits now, in request order; a request that does not fit does
  // not block smaller ones behind it (backfilling). Returns the new grants.
  std::vector<Allocation> schedule();

  // The most slots one trial could ever get: of one kind, on one agent or on
  // whole agents of that kind together.
  [[nodiscard]] std::uint32_t largest_trial() const;
  // Every agent, by agent id, with the trials allocated slots on it.
  [[nodiscard]] std::vector<AgentUsage> usage() const;
  [[nodiscard]] std::uint32_t free_slots(const std::string& agent_id) const;
  [[nodiscard]] std::size_t pending() const { return queue_.size(); }

 private:
  struct Agent {
    std::vector<std::string> kinds;   // per slot
    std::vector<TrialId> owners;      // per slot: 0 when free
    [[nodiscard]] std::uint32_t free(const std::string& kind) const;
    [[nodiscard]] std::uint32_t used() const;
    // Whether every slot is of `kind` and free.
    [[nodiscard]] bool idle_of(const std::string& kind) const;
    // The first `count` free slots of `kind`.
    [[nodiscard]] std::vector<std::uint32_t> take(const std::string& kind, std::uint32_t count) const;
  };
  struct Request {
    TrialId trial_id;
    std::uint32_t slots;
  };
  // The kinds offered, GPU models first (by name), then CPU.
  [[nodiscard]] std::vector<std::string> kinds_by_preference() const;
  [[nodiscard]] std::optional<std::vector<Placement>> place(const std::vector<std::string>& kinds, std::uint32_t slots) const;
  [[nodiscard]] std::optional<Placement> best_single_agent(const std::string& kind, std::uint32_t slots) const;
  [[nodiscard]] std::optional<std::vector<Placement>> whole_idle_agents(const std::string& kind, std::uint32_t slots) const;
  void assign(const Allocation& allocation, TrialId owner);

  std::map<std::string, Agent> agents_;
  std::deque<Request> queue_;
  std::map<TrialId, Allocation> allocations_;
};

}  // namespace volador::scheduling
