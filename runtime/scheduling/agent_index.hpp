#pragma once
// The agents of one pool and who uses each of their slots, indexed so that
// placing a trial never rescans the pool: per slot kind, the agents by free
// slots (best fit) and the idle agents made only of that kind by size
// (multi-host trials). Slots of trials asked to leave (preemption) are
// counted per kind, so a waiting trial can tell where it will fit once they
// have left. Within one scheduling decision a waiting trial claims the
// slots it will start on: a claimed agent is hidden from placement (its
// free slots wait for that trial) and offers other waiting trials only its
// unclaimed slots, until the claims are cleared. A closed agent (its work
// disk is full) is left out of the indexes, so it is given no new trial,
// claimed by none and preempted for none. Every query names whether the
// trial needs container images: one that does sees only the agents that
// run them (each index is kept twice: over every agent, and over those
// agents), so it is placed, claims and preempts only there. Not
// thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/scheduling/agent_spec.hpp"
#include "runtime/scheduling/placement.hpp"

namespace volador::scheduling {

class AgentIndex {
 public:
  // Slots of one kind on one agent.
  struct KindSlots {
    std::string kind;
    std::uint32_t total = 0;
    std::uint32_t free = 0;
    std::uint32_t leaving = 0;  // used by trials asked to leave
    std::uint32_t claimed = 0;  // by waiting trials in this decision
    // Free or leaving, and not claimed.
    [[nodiscard]] std::uint32_t soon_free() const { return free + leaving - std::min(claimed, free + leaving); }
  };
  struct Agent {
    std::map<std::string, std::string> labels;
    std::vector<std::string> kinds;  // per slot
    std::vector<TrialId> owners;     // per slot: 0 when free
    std::vector<bool> leaving;       // per slot: its owner was asked to leave
    std::vector<KindSlots> by_kind;  // one per kind it has, by kind
    bool runs_images = false;
    bool hidden = false;  // claimed in this decision: hidden from placement
    bool closed = false;  // takes no new trials: out of the indexes (placement, claims, preemption) until opened
    [[nodiscard]] const KindSlots* slots_of(const std::string& kind) const;
    // Every slot is of `kind`.
    [[nodiscard]] bool only_of(const std::string& kind) const { return slots_of(kind) && by_kind.size() == 1; }
  };
  // The slots of `kind` a waiting trial of `slots` slots will start on: on
  // one agent, or whole agents; whether they fit it once the trials asked
  // to leave there have left.
  struct Reservation {
    std::string kind;
    std::uint32_t slots = 0;
    std::vector<std::string> agent_ids;
    bool fits_once_left = false;
    bool whole_agents = false;  // the trial takes each agent whole (it fits none alone)
  };

  // Adds an agent whose id is not known here.
  void add(const AgentSpec& spec);
  // Removes an agent (nothing when unknown); returns the trials that had
  // slots on it, by trial id.
  std::vector<TrialId> remove(const std::string& agent_id);
  [[nodiscard]] const Agent* find(const std::string& agent_id) const;
  // Closes an agent to new trials (those it runs keep their slots) or opens
  // it again; nothing for an unknown agent.
  void set_open(const std::string& agent_id, bool open);
  [[nodiscard]] const std::map<std::string, Agent>& agents() const { return agents_; }

  // Gives the placement's slots to `owner`, or frees them (0; their leaving
  // mark goes too). Slots or agents that are gone are skipped.
  void assign(const Placement& placement, TrialId owner);
  // Marks the placement's slots as used by a trial asked to leave.
  void mark_leaving(const Placement& placement);

  // Where `slots` slots fit now, outside claimed agents (and on agents that
  // run images only, when `needs_images`): the first kind in
  // kinds_by_preference() order with one agent (best fit) or whole idle
  // agents of that kind, biggest first, enough for them; nullopt if none.
  [[nodiscard]] std::optional<std::vector<Placement>> place(std::uint32_t slots, bool needs_images) const;
  // Where a trial of `slots` slots that does not fit now will start: of the
  // first kind that could ever hold it (on agents that run images, when
  // `needs_images`), the agent with the most slots free or leaving and
  // unclaimed, or for a multi-host trial the unclaimed whole agents of that
  // kind with the most; nullopt when none could.
  [[nodiscard]] std::optional<Reservation> reservation_for(std::uint32_t slots, bool needs_images) const;
  // Claims the reservation's slots (each agent whole when it says so) and
  // hides its agents from place() until clear_claims().
  void claim(const Reservation& reservation);
  void clear_claims();

  // The kinds offered (by agents that run images, when `needs_images`), GPU
  // models first (by name), then CPU.
  [[nodiscard]] const std::vector<std::string>& kinds_by_preference(bool needs_images) const {
    return view(needs_images).kind_order;
  }
  // The most slots of one kind one trial could ever get, on one agent or on
  // whole agents of that kind together (that run images, when
  // `needs_images`).
  [[nodiscard]] std::uint32_t largest_trial(bool needs_images) const;
  // Whether a trial of `slots` slots fits on one agent of `kind` (that runs
  // images, when `needs_images`); else it needs whole agents of it.
  [[nodiscard]] bool fits_one_agent(const std::string& kind, std::uint32_t slots, bool needs_images) const;
  [[nodiscard]] std::uint32_t total_slots() const { return total_slots_; }
  [[nodiscard]] std::uint32_t free_slots() const { return free_slots_; }
  // Free slots outside claimed agents.
  [[nodiscard]] std::uint32_t unclaimed_free_slots() const { return unclaimed_free_; }

  // An agent made only of one kind, by how many of its slots stay busy
  // (neither free nor leaving), then biggest first, then by id.
  struct BusyAgent {
    std::uint32_t busy;
    std::uint32_t size;
    std::string agent_id;
    const Agent* agent = nullptr;  // the index's
    auto operator<=>(const BusyAgent& other) const {
      return std::tie(busy, other.size, agent_id) <=> std::tie(other.busy, size, other.agent_id);
    }
    bool operator==(const BusyAgent& other) const { return (*this <=> other) == 0; }
  };
  // The unclaimed agents made only of `kind` (that run images, when
  // `needs_images`), fewest busy slots first (none when the kind is
  // unknown).
  [[nodiscard]] const std::set<BusyAgent>& whole_agents(const std::string& kind, bool needs_images) const;

 private:
  struct BySizeThenId {
    bool operator()(const std::pair<std::uint32_t, std::string>& a, const std::pair<std::uint32_t, std::string>& b) const {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    }
  };
  // Per kind, the agents offering it (by_free, idle and with_leaving: the
  // unclaimed ones).
  struct KindIndex {
    std::set<std::pair<std::uint32_t, std::string>> by_free;              // (free of the kind, agent)
    std::set<std::pair<std::uint32_t, std::string>, BySizeThenId> idle;  // agents only of the kind, all free: (size, agent)
    std::uint32_t idle_slots = 0;
    std::set<std::string> with_leaving;  // agents with leaving slots of the kind
    std::set<std::string> only_kind;     // agents whose every slot is of the kind
    std::set<BusyAgent> by_busy;         // the unclaimed ones of only_kind
    std::uint32_t largest_agent = 0;     // most slots of the kind on one agent, claimed ones included
    std::uint32_t agents = 0;            // with slots of the kind, claimed ones included
  };
  // The per-kind indexes over the agents one kind of trial may use: every
  // agent, or only those that run images.
  struct View {
    bool images_only = false;
    std::map<std::string, KindIndex> kinds;
    std::vector<std::string> kind_order;  // the kinds offered: GPU models first, then CPU
    [[nodiscard]] bool admits(const Agent& agent) const { return !images_only || agent.runs_images; }
  };
  [[nodiscard]] const View& view(bool needs_images) const { return needs_images ? imaging_ : every_; }
  // Calls `change` with each view that admits `agent`.
  template <class Change>
  void for_views_of(const Agent& agent, Change&& change);
  void unindex(const std::string& id, const Agent& agent);
  void index(const std::string& id, const Agent& agent);
  void recount(Agent& agent);
  static void order_kinds(View& view);
  [[nodiscard]] std::optional<Placement> best_fit(const KindIndex& index, const std::string& kind,
                                                  std::uint32_t slots) const;
  [[nodiscard]] std::optional<std::vector<Placement>> whole_idle_agents(const KindIndex& index, const std::string& kind,
                                                                        std::uint32_t slots) const;
  [[nodiscard]] std::optional<Reservation> nearest_agent(const View& view, const std::string& kind,
                                                         std::uint32_t slots) const;
  [[nodiscard]] static std::optional<Reservation> nearest_whole_agents(const KindIndex& index, const std::string& kind,
                                                                       std::uint32_t slots);
  // The first `count` free slots of `kind` on an agent.
  [[nodiscard]] static std::vector<std::uint32_t> take(const Agent& agent, const std::string& kind, std::uint32_t count);

  std::map<std::string, Agent> agents_;
  View every_{.images_only = false};
  View imaging_{.images_only = true};
  std::vector<std::string> claimed_;  // agents claimed in this decision
  std::uint32_t total_slots_ = 0;
  std::uint32_t free_slots_ = 0;
  std::uint32_t unclaimed_free_ = 0;
};

}  // namespace volador::scheduling
