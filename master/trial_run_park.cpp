// Parking: a trial whose search waits for other trials (pbt's rounds), or
// one that trained the searcher's max_length, gives its slots back once its
// target's work is done, and takes new ones with its next target (see trial_run.hpp).
#include <fmt/format.h>

#include "master/trial_run.hpp"

namespace volador::master {

// Only a trial that holds slots or waits for them (so has work left: see
// has_work) parks; an idle, paused, stopping or ended one holds none.
void TrialRun::handle(const Park&) {
  const bool has_slots = phase_ == Phase::waiting_for_slots || phase_ == Phase::launching ||
                         phase_ == Phase::reattaching || phase_ == Phase::running;
  if (command_ || close_requested_ || pause_requested_ || !has_slots) return;
  park_requested_ = true;
  drive();
}

void TrialRun::finish_parking() {
  forget_run();
  system_log(done_at_max_length()
                 ? fmt::format("trained the searcher's max_length ({} batches): slots given back, waiting for the search",
                               progress_.batches_trained)
                 : fmt::format("waiting for the search after {} batches: slots given back until its next target",
                               progress_.batches_trained));
  save_record();
  phase_ = Phase::idle;
  if (has_work() && rewind_to_resume_point()) request_slots();  // a target that came while it stopped
}

bool TrialRun::done_at_max_length() const {
  return max_length_batches_ > 0 && target_batches_ >= max_length_batches_ && !has_work();
}

bool TrialRun::has_work() const {
  if (target_batches_ == 0) return false;
  if (command_) return true;
  return training::next_workload(policy_, progress_, target_batches_).kind != training::WorkloadKind::done;
}

}  // namespace volador::master
