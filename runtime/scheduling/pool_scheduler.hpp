#pragma once
// One pool's scheduler: its agents (AgentIndex), its experiments' queues and
// allocations, and the decision of slot_scheduler.hpp's policy for this pool
// (order, reservation and backfill, preemption). SlotScheduler routes each
// agent and trial to its pool's; see its header for the policy. Not
// thread-safe.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/scheduling/agent_index.hpp"
#include "runtime/scheduling/decision.hpp"
#include "runtime/scheduling/pool_policy.hpp"
#include "runtime/scheduling/scheduler_usage.hpp"
#include "runtime/scheduling/slot_request.hpp"

namespace volador::scheduling {

class PoolScheduler {
 public:
  explicit PoolScheduler(std::string name) : name_(std::move(name)) {}

  void set_policy(const PoolPolicy& policy) {
    policy_ = policy;
    settled_.reset();
  }
  // Adds an agent unknown to every pool.
  void add_agent(const AgentSpec& agent);
  // Removes an agent; the trials that had slots there lose their whole
  // allocation (returned, by trial id).
  std::vector<TrialId> remove_agent(const std::string& agent_id);
  // As SlotScheduler::set_agent_open, for an agent of this pool.
  void set_agent_open(const std::string& agent_id, bool open) {
    agents_.set_open(agent_id, open);
    settled_.reset();
  }

  // Queues a trial that has no request or allocation in this pool; `request`
  // was validated.
  void request(const SlotRequest& request);
  // Frees the trial's allocation or drops its request; false when this pool
  // does not know the trial.
  bool release(TrialId trial_id);
  // As SlotScheduler::hold, for an agent of this pool, stamped `now_ms`.
  bool hold(TrialId trial_id, const std::string& agent_id, const std::vector<std::uint32_t>& slot_indices,
            std::int64_t now_ms);
  // As SlotScheduler::attribute, for a share naming this pool.
  Status attribute(TrialId trial_id, const ExperimentShare& share);
  [[nodiscard]] const Allocation* allocation(TrialId trial_id) const;
  [[nodiscard]] bool knows(TrialId trial_id) const { return trials_.contains(trial_id); }

  // One decision at `now_ms`, appended to `decision` (its
  // decide_again_at_ms lowered to this pool's, if any). After a decision
  // that granted and asked nothing, later ones are skipped (they would be
  // the same) until the pool changes or a running trial passes its minimum
  // run.
  void decide(std::int64_t now_ms, Decision& decision);

  [[nodiscard]] const AgentIndex& agents() const { return agents_; }
  [[nodiscard]] PoolUsage usage() const;
  [[nodiscard]] std::vector<ExperimentUsage> experiments() const;
  [[nodiscard]] std::uint32_t pending_trials() const { return pending_trials_; }

 private:
  struct Trial {
    std::optional<ExperimentId> experiment;  // none: held, not yet claimed
    std::uint32_t slots = 0;
    bool needs_images = false;  // placed only on agents that run images
    bool queued = true;
    Allocation allocation;  // when not queued
    std::vector<const AgentIndex::Agent*> agents;  // of each placement (the index's, stable while it has slots there)
    std::int64_t granted_ms = 0;
    std::optional<ExperimentId> leaving_for;  // asked to leave, for this experiment
  };
  struct Experiment {
    ExperimentShare share;
    std::map<std::uint32_t, std::set<TrialId>> queued;  // by gang size, each in creation order
    std::uint32_t queued_trials = 0;
    std::uint32_t queued_slots = 0;
    // Its running trials that may be asked to leave (claimed, not leaving),
    // by grant time: those past the minimum run are a prefix.
    std::set<std::pair<std::int64_t, TrialId>> preemptible;
    std::uint32_t allocated_slots = 0;  // leaving ones included
    std::uint32_t running_trials = 0;
    std::uint32_t leaving_slots = 0;   // of its trials asked to leave
    std::uint32_t incoming_slots = 0;  // of others' trials asked to leave for it
    // Slots it will hold once the trials asked to leave have left: what
    // fairness counts.
    [[nodiscard]] double effective_slots() const {
      return static_cast<double>(allocated_slots) - leaving_slots + incoming_slots;
    }
  };
  // The order of experiments waiting in one decision (see slot_scheduler.hpp).
  struct Turn {
    int priority;
    double served;  // after its next gang
    ExperimentId experiment_id;
    TrialId next_trial;
    std::uint32_t gang;
    // Gangs this big were blocked in this decision: later trials of the
    // experiment that big cannot fit either, so only smaller ones go on.
    std::uint32_t below;
    bool operator>(const Turn& other) const;
  };
  // A candidate set of running trials to ask to leave.
  struct Victims {
    std::vector<TrialId> trials;
    AgentIndex::Reservation reservation;  // where the waiting trial will start
    std::uint32_t freed = 0;              // slots they hold, everywhere
  };

  // What one decision's preemption searches found.
  struct Searches {
    // Victims were sought and not found for a gang this big, of a trial
    // that needs no images (hopeless_gang) or one that does: any later turn
    // is no more entitled, so a gang as big will find none either. A trial
    // that needs images may take fewer victims, never more.
    std::uint32_t hopeless_gang = UINT32_MAX;
    std::uint32_t hopeless_image_gang = UINT32_MAX;
    [[nodiscard]] std::uint32_t hopeless_for(bool needs_images) const {
      return needs_images ? std::min(hopeless_gang, hopeless_image_gang) : hopeless_gang;
    }
    // When a trial that may have made room for a gang whose search found
    // nothing passes its minimum run (INT64_MAX: none will).
    std::int64_t decide_again_at_ms = INT64_MAX;
  };

  // A decision that granted and asked nothing at `since_ms`, the pool
  // unchanged since: until `until_ms` (when a trial next passes its minimum
  // run, so may be asked to leave) a decision would find the same nothing.
  struct Settled {
    std::int64_t since_ms;
    std::int64_t until_ms;
  };

  // When the next running trial passes its minimum run after `now_ms`
  // (INT64_MAX: none will, or the pool does not preempt).
  [[nodiscard]] std::int64_t next_eligible_ms(std::int64_t now_ms) const;
  // decide() without the shortcut of a settled pool.
  void decide_anew(std::int64_t now_ms, Decision& decision);
  Experiment& experiment(const ExperimentShare& share);
  void forget_if_idle(ExperimentId experiment_id);
  void grant(TrialId trial_id, std::vector<Placement> placements, std::int64_t now_ms, Decision& decision);
  void ask_to_leave(const Victims& victims, ExperimentId for_experiment, Decision& decision);
  // For a gang that cannot be placed now (on agents that run images, when
  // `needs_images`): claims the slots it will start on, asking trials to
  // leave when the pool's policy allows (appended to `decision`; a search
  // that found nothing noted in `searches`). True when trials were asked to
  // leave for it: the experiment's next trial may make room the same way.
  bool make_room(const Experiment& e, std::uint32_t gang, bool needs_images, Searches& searches, std::int64_t now_ms,
                 Decision& decision);
  void stop_leaving(Trial& trial);
  // The experiment's turn for its oldest trial from `from` on smaller than `below`.
  [[nodiscard]] std::optional<Turn> turn_after(const Experiment& e, TrialId from, std::uint32_t below) const;
  void unqueue(Experiment& e, TrialId trial_id, std::uint32_t slots);
  // Trial ids on the agent that may be asked to leave for `requester`'s
  // gang, least valuable first.
  // The experiments whose trials may leave for `requester`'s gang: less
  // important ones, or same-priority ones served more than it would be
  // after the gang; least important, then most served first.
  [[nodiscard]] std::vector<const Experiment*> victim_experiments(const Experiment& requester, std::uint32_t gang) const;
  // Whether `victim` may leave for the gang, counting the slots `taken`
  // from each experiment so far (updated when it may).
  [[nodiscard]] bool may_take(const Experiment& requester, std::uint32_t gang, TrialId victim,
                              std::map<ExperimentId, std::uint32_t>& taken) const;
  // The victims of choose_victims on agents of `kind` (that run images, when
  // `needs_images`): on one agent, or on whole agents.
  [[nodiscard]] std::optional<Victims> victims_on_one_agent(const std::string& kind, const Experiment& requester,
                                                            std::uint32_t gang, bool needs_images,
                                                            std::int64_t now_ms) const;
  [[nodiscard]] std::optional<Victims> victims_on_whole_agents(const std::string& kind, const Experiment& requester,
                                                               std::uint32_t gang, bool needs_images,
                                                               std::int64_t now_ms) const;
  // When the first trial that may leave for `requester`'s gang but has not
  // run its minimum time at `now_ms` will have (INT64_MAX: none).
  [[nodiscard]] std::int64_t next_eligible_victim_ms(const Experiment& requester, std::uint32_t gang,
                                                     std::int64_t now_ms) const;
  // The running trials to ask to leave so that `requester`'s gang fits on
  // agents of one kind (that run images, when `needs_images`); nullopt when
  // none may make enough room.
  [[nodiscard]] std::optional<Victims> choose_victims(const Experiment& requester, std::uint32_t gang,
                                                     bool needs_images, std::int64_t now_ms) const;

  std::string name_;
  PoolPolicy policy_;
  AgentIndex agents_;
  std::unordered_map<TrialId, Trial> trials_;
  std::map<ExperimentId, Experiment> experiments_;
  std::uint32_t pending_trials_ = 0;
  std::uint32_t pending_slots_ = 0;
  std::uint32_t running_trials_ = 0;
  std::uint32_t leaving_trials_ = 0;
  std::optional<Settled> settled_;  // reset by every change to the pool
  // The last decision's Decision::decide_again_at_ms for this pool.
  std::optional<std::int64_t> decide_again_at_ms_;
};

}  // namespace volador::scheduling
