#pragma once
// Ended experiments described once. Describing an experiment reads every
// metric report of every trial (for each trial's best validation): seconds
// for 1,000 trials x 1,000 reports, on every list or page load. Once an
// experiment and all its trials have ended, nothing in its description
// changes but its archived flag, so the description is kept and reused; of
// a running experiment, the ended trials' best validations are.
// Thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "master/ended_trial_bests.hpp"
#include "runtime/wire/messages.hpp"
#include "storage/journal/journal.hpp"

namespace volador::http {

class EndedExperiments {
 public:
  // master::describe_experiment(journal, id): kept from an earlier call when
  // the experiment and every trial had ended by then (archived as it is now).
  [[nodiscard]] Result<wire::ExperimentDetail> describe(const storage::Journal& journal, std::uint64_t id);
  // master::list_experiments(journal), with the ended experiments' summaries
  // kept as describe() keeps them.
  [[nodiscard]] Result<wire::ExperimentList> list(const storage::Journal& journal);

 private:
  using Detail = std::shared_ptr<const wire::ExperimentDetail>;
  [[nodiscard]] Result<Detail> detail(const storage::Journal& journal, const storage::ExperimentRecord& record);

  std::mutex mutex_;
  std::map<std::uint64_t, Detail> ended_;
  master::EndedTrialBests trial_bests_;  // of running experiments' ended trials
};

}  // namespace volador::http
