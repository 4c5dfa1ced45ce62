// Starting a run: one rank worker per granted slot, and the ranks' rendezvous.
#include <fmt/format.h>

#include "master/trial_run.hpp"
#include "runtime/sandbox/sandbox_spec.hpp"

namespace volador::master {
namespace {

std::string describe_grant(const std::vector<AgentShare>& grant) {
  std::string out;
  for (const auto& g : grant)
    out += fmt::format("{}{} ({} slot{})", out.empty() ? "" : ", ", g.agent_id, g.slot_indices.size(),
                       g.slot_indices.size() == 1 ? "" : "s");
  return out;
}

}  // namespace

// Starts a run on the granted slots: ranks numbered agent by agent, each
// launch with its experiment's identity on its agent. A run whose identities cannot be issued
// restarts (counted: a CA that cannot sign ends the trial after max_restarts).
void TrialRun::handle(const SlotsGranted& event) {
  if (phase_ != Phase::waiting_for_slots) {
    effects_.emplace_back(ReleaseSlots{});
    return;
  }
  phase_ = Phase::launching;
  token_ = setup_.make_secret();
  command_run_ = {};
  setup_.spec.record.run_id += 1;
  save_record();
  system_log(fmt::format("run {} launching on {}{}", setup_.spec.record.run_id, describe_grant(event.agents),
                         restore_uuid_.empty() ? "" : " from checkpoint " + restore_uuid_));
  for (const auto& share : event.agents) agent_ids_.push_back(share.agent_id);
  effects_.emplace_back(WatchAgents{agent_ids_});
  const auto node_count = static_cast<std::uint32_t>(event.agents.size());
  std::vector<LaunchRank> launches;
  std::uint32_t rank = 0;
  for (std::uint32_t node = 0; node < node_count; ++node) {
    const auto& share = event.agents[node];
    for (std::uint32_t local = 0; local < share.slot_indices.size(); ++local, ++rank) {
      auto spec = launch_spec(share, rank, local, node, node_count);
      if (!spec) return restart(fmt::format("launching rank {} failed: {}", rank, spec.error().message), true);
      launches.push_back(LaunchRank{share.agent_id, std::move(*spec)});
    }
  }
  if (starts_with_launch()) {
    launches.front().spec.first_workload = launched_workload();
    if (phase_ == Phase::ended) return;
  }
  for (auto& launch : launches) {
    ranks_.emplace_back();
    effects_.emplace_back(std::move(launch));
  }
}

// A 1-rank trial's launch carries the run's first workload (a command's
// `run`, a native trial's first train or validation with its chain), which
// its rank starts at once: its hello needs no answer first (the group of one
// rank says nothing), and the same request, sent once the hello came, takes
// the rank's answer. Ranks of several need the group before they start.
bool TrialRun::starts_with_launch() const {
  return setup_.spec.config->resources.slots_per_trial == 1 && target_batches_ > 0;
}

// A native trial's is planned with its chain, as every rank that takes a
// launch's workload runs chains; a rank that ignores it (an older worker)
// says so in its hello, and the plan is made again then (send_planned).
std::optional<wire::WorkloadRequest> TrialRun::launched_workload() {
  if (command_) return start_command_run() ? command_run_.request : std::nullopt;
  const auto workload = training::next_workload(policy_, progress_, target_batches_);
  if (workload.kind != training::WorkloadKind::train && workload.kind != training::WorkloadKind::validate)
    return std::nullopt;
  launched_plan_ = plan(workload, true);
  return launched_plan_->request;
}

Result<wire::LaunchSpec> TrialRun::launch_spec(const AgentShare& share, std::uint32_t rank, std::uint32_t local_rank,
                                               std::uint32_t node_index, std::uint32_t node_count) const {
  const auto& r = setup_.spec.record;
  auto identity = setup_.issue_rank_identity(share.agent_id, {r.experiment_id, r.id, r.run_id, rank});
  if (!identity) return fail(Error{identity.error().code, "cannot issue its identity: " + identity.error().message});
  const auto& config = *setup_.spec.config;
  wire::LaunchSpec spec;
  spec.trial_id = r.id;
  spec.experiment_id = r.experiment_id;
  spec.run_id = r.run_id;
  spec.rank = rank;
  spec.local_rank = local_rank;
  spec.local_size = static_cast<std::uint32_t>(share.slot_indices.size());
  spec.node_index = node_index;
  spec.node_count = node_count;
  spec.slot = share.slot_indices[local_rank];
  spec.world_size = config.resources.slots_per_trial;
  spec.entrypoint = config.entrypoint.text;
  spec.hparams_json = r.hparams.dump();
  spec.seed = r.seed;
  spec.global_batch_size = config.global_batch_size;
  spec.kill_grace_period_ms = static_cast<std::uint64_t>(config.resources.kill_grace_period.count());
  spec.memory_limit_bytes = config.resources.memory_limit;
  spec.max_processes = config.resources.max_processes;
  spec.data_json = config.data.dump();
  spec.environment_variables = config.environment.environment_variables;
  for (const auto& mount : config.bind_mounts)
    spec.bind_mounts.push_back({mount.host_path, mount.container_path, mount.read_only});
  spec.shm_size_bytes = config.resources.shm_size.value_or(0);
  spec.checkpoint_folder = setup_.spec.store->root().string();
  spec.image = config.environment.image;
  spec.force_pull_image = config.environment.force_pull_image;
  if (const auto& auth = config.environment.registry_auth)
    spec.registry_auth = wire::RegistryLogin{auth->username, auth->password, auth->serveraddress};
  spec.archive = *setup_.spec.archive;
  spec.master_host = setup_.master_host;
  spec.master_port = setup_.master_port;
  spec.token = token_;
  spec.exit_carries_output = true;  // the trial actor journals WorkerExit.output before it takes the exit
  spec.rank_certificate = std::move(identity->certificate);
  spec.rank_private_key = std::move(identity->private_key);
  if (!restore_uuid_.empty())
    if (auto path = setup_.spec.store->path(restore_uuid_)) spec.restore_path = path->string();
  return spec;
}

void TrialRun::handle(const LaunchFailed& event) {
  if (event.run_id != setup_.spec.record.run_id || phase_ != Phase::launching) return;
  if (event.agent_refuses_trials)
    return restart(fmt::format("launching rank {} was refused: {}", event.rank, event.message), false);
  restart(fmt::format("launching rank {} failed: {}", event.rank, event.message), true);
}

// A rank's hello: answered with the group once every rank has reported in.
// A rank says hello again when its link dropped while it waited: the repeat
// replaces its first hello, or gets the group of a run that started meanwhile.
void TrialRun::handle(const RankHelloed& event) {
  const auto& hello = event.hello;
  if (phase_ == Phase::running || phase_ == Phase::stopping)
    return relink_rank(hello.run_id, hello.rank, hello.token, std::nullopt, true);
  if (phase_ == Phase::launching && is_current_rank(hello.run_id, hello.rank, hello.token))
    ranks_[hello.rank].reported = false;
  if (!admit_rank(Phase::launching, hello.run_id, hello.rank, hello.token)) return;
  ranks_[hello.rank].address = hello.address;
  ranks_[hello.rank].runs_chains = hello.runs_chains;
  start_when_all_reported();
}

// Once every rank reported in: answer them all with the group and start.
void TrialRun::start_when_all_reported() {
  if (!std::ranges::all_of(ranks_, &Rank::reported)) return;
  wire::RankGroup group;
  group.group_id = fmt::format("volador-trial-{}-run-{}", setup_.spec.record.id, setup_.spec.record.run_id);
  group.secret = setup_.make_secret();
  for (auto& rank : ranks_) {
    group.ranks.push_back(rank.address);
    rank.reported = false;
  }
  group.shm_limit_bytes = setup_.spec.config->resources.shm_size.value_or(sandbox::kDefaultShmBytes);
  group_ = group;
  effects_.emplace_back(AnswerHellos{std::move(group)});
  phase_ = Phase::running;
  drive();
}

}  // namespace volador::master
