// Preemption: the scheduler has a running trial checkpoint and give its
// slots to another experiment, then the trial waits for slots again and
// resumes from that checkpoint (the pause path, so its metrics are those of
// an uninterrupted run).
#include <fmt/format.h>

#include "master/trial_run.hpp"

namespace volador::master {

void TrialRun::handle(const Preempt& event) {
  const bool live = phase_ == Phase::launching || phase_ == Phase::running;
  if (!live || pause_requested_ || close_requested_) return;  // its slots are on their way back, or it has none
  preempted_for_ = event.for_experiment;
  pause_requested_ = true;
  system_log(fmt::format("preempted by the scheduler to make room for experiment {}: {}, then giving its slots back",
                         event.for_experiment, command_ ? "stopping its command" : "checkpointing"));
  drive();
}

void TrialRun::finish_preemption() {
  const auto for_experiment = *std::exchange(preempted_for_, std::nullopt);
  pause_requested_ = false;
  forget_run();
  setup_.spec.record.preemptions += 1;
  system_log(fmt::format("preempted after {} batches (preemption {}): slots given to experiment {}; it resumes from "
                         "its checkpoint when slots free up",
                         progress_.batches_trained, setup_.spec.record.preemptions, for_experiment));
  if (!rewind_to_resume_point()) return;
  save_record();
  if (has_work()) request_slots();
  else phase_ = Phase::idle;
}

}  // namespace volador::master
