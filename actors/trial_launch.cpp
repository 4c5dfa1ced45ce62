// Starting a run: one rank worker per granted slot, and the ranks' rendezvous.
#include "actors/trial_internal.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <random>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors::trial_internal {
namespace {

constexpr auto kLaunchTimeout = std::chrono::seconds(120);

std::string random_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", device());
  return token;
}

// Where one rank sits: its global rank, and its place on its agent and among the agents.
struct RankPlace {
  std::uint32_t rank = 0;
  std::uint32_t local_rank = 0;
  std::uint32_t local_size = 1;
  std::uint32_t node_index = 0;
  std::uint32_t node_count = 1;
  std::uint32_t slot = 0;  // the agent's slot the rank is bound to
};

wire::LaunchSpec launch_spec(Self self, const RankPlace& place) {
  auto& st = self->state;
  const auto& r = record(self);
  wire::LaunchSpec spec;
  spec.trial_id = r.id;
  spec.experiment_id = r.experiment_id;
  spec.run_id = r.run_id;
  spec.rank = place.rank;
  spec.local_rank = place.local_rank;
  spec.local_size = place.local_size;
  spec.node_index = place.node_index;
  spec.node_count = place.node_count;
  spec.slot = place.slot;
  spec.world_size = st.spec.config->resources.slots_per_trial;
  spec.entrypoint = st.spec.config->entrypoint;
  spec.hparams_json = r.hparams.dump();
  spec.seed = r.seed;
  spec.global_batch_size = st.spec.config->global_batch_size;
  spec.data_json = st.spec.config->data.dump();
  spec.environment_variables = st.spec.config->environment.environment_variables;
  spec.archive = *st.spec.archive;
  spec.master_host = st.context.host;
  spec.master_port = st.context.port;
  spec.token = st.token;
  if (!st.restore_uuid.empty())
    if (auto path = st.spec.store->path(st.restore_uuid)) spec.restore_path = path->string();
  return spec;
}

// Asks one agent to start one rank worker; a refusal restarts the run.
void launch_rank(Self self, const caf::actor& agent, const RankPlace& place) {
  const auto run_id = record(self).run_id;
  self->request(agent, kLaunchTimeout, launch_atom::value, wire::encode(launch_spec(self, place)),
                caf::actor_cast<caf::actor>(self))
      .then([](bool) {},
            [=](const caf::error& error) {
              if (record(self).run_id != run_id || self->state.phase != Phase::launching) return;
              restart(self, fmt::format("launching rank {} failed: {}", place.rank, from_caf_error(error).message), true);
            });
}

std::string describe_grant(const std::vector<GrantedAgent>& grant) {
  std::string out;
  for (const auto& g : grant)
    out += fmt::format("{}{} ({} slot{})", out.empty() ? "" : ", ", g.agent_id, g.slots(), g.slots() == 1 ? "" : "s");
  return out;
}

// The group every rank builds its communicator from.
wire::RankGroup rank_group(Self self) {
  auto& st = self->state;
  wire::RankGroup group;
  group.group_id = fmt::format("volador-trial-{}-run-{}", record(self).id, record(self).run_id);
  group.secret = random_token();
  for (const auto& rank : st.ranks) group.ranks.push_back(rank.address);
  group.shm_limit_bytes = st.spec.config->resources.shm_size;
  return group;
}

// Once every rank reported in: answer them all with the group and start.
void start_when_all_reported(Self self) {
  auto& st = self->state;
  for (const auto& rank : st.ranks)
    if (!rank.hello) return;
  const auto group = wire::encode(rank_group(self));
  for (auto& rank : st.ranks) {
    rank.hello->deliver(group);
    rank.hello.reset();
  }
  st.phase = Phase::running;
  drive(self);
}

}  // namespace

void launch(Self self, const std::vector<GrantedAgent>& grant) {
  auto& st = self->state;
  if (st.phase != Phase::waiting_for_slots) return self->send(st.context.pool, release_atom::value, record(self).id);
  st.phase = Phase::launching;
  st.token = random_token();
  st.command_run = {};
  st.spec.record.run_id += 1;
  save_record(self);
  system_log(self, fmt::format("run {} launching on {}{}", record(self).run_id, describe_grant(grant),
                               st.restore_uuid.empty() ? "" : " from checkpoint " + st.restore_uuid));
  RankPlace place;
  place.node_count = static_cast<std::uint32_t>(grant.size());
  for (const auto& granted : grant) {
    self->monitor(granted.agent);
    st.agents.push_back(granted.agent);
    st.agent_ids.push_back(granted.agent_id);
    place.local_size = granted.slots();
    for (place.local_rank = 0; place.local_rank < granted.slots(); ++place.local_rank, ++place.rank) {
      place.slot = granted.slot_indices[place.local_rank];
      st.ranks.emplace_back().agent = granted.agent;
      launch_rank(self, granted.agent, place);
    }
    ++place.node_index;
  }
}

caf::response_promise accept_rank(Self self, const wire::Bytes& bytes, caf::actor worker) {
  auto promise = self->make_response_promise();
  auto hello = wire::decode<wire::RankHello>(bytes);
  if (!hello) {
    promise.deliver(to_caf_error(hello.error()));
    return promise;
  }
  if (!admit_rank(self, Phase::launching, {hello->run_id, hello->rank, hello->token}, std::move(worker), promise))
    return promise;
  self->state.ranks[hello->rank].address = std::move(hello->address);
  start_when_all_reported(self);
  return promise;
}

}  // namespace volador::actors::trial_internal
