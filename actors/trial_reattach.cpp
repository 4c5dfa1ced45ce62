// Taking a live run back after a master restart (see trial_actor.hpp).
#include "actors/trial_internal.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/master_outage.hpp"
#include "actors/trial_resume.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors::trial_internal {
namespace {

// Gives the run up: its rejoined ranks are told, and the trial restarts (uncounted).
void give_up_reattach(Self self, const std::string& why) {
  auto& st = self->state;
  for (auto& rank : st.ranks)
    if (rank.hello) rank.hello->deliver(to_caf_error(Error::invalid_argument("the trial gave this run up: " + why)));
  restart(self, why, false);
}

constexpr auto kAdoptTimeout = kReattachGrace + std::chrono::seconds(5);

training::Workload as_workload(const wire::WorkloadRequest& request) {
  switch (request.kind) {
    case wire::WorkloadKind::train: return {training::WorkloadKind::train, request.batches, request.start_batch};
    case wire::WorkloadKind::validate: return {training::WorkloadKind::validate, 0, request.start_batch};
    default: return {training::WorkloadKind::checkpoint, 0, request.start_batch};
  }
}

// Progress, validations and best metric as the journal has them now.
bool take_journal_standing(Self self) {
  auto& st = self->state;
  auto point = standing_point(*st.context.journal, record(self).id, record(self).batches_trained);
  if (!point) {
    give_up_reattach(self, "cannot read the trial's journal: " + point.error().message);
    return false;
  }
  st.progress = point->progress;
  st.newest_checkpoint_at = point->checkpoint_at();
  st.last_validation = std::move(point->last_validation);
  st.best_metric.reset();
  bool last_was_best = false;
  for (const auto& validation : point->validations) last_was_best = is_new_best(st, validation);
  st.progress.last_validation_was_best = last_was_best;
  st.restore_uuid = point->checkpoint ? point->checkpoint->uuid : "";
  return true;
}

// Whether the journal already holds what `workload` reported.
bool journaled(const TrialState& st, const training::Workload& workload, const wire::WorkloadResult& result) {
  switch (workload.kind) {
    case training::WorkloadKind::train: return result.batches_trained == st.progress.batches_trained;
    case training::WorkloadKind::validate:
      return st.progress.last_validation_at == static_cast<std::int64_t>(workload.start_batch);
    default: return true;  // a checkpoint not registered is simply taken again
  }
}

// Brings the journal up to rank 0's last finished workload, whose answer
// the old master may not have journaled. False when the trial stopped here.
bool catch_up_with_ranks(Self self) {
  auto& st = self->state;
  if (!take_journal_standing(self)) return false;
  const auto& last = st.ranks.front().last;
  if (!last) return true;
  const auto workload = as_workload(last->request);
  if (journaled(st, workload, last->result)) return true;
  if (workload.start_batch != st.progress.batches_trained) {
    give_up_reattach(self, fmt::format("the ranks stand at batch {}, the journal at {}", workload.start_batch,
                                       st.progress.batches_trained));
    return false;
  }
  return complete_workload(self, workload, last->result);
}

// Once the pool gave the run's agents back and every rank rejoined: the run goes on.
void finish_reattach(Self self) {
  auto& st = self->state;
  if (st.agents.empty() || !std::ranges::all_of(st.ranks, [](const RankSlot& r) { return r.hello.has_value(); })) return;
  st.phase = Phase::running;
  for (auto& rank : st.ranks) {
    rank.hello->deliver(true);
    rank.hello.reset();
  }
  for (const auto& agent : st.agents)
    self->send(agent, adopt_atom::value, record(self).id, record(self).run_id, caf::actor_cast<caf::actor>(self));
  if (!catch_up_with_ranks(self)) return;
  save_record(self);
  system_log(self, fmt::format("run {} reattached after a master restart, at batch {}", record(self).run_id,
                               st.progress.batches_trained));
  drive(self);
}

void on_adopted(Self self, const std::vector<GrantedAgent>& grant) {
  auto& st = self->state;
  std::uint32_t rank = 0;
  for (const auto& granted : grant) {
    self->monitor(granted.agent);
    st.agents.push_back(granted.agent);
    st.agent_ids.push_back(granted.agent_id);
    for (std::uint32_t local = 0; local < granted.slots() && rank < st.ranks.size(); ++local) st.ranks[rank++].agent = granted.agent;
  }
  finish_reattach(self);
}

// A recovered trial whose run was live: claim its workers, wait for its ranks.
void begin_reattach(Self self) {
  auto& st = self->state;
  const auto& r = record(self);
  st.phase = Phase::reattaching;
  st.token = r.run_token;
  st.ranks.resize(st.spec.config->resources.slots_per_trial);
  const auto run_id = r.run_id;
  std::string agents;
  for (const auto& agent : r.run_agents) agents += (agents.empty() ? "" : ", ") + agent;
  system_log(self, fmt::format("the master restarted; waiting for run {} on {} to report back", run_id, agents));
  self->request(st.context.pool, kAdoptTimeout, adopt_atom::value, r.id, run_id, r.run_agents,
                st.spec.config->resources.slots_per_trial)
      .then(
          [=](const std::vector<GrantedAgent>& grant) {
            if (self->state.phase == Phase::reattaching && record(self).run_id == run_id) on_adopted(self, grant);
          },
          [=](const caf::error& error) {
            if (self->state.phase == Phase::reattaching && record(self).run_id == run_id)
              give_up_reattach(self, "run " + std::to_string(run_id) + " cannot be taken back: " + from_caf_error(error).message);
          });
  self->delayed_send(self, kReattachGrace, reattach_timeout_atom::value, run_id);
}

}  // namespace


caf::response_promise accept_rejoin(Self self, const wire::Bytes& bytes, caf::actor worker) {
  auto promise = self->make_response_promise();
  auto rejoin = wire::decode<wire::RankRejoin>(bytes);
  if (!rejoin) {
    promise.deliver(to_caf_error(rejoin.error()));
    return promise;
  }
  if (!admit_rank(self, Phase::reattaching, {rejoin->run_id, rejoin->rank, rejoin->token}, std::move(worker), promise))
    return promise;
  self->state.ranks[rejoin->rank].last = std::move(rejoin->last);
  finish_reattach(self);
  return promise;
}

void recover_run(Self self) {
  auto& st = self->state;
  if (record(self).state != RunState::active || record(self).run_agents.empty()) return;
  if (!st.command) return begin_reattach(self);
  forget_run(self);
  save_record(self);
}

void on_reattach_timeout(Self self, std::uint32_t run_id) {
  if (self->state.phase == Phase::reattaching && record(self).run_id == run_id)
    give_up_reattach(self, fmt::format("run {} did not report back within {} s of the master restart", run_id,
                                       kReattachGrace.count()));
}

}  // namespace volador::actors::trial_internal
