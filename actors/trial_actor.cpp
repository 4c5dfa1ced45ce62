#include "actors/trial_actor.hpp"

#include <caf/all.hpp>

#include "actors/atoms.hpp"
#include "actors/trial_internal.hpp"
#include "runtime/script/entrypoint.hpp"

namespace volador::actors {

using namespace trial_internal;

caf::behavior trial_actor(Self self, MasterContext context, TrialSpec spec, caf::actor experiment) {
  auto& st = self->state;
  st.context = std::move(context);
  st.spec = std::move(spec);
  st.experiment = std::move(experiment);
  st.policy = training::make_schedule_policy(*st.spec.config);
  auto entrypoint = script::classify_entrypoint(st.spec.config->entrypoint);
  st.command = entrypoint && std::holds_alternative<script::CommandEntrypoint>(*entrypoint);
  st.pause_requested = st.spec.record.state == RunState::paused;
  if (st.pause_requested) st.phase = Phase::paused;
  recover_run(self);
  self->send(st.context.gateway, attach_atom::value, record(self).id, caf::actor_cast<caf::actor>(self));
  self->set_down_handler([=](const caf::down_msg& down) {
    const auto& agents = self->state.agents;
    if (std::ranges::any_of(agents, [&](const caf::actor& a) { return a.address() == down.source; }))
      restart(self, "lost an agent running this trial", false);
  });
  return {
      [=](train_to_atom, std::uint64_t batches) {
        auto& st = self->state;
        st.target_batches = batches;
        if (st.phase == Phase::idle && rewind_to_resume_point(self)) request_slots(self);
        drive(self);
      },
      [=](close_atom) {
        auto& st = self->state;
        st.close_requested = true;
        if (st.phase == Phase::idle || st.phase == Phase::waiting_for_slots || st.phase == Phase::paused)
          return end_trial(self, RunState::completed, "");
        drive(self);
      },
      [=](pause_atom) { on_pause(self); },
      [=](activate_atom) { on_activate(self); },
      [=](kill_atom) { end_trial(self, RunState::canceled, "killed by the user"); },
      [=](granted_atom, const std::vector<GrantedAgent>& grant) { launch(self, grant); },
      [=](hello_atom, const wire::Bytes& bytes, caf::actor worker) { return accept_rank(self, bytes, std::move(worker)); },
      [=](rejoin_atom, const wire::Bytes& bytes, caf::actor worker) { return accept_rejoin(self, bytes, std::move(worker)); },
      [=](reattach_timeout_atom, std::uint32_t run_id) { on_reattach_timeout(self, run_id); },
      [=](exited_atom, const wire::Bytes& bytes) { on_worker_exit(self, bytes); },
      [=](log_atom, const wire::Bytes& bytes) { on_logs(self, bytes); },
      [=](report_atom, const wire::Bytes& bytes) { on_report(self, bytes); },
  };
}

}  // namespace volador::actors
