#include "actors/resource_pool_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

void grant_what_fits(caf::stateful_actor<ResourcePoolState>* self) {
  auto& st = self->state;
  for (const auto& allocation : st.scheduler.schedule()) {
    auto trial = st.waiting_trials.extract(allocation.trial_id);
    if (trial.empty()) continue;
    std::vector<GrantedAgent> grant;
    for (const auto& placement : allocation.placements)
      grant.push_back({st.agents.at(placement.agent_id), placement.agent_id, placement.slots});
    self->send(trial.mapped(), granted_atom::value, std::move(grant));
  }
}

}  // namespace

caf::behavior resource_pool_actor(caf::stateful_actor<ResourcePoolState>* self) {
  self->set_down_handler([=](const caf::down_msg& down) {
    auto& st = self->state;
    for (auto it = st.agents.begin(); it != st.agents.end(); ++it) {
      if (it->second.address() != down.source) continue;
      spdlog::warn("agent {} lost; its slots leave the pool", it->first);
      st.scheduler.remove_agent(it->first);
      st.agents.erase(it);
      return;
    }
  });
  return {
      [=](register_atom, const wire::Bytes& bytes, caf::actor agent) -> caf::result<bool> {
        auto info = wire::decode<wire::AgentInfo>(bytes);
        if (!info) return to_caf_error(info.error());
        auto& st = self->state;
        if (auto old = st.agents.find(info->agent_id); old != st.agents.end() && old->second != agent)
          return to_caf_error(Error::already_exists("an agent named '" + info->agent_id + "' is already registered"));
        spdlog::info("agent {} on {} registered with {} slots", info->agent_id, info->hostname, info->slots);
        st.agents[info->agent_id] = agent;
        st.scheduler.add_agent(info->agent_id, info->slots);
        self->monitor(agent);
        grant_what_fits(self);
        return true;
      },
      [=](request_slots_atom, std::uint64_t trial_id, std::uint32_t slots, caf::actor trial) {
        self->state.scheduler.request(trial_id, slots);
        self->state.waiting_trials[trial_id] = std::move(trial);
        grant_what_fits(self);
      },
      [=](capacity_atom) { return self->state.scheduler.total_slots(); },
      [=](release_atom, std::uint64_t trial_id) {
        self->state.scheduler.release(trial_id);
        self->state.waiting_trials.erase(trial_id);
        grant_what_fits(self);
      },
  };
}

}  // namespace volador::actors
