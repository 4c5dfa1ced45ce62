#pragma once
// `pbt`: population-based training (Jaderberg et al. 2017), as Determined's
// PBT searcher.
//
// Round 0 creates population_size trials with sampled hyperparameters; in
// round r every member of the population trains to round_ends[r] and
// validates. Once every member has reported its round (one that errored,
// was canceled or ended by itself counts as the worst loss, +inf), members
// are ranked by loss (ties: the older trial first) and, before the last
// round, the worst `replaced` are closed (stopped early) and replaced:
// the i-th replacement is a new trial that starts from the checkpoint of the
// i-th best member (exploit; the best one when the i-th best has failed) with
// that member's hyperparameters explored (pbt_explore.hpp), and trains from
// there to round_ends[r + 1]; the other members train on to round_ends[r + 1]
// too. A failed member stays in the population as its worst until it is
// replaced. In the last round each member is closed (finished) as soon as it
// has reported; then the search shuts down. It fails when no member of a
// round is left alive to train on or copy from, or when every trial errored.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "runtime/hparams/sampling.hpp"
#include "runtime/search/pbt_explore.hpp"
#include "runtime/search/searcher.hpp"
#include "runtime/search/trial_book.hpp"

namespace volador::search {

struct PbtPlan {
  std::uint32_t population_size = 0;      // >= 1
  std::vector<std::uint64_t> round_ends;  // batches where each round ends: non-empty, increasing
  std::uint32_t replaced = 0;             // trials replaced a round, <= population_size / 2
  ExploreSettings explore;
  bool smaller_is_better = true;
};

// The plan of a pbt config: rounds end at (r + 1) x length_per_round in
// batches (so lengths in records or epochs end on whole batches, as
// max_length does), floor(truncate_fraction x population_size) replaced.
// Error (invalid_argument) for settings the config parser would have refused.
Result<PbtPlan> plan_pbt(const config::ExperimentConfig& config);

class PbtSearcher final : public Searcher {
 public:
  PbtSearcher(PbtPlan plan, hparams::Space space, std::uint32_t experiment_seed);

  Operations initial_operations() override;
  Operations on_trial_created(RequestId id) override;
  Operations on_validation_completed(RequestId id, double metric, std::uint64_t batches) override;
  Operations on_trial_closed(RequestId id) override;
  Operations on_trial_exited_early(RequestId id, ExitReason reason) override;
  [[nodiscard]] double progress() const override;
  [[nodiscard]] nlohmann::json save_state() const override;
  Status load_state(const nlohmann::json& state) override;

 private:
  struct Member {
    nlohmann::json hparams;
    std::optional<double> loss;  // of the current round, once reported
    bool failed = false;         // ended early: the worst of every round until replaced
  };
  struct Child {
    RequestId parent = 0;
    nlohmann::json hparams;
  };

  [[nodiscard]] bool last_round() const { return round_ + 1 == plan_.round_ends.size(); }
  // An open member ended without being asked to: failed from now on.
  Operations lose(RequestId id);
  // Exploits and explores once every member reported a round before the last.
  Operations end_round_if_reported();
  // Members, best first.
  [[nodiscard]] std::vector<RequestId> ranked() const;
  Operations create(std::vector<Child> children);
  // Ends the search: every trial finished (Shutdown), or none alive can go on.
  Operations finish_if_done(Operations ops);

  PbtPlan plan_;
  hparams::Space space_;
  std::uint32_t experiment_seed_;
  hparams::Rng rng_;
  TrialBook book_;
  std::uint32_t round_ = 0;
  std::map<RequestId, Member> members_;  // the population of the current round
  bool ended_ = false;                   // Shutdown was issued
};

}  // namespace volador::search
