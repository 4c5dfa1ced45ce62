#include "actors/trial_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <random>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

using Self = caf::stateful_actor<TrialState>*;
using Phase = TrialState::Phase;

constexpr auto kLaunchTimeout = std::chrono::seconds(120);
// A workload is bounded by the trial's own code; rank death is seen through
// monitors, so this only guards against a hung, still-connected worker.
constexpr auto kWorkloadTimeout = std::chrono::seconds(24 * 3600);

std::string random_token() {
  std::random_device device;
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:08x}", device());
  return token;
}

void journal_status(Self self, const Status& status, const char* what) {
  if (!status) spdlog::error("trial {}: journaling {} failed: {}", self->state.spec.record.id, what, status.error().message);
}

// A line in the trial's log from the system itself (launches, failures).
void system_log(Self self, const std::string& text) {
  storage::LogLine line{self->state.spec.record.id, 0, now_ms(), "system", text};
  auto r = self->state.context.journal->append_logs(line.trial_id, {line});
  if (!r) spdlog::error("trial {}: journaling a log line failed: {}", line.trial_id, r.error().message);
}

void save_record(Self self) { journal_status(self, self->state.context.journal->put_trial(self->state.spec.record), "its record"); }

void end_trial(Self self, RunState state, const std::string& why) {
  auto& st = self->state;
  if (st.phase == Phase::ended) return;
  if (state == RunState::error && st.agent) self->send(st.agent, kill_atom::value, st.spec.record.id);
  st.phase = Phase::ended;
  st.spec.record.state = state;
  st.spec.record.error_message = why;
  st.spec.record.ended_at_ms = now_ms();
  save_record(self);
  if (!why.empty()) system_log(self, why);
  self->send(st.context.pool, release_atom::value, st.spec.record.id);
  self->send(st.context.gateway, detach_atom::value, st.spec.record.id);
  self->send(st.experiment, trial_ended_atom::value, st.spec.record.request_id, std::string(to_string(state)));
  self->quit();
}

wire::LaunchSpec launch_spec(Self self) {
  auto& st = self->state;
  const auto& record = st.spec.record;
  wire::LaunchSpec spec;
  spec.trial_id = record.id;
  spec.experiment_id = record.experiment_id;
  spec.run_id = record.run_id;
  spec.rank = 0;
  spec.world_size = st.spec.config->resources.slots_per_trial;
  spec.entrypoint = st.spec.config->entrypoint;
  spec.hparams_json = record.hparams.dump();
  spec.seed = record.seed;
  spec.global_batch_size = st.spec.config->global_batch_size;
  spec.data_json = st.spec.config->data.dump();
  spec.environment_variables = st.spec.config->environment.environment_variables;
  spec.archive = *st.spec.archive;
  spec.master_host = st.context.host;
  spec.master_port = st.context.port;
  spec.token = st.token;
  return spec;
}

void journal_metrics(Self self, storage::MetricKind kind, const MetricMap& metrics) {
  storage::MetricRecord record{self->state.spec.record.id, kind, self->state.progress.batches_trained, metrics, now_ms()};
  journal_status(self, self->state.context.journal->append_metrics(record), "metrics");
}

void drive(Self self);

// Applies a finished train/validate workload; false when the trial failed.
bool complete_workload(Self self, const training::Workload& workload, const wire::WorkloadResult& result) {
  auto& st = self->state;
  if (!result.error_message.empty()) {
    end_trial(self, RunState::error, "trial code failed: " + result.error_message);
    return false;
  }
  st.progress = training::record_completed(st.progress, workload);
  st.spec.record.batches_trained = st.progress.batches_trained;
  if (workload.kind == training::WorkloadKind::train) {
    journal_metrics(self, storage::MetricKind::training, result.metrics);
    save_record(self);
    return true;
  }
  journal_metrics(self, storage::MetricKind::validation, result.metrics);
  // Every validation goes to the searcher: periodic ones feed goals and early stopping.
  const auto& metric = st.spec.config->searcher.metric;
  auto it = result.metrics.find(metric);
  if (it == result.metrics.end()) {
    std::string reported;
    for (const auto& [name, value] : result.metrics) reported += (reported.empty() ? "" : ", ") + name;
    end_trial(self, RunState::error,
              "validation did not report the searcher metric '" + metric + "' (reported: " + reported + ")");
    return false;
  }
  self->send(st.experiment, validated_atom::value, st.spec.record.request_id, it->second, st.progress.batches_trained);
  return true;
}

void run_workload(Self self, const training::Workload& workload) {
  auto& st = self->state;
  wire::WorkloadRequest request{
      workload.kind == training::WorkloadKind::train ? wire::WorkloadKind::train : wire::WorkloadKind::validate,
      workload.start_batch, workload.batches};
  st.workload_in_flight = true;
  self->request(st.rank, kWorkloadTimeout, workload_atom::value, wire::encode(request))
      .then(
          [=](const wire::Bytes& bytes) {
            self->state.workload_in_flight = false;
            if (self->state.phase == Phase::ended) return;
            auto result = wire::decode<wire::WorkloadResult>(bytes);
            if (!result) return end_trial(self, RunState::error, result.error().message);
            if (complete_workload(self, workload, *result)) drive(self);
          },
          [=](const caf::error& error) {
            self->state.workload_in_flight = false;
            // A rank that died is reported by its agent with the exit status.
            if (self->state.phase == Phase::running)
              spdlog::warn("trial {}: workload failed: {}", self->state.spec.record.id, from_caf_error(error).message);
          });
}

void shut_down_rank(Self self) {
  self->state.phase = Phase::closing;
  self->send(self->state.rank, shutdown_atom::value);
  self->state.rank = nullptr;  // lets the worker's actor system shut down without waiting for us
}

void drive(Self self) {
  auto& st = self->state;
  if (st.phase != Phase::running || st.workload_in_flight || st.target_batches == 0) return;
  for (;;) {
    auto workload = training::next_workload(st.policy, st.progress, st.target_batches);
    switch (workload.kind) {
      case training::WorkloadKind::done:
        if (st.close_requested) shut_down_rank(self);
        return;
      case training::WorkloadKind::checkpoint:
        // Checkpoint storage arrives with the checkpoint issue; until then the
        // plan's checkpoint points are passed without saving anything.
        st.progress = training::record_completed(st.progress, workload);
        continue;
      default:
        return run_workload(self, workload);
    }
  }
}

void launch(Self self, caf::actor agent, const std::string& agent_id) {
  auto& st = self->state;
  st.phase = Phase::launching;
  st.agent = agent;
  st.token = random_token();
  st.spec.record.run_id += 1;
  save_record(self);
  self->monitor(agent);
  system_log(self, fmt::format("run {} launching on agent {}", st.spec.record.run_id, agent_id));
  self->request(agent, kLaunchTimeout, launch_atom::value, wire::encode(launch_spec(self)), caf::actor_cast<caf::actor>(self))
      .then([](bool) {},
            [=](const caf::error& error) {
              end_trial(self, RunState::error, "launching the rank worker failed: " + from_caf_error(error).message);
            });
}

caf::result<bool> accept_rank(Self self, const wire::Bytes& bytes, caf::actor rank) {
  auto& st = self->state;
  auto hello = wire::decode<wire::RankHello>(bytes);
  if (!hello) return to_caf_error(hello.error());
  if (st.phase != Phase::launching || hello->run_id != st.spec.record.run_id || hello->token != st.token)
    return to_caf_error(Error::invalid_argument("rank worker for trial " + std::to_string(hello->trial_id) + " run " +
                                                std::to_string(hello->run_id) + " is not expected (stale run or bad token)"));
  st.rank = rank;
  st.phase = Phase::running;
  self->monitor(rank);
  drive(self);
  return true;
}

void on_worker_exit(Self self, const wire::Bytes& bytes) {
  auto exit = wire::decode<wire::WorkerExit>(bytes);
  auto& st = self->state;
  if (!exit || exit->run_id != st.spec.record.run_id) return;
  if (st.phase == Phase::closing && exit->exit_code == 0) return end_trial(self, RunState::completed, "");
  std::string why = exit->signal != 0 ? fmt::format("rank worker was killed by signal {}", exit->signal)
                                      : fmt::format("rank worker exited with code {}", exit->exit_code);
  if (!exit->message.empty()) why += ": " + exit->message;
  end_trial(self, RunState::error, why);
}

void on_logs(Self self, const wire::Bytes& bytes) {
  auto logs = wire::decode<wire::LogLines>(bytes);
  if (!logs || logs->run_id != self->state.spec.record.run_id) return;
  std::vector<storage::LogLine> lines;
  for (auto& entry : logs->lines)
    lines.push_back({logs->trial_id, 0, entry.time_ms, std::move(entry.stream), std::move(entry.text)});
  auto r = self->state.context.journal->append_logs(logs->trial_id, std::move(lines));
  if (!r) spdlog::error("trial {}: journaling logs failed: {}", logs->trial_id, r.error().message);
}

}  // namespace

caf::behavior trial_actor(Self self, MasterContext context, TrialSpec spec, caf::actor experiment) {
  auto& st = self->state;
  st.context = std::move(context);
  st.spec = std::move(spec);
  st.experiment = std::move(experiment);
  st.policy = training::make_schedule_policy(*st.spec.config);
  self->send(st.context.gateway, attach_atom::value, st.spec.record.id, caf::actor_cast<caf::actor>(self));
  self->set_down_handler([=](const caf::down_msg& down) {
    if (down.source == self->state.agent.address())
      end_trial(self, RunState::error, "lost the agent running this trial");
    // A rank's death is reported by its agent, which knows the exit status.
  });
  return {
      [=](train_to_atom, std::uint64_t batches) {
        auto& st = self->state;
        st.target_batches = batches;
        if (st.phase == Phase::idle) {
          st.phase = Phase::waiting_for_slots;
          self->send(st.context.pool, request_slots_atom::value, st.spec.record.id,
                     st.spec.config->resources.slots_per_trial, caf::actor_cast<caf::actor>(self));
        }
        drive(self);
      },
      [=](close_atom) {
        auto& st = self->state;
        st.close_requested = true;
        if (st.phase == Phase::idle || st.phase == Phase::waiting_for_slots)
          return end_trial(self, RunState::completed, "");
        drive(self);
      },
      [=](granted_atom, caf::actor agent, const std::string& agent_id) { launch(self, std::move(agent), agent_id); },
      [=](hello_atom, const wire::Bytes& bytes, caf::actor rank) { return accept_rank(self, bytes, std::move(rank)); },
      [=](exited_atom, const wire::Bytes& bytes) { on_worker_exit(self, bytes); },
      [=](log_atom, const wire::Bytes& bytes) { on_logs(self, bytes); },
  };
}

}  // namespace volador::actors
