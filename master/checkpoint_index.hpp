#pragma once
// An experiment's live checkpoints in memory, kept for an incremental GC: the
// same decisions as checkpoints::checkpoints_to_delete over every active
// checkpoint of the experiment (with its running trials' resume points, the
// warm-start sources of running trials without a checkpoint of their own and
// registered checkpoints in use), at the cost of what changed since the last
// step. Fed by events (records as journaled); a step (garbage) weighs only
// the checkpoints of trials that changed, those that dropped out of the
// experiment's best, and warm-start sources whose protection ended.
// Pure: no I/O, no actors; not thread-safe (one owner, e.g. the experiment actor).

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "storage/checkpoints/gc_policy.hpp"
#include "storage/journal/journal.hpp"

namespace volador::master {

class CheckpointIndex {
 public:
  // An empty index for `policy`, ranking by the validation metric `metric`.
  CheckpointIndex(checkpoints::GcPolicy policy, std::string metric);
  // Movable, not copyable: its ranking points into its trials.
  CheckpointIndex(CheckpointIndex&&) = default;
  CheckpointIndex& operator=(CheckpointIndex&&) = default;
  CheckpointIndex(const CheckpointIndex&) = delete;
  CheckpointIndex& operator=(const CheckpointIndex&) = delete;

  // A trial's record as journaled: whether it may still resume (not
  // terminal) and the checkpoint it warm-starts from.
  void put_trial(const storage::TrialRecord& record);
  // Trial `trial_id` ended (its record is journaled terminal): none of its
  // checkpoints, nor the one it warm-starts from, is its resume point any more.
  void end_trial(std::uint64_t trial_id);
  // A checkpoint's record as journaled: an active one is added (or replaced),
  // a deleted one dropped.
  void put_checkpoint(const storage::CheckpointRecord& record);
  // A model version registers `uuid`: it is never garbage again.
  void protect(const std::string& uuid);

  // The checkpoints to delete now. Each stays weighed at the next step until
  // put_checkpoint says it was deleted or protect spares it.
  [[nodiscard]] std::vector<storage::CheckpointRecord> garbage();
  // How many active checkpoints it holds.
  [[nodiscard]] std::size_t size() const { return trial_of_.size(); }

 private:
  struct Checkpoint {
    storage::CheckpointRecord record;
    checkpoints::GcCandidate candidate;  // in_use unset: it is worked out per step
  };
  struct Trial {
    bool may_resume = false;  // has a record that is not terminal
    std::string warm_start;
    std::map<std::string, Checkpoint> checkpoints;  // active, by uuid
  };
  struct BetterFirst {
    bool smaller_is_better = true;
    bool operator()(const checkpoints::GcCandidate* a, const checkpoints::GcCandidate* b) const {
      return checkpoints::ranks_better(*a, *b, smaller_is_better);
    }
  };

  // The uuids of the experiment's save_experiment_best best now.
  [[nodiscard]] std::vector<std::string> experiment_best() const;
  void drop(const std::string& uuid);
  // Marks every checkpoint of the trial, and its warm-start source, to be weighed.
  void weigh_trial(const Trial& trial);
  [[nodiscard]] bool warm_start_protected(const std::string& uuid) const;
  // Of the trial's checkpoints, the uuids its own rules (best, latest, resume
  // and warm-start points) give up.
  [[nodiscard]] std::set<std::string> trial_garbage(const Trial& trial) const;

  checkpoints::GcPolicy policy_;
  std::string metric_;
  std::map<std::uint64_t, Trial> trials_;
  std::map<std::string, std::uint64_t> trial_of_;  // active uuid -> its trial
  std::set<const checkpoints::GcCandidate*, BetterFirst> ranking_;  // measured, best first
  std::multimap<std::string, std::uint64_t> warm_starters_;  // source uuid -> trials starting from it
  std::set<std::string> protected_;
  std::set<std::string> to_weigh_;
  std::set<std::string> best_at_last_step_;
};

}  // namespace volador::master
