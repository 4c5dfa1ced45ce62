#include "actors/trial_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <random>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/master_outage.hpp"
#include "actors/trial_resume.hpp"
#include "runtime/script/entrypoint.hpp"
#include "runtime/wire/codec.hpp"
#include "storage/checkpoints/uuid.hpp"

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

const storage::TrialRecord& record(Self self) { return self->state.spec.record; }

void journal_status(Self self, const Status& status, const char* what) {
  if (!status) spdlog::error("trial {}: journaling {} failed: {}", record(self).id, what, status.error().message);
}

// A line in the trial's log from the system itself (launches, failures).
void system_log(Self self, const std::string& text) {
  storage::LogLine line{record(self).id, 0, now_ms(), "system", text};
  auto r = self->state.context.journal->append_logs(line.trial_id, {line});
  if (!r) spdlog::error("trial {}: journaling a log line failed: {}", line.trial_id, r.error().message);
}

void save_record(Self self) { journal_status(self, self->state.context.journal->put_trial(record(self)), "its record"); }

// Ends the current run: kills what is left of its workers and frees the slots.
void forget_run(Self self) {
  auto& st = self->state;
  for (const auto& agent : st.agents) {
    self->demonitor(agent);
    self->send(agent, kill_atom::value, record(self).id);
  }
  st.agents.clear();
  st.agent_ids.clear();
  st.ranks.clear();
  st.workload_in_flight = false;
  st.spec.record.run_agents.clear();  // no live run: a restarted master will not look for one
  st.spec.record.run_token.clear();
  self->send(st.context.pool, release_atom::value, record(self).id);
}

void end_trial(Self self, RunState state, const std::string& why) {
  auto& st = self->state;
  if (st.phase == Phase::ended) return;
  forget_run(self);
  st.phase = Phase::ended;
  st.spec.record.state = state;
  st.spec.record.error_message = why;
  st.spec.record.ended_at_ms = now_ms();
  save_record(self);
  if (!why.empty()) system_log(self, why);
  self->send(st.context.gateway, detach_atom::value, record(self).id);
  self->send(st.experiment, trial_ended_atom::value, record(self).request_id, std::string(to_string(state)));
  self->quit();
}

void request_slots(Self self) {
  auto& st = self->state;
  st.phase = Phase::waiting_for_slots;
  self->send(st.context.pool, request_slots_atom::value, record(self).id, st.spec.config->resources.slots_per_trial,
             caf::actor_cast<caf::actor>(self));
}

// Whether `validation` beats every earlier one of the trial on the searcher
// metric (the first one always does); remembers it if so.
bool is_new_best(TrialState& st, const MetricMap& validation) {
  const auto& searcher = st.spec.config->searcher;
  auto it = validation.find(searcher.metric);
  if (it == validation.end()) return false;
  const double value = it->second;
  const bool better = !st.best_metric || (searcher.smaller_is_better ? value < *st.best_metric : value > *st.best_metric);
  if (better) st.best_metric = value;
  return better;
}

// Picks the checkpoint to resume from and rewinds progress to it.
bool rewind_to_resume_point(Self self) {
  auto& st = self->state;
  auto point = prepare_resume(*st.context.journal, *st.spec.store, record(self).id);
  if (!point) {
    end_trial(self, RunState::error, "cannot find where to resume: " + point.error().message);
    return false;
  }
  for (const auto& note : point->notes) system_log(self, note);
  st.progress = point->progress;
  st.last_validation = std::move(point->last_validation);
  st.best_metric.reset();
  for (const auto& validation : point->validations) is_new_best(st, validation);
  st.restore_uuid = point->checkpoint ? point->checkpoint->uuid : "";
  st.spec.record.batches_trained = st.progress.batches_trained;
  // The validation at the resume point may not have reached the searcher
  // before a master crash; the experiment ignores it if it had.
  if (auto it = st.last_validation.find(st.spec.config->searcher.metric); it != st.last_validation.end())
    self->send(st.experiment, validated_atom::value, record(self).request_id, it->second,
               static_cast<std::uint64_t>(st.progress.last_validation_at));
  return true;
}

// Starts a new run after a failure: from the latest good checkpoint.
void restart(Self self, const std::string& why, bool counts_as_restart) {
  auto& st = self->state;
  const auto max_restarts = st.spec.config->max_restarts;
  if (counts_as_restart && record(self).restarts >= max_restarts)
    return end_trial(self, RunState::error, why + (max_restarts > 0 ? " (max_restarts reached)" : ""));
  forget_run(self);
  if (counts_as_restart) st.spec.record.restarts += 1;
  if (!rewind_to_resume_point(self)) return;
  system_log(self, fmt::format("{}; restarting (restart {} of {}) from {}", why, record(self).restarts, max_restarts,
                               st.restore_uuid.empty() ? "the beginning" : "checkpoint " + st.restore_uuid));
  save_record(self);
  if (st.pause_requested) {
    st.phase = Phase::paused;
    return;
  }
  request_slots(self);
}

// Where one rank sits: its global rank, and its place on its agent and among the agents.
struct RankPlace {
  std::uint32_t rank = 0;
  std::uint32_t local_rank = 0;
  std::uint32_t local_size = 1;
  std::uint32_t node_index = 0;
  std::uint32_t node_count = 1;
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

void drive(Self self);

void journal_metrics_at(Self self, storage::MetricKind kind, std::uint64_t batches, const MetricMap& metrics) {
  storage::MetricRecord m{record(self).id, kind, batches, metrics, now_ms()};
  journal_status(self, self->state.context.journal->append_metrics(m), "metrics");
}

void journal_metrics(Self self, storage::MetricKind kind, const MetricMap& metrics) {
  journal_metrics_at(self, kind, self->state.progress.batches_trained, metrics);
}

std::string metric_names(const MetricMap& metrics) {
  std::string out;
  for (const auto& [name, value] : metrics) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// Applies a finished train/validate workload; false when the trial failed.
bool complete_workload(Self self, const training::Workload& workload, const wire::WorkloadResult& result) {
  auto& st = self->state;
  if (!result.error_message.empty()) {
    restart(self, "trial code failed: " + result.error_message, true);
    return false;
  }
  const bool validation = workload.kind == training::WorkloadKind::validate;
  st.progress = training::record_completed(st.progress, workload, validation && is_new_best(st, result.metrics));
  st.spec.record.batches_trained = st.progress.batches_trained;
  if (!validation) {
    // One batch: a restarted master tells from the record whether the metrics are in.
    storage::MetricRecord metrics{record(self).id, storage::MetricKind::training, st.progress.batches_trained,
                                  result.metrics, now_ms()};
    auto committed = st.context.journal->commit(storage::JournalBatch().append_metrics(metrics).put_trial(record(self)));
    journal_status(self, committed, "training metrics");
    return true;
  }
  journal_metrics(self, storage::MetricKind::validation, result.metrics);
  st.last_validation = result.metrics;
  // Every validation goes to the searcher: periodic ones feed goals and early stopping.
  const auto& metric = st.spec.config->searcher.metric;
  auto it = result.metrics.find(metric);
  if (it == result.metrics.end()) {
    end_trial(self, RunState::error,
              "validation did not report the searcher metric '" + metric + "' (reported: " +
                  metric_names(result.metrics) + ")");
    return false;
  }
  self->send(st.experiment, validated_atom::value, record(self).request_id, it->second, st.progress.batches_trained);
  return true;
}

// The answers of the ranks a workload went to, until all have answered.
struct WorkloadAnswers {
  explicit WorkloadAnswers(std::size_t ranks) : results(ranks) {}
  std::vector<wire::WorkloadResult> results;
  std::size_t missing = results.size();
  bool done = false;  // answered early: a command failed on one rank
};

// What the trial makes of every rank's answer: rank 0's result (its metrics
// are already averaged over ranks), or the first rank's error.
wire::WorkloadResult combine(std::vector<wire::WorkloadResult> results) {
  for (std::size_t r = 0; r < results.size(); ++r)
    if (!results[r].error_message.empty()) {
      if (results.size() > 1) results[r].error_message = fmt::format("rank {}: {}", r, results[r].error_message);
      return std::move(results[r]);
    }
  return std::move(results.front());
}

// Sends `request` to the first `ranks` ranks; `done` gets the combined result
// once all have answered, or a `run`'s first error at once (its peers may
// wait on the failed rank for long: torch.distributed's timeouts are long).
template <class Done>
void send_workload(Self self, const wire::WorkloadRequest& request, std::size_t ranks, Done done) {
  const bool fail_fast = request.kind == wire::WorkloadKind::run && ranks > 1;
  self->state.workload_in_flight = true;
  const auto run_id = record(self).run_id;
  auto answers = std::make_shared<WorkloadAnswers>(ranks);
  for (std::size_t r = 0; r < ranks; ++r) {
    self->request(self->state.ranks[r].worker, kWorkloadTimeout, workload_atom::value, wire::encode(request))
        .then(
            [=](const wire::Bytes& bytes) {
              if (self->state.phase == Phase::ended || record(self).run_id != run_id || answers->done) return;
              auto result = wire::decode<wire::WorkloadResult>(bytes);
              if (!result) return end_trial(self, RunState::error, result.error().message);
              if (fail_fast && !result->error_message.empty()) {
                answers->done = true;
                self->state.workload_in_flight = false;
                result->error_message = fmt::format("rank {}: {}", r, result->error_message);
                return done(std::move(*result));
              }
              answers->results[r] = std::move(*result);
              if (--answers->missing > 0) return;
              self->state.workload_in_flight = false;
              done(combine(std::move(answers->results)));
            },
            [=](const caf::error& error) {
              // A rank that died is reported by its agent with the exit status.
              if (self->state.phase == Phase::running && record(self).run_id == run_id)
                spdlog::warn("trial {}: workload failed on rank {}: {}", record(self).id, r, from_caf_error(error).message);
            });
  }
}

void run_workload(Self self, const training::Workload& workload) {
  const auto kind = workload.kind == training::WorkloadKind::train ? wire::WorkloadKind::train : wire::WorkloadKind::validate;
  const auto all_ranks = self->state.ranks.size();
  send_workload(self, {kind, workload.start_batch, workload.batches, "", ""}, all_ranks, [=](const wire::WorkloadResult& result) {
    if (complete_workload(self, workload, result)) drive(self);
  });
}

// Journals a committed checkpoint and tells the experiment (which applies GC).
void register_checkpoint(Self self, const std::string& uuid, std::uint64_t total_bytes) {
  auto& st = self->state;
  const bool validated_here = st.progress.last_validation_at == static_cast<std::int64_t>(st.progress.batches_trained);
  storage::CheckpointRecord checkpoint{uuid, record(self).experiment_id, record(self).id, st.progress.batches_trained,
                                       record(self).run_id, validated_here ? st.last_validation : MetricMap{},
                                       storage::CheckpointState::active, total_bytes, now_ms()};
  st.progress.last_checkpoint_at = static_cast<std::int64_t>(st.progress.batches_trained);
  auto committed = st.context.journal->commit(storage::JournalBatch().put_checkpoint(checkpoint).put_trial(record(self)));
  journal_status(self, committed, "a checkpoint");
  self->send(st.experiment, checkpointed_atom::value, record(self).request_id);
}

void run_checkpoint(Self self) {
  auto& st = self->state;
  auto uuid = checkpoints::new_uuid();
  auto pending = uuid ? st.spec.store->begin(*uuid) : Result<checkpoints::PendingCheckpoint>(fail(uuid.error()));
  if (!pending) return end_trial(self, RunState::error, "checkpoint failed: " + pending.error().message);
  const auto batches = st.progress.batches_trained;
  // Every rank holds the same model: rank 0 alone writes it.
  send_workload(self, {wire::WorkloadKind::checkpoint, batches, 0, pending->dir.string(), ""}, 1,
                [=, pending = *pending](const wire::WorkloadResult& result) {
                  auto& store = *self->state.spec.store;
                  if (!result.error_message.empty()) {
                    (void)store.abort(pending);
                    return restart(self, "trial code failed: " + result.error_message, true);
                  }
                  auto manifest = store.commit(pending);
                  if (!manifest) return end_trial(self, RunState::error, "checkpoint failed: " + manifest.error().message);
                  register_checkpoint(self, pending.uuid, manifest->total_bytes);
                  drive(self);
                });
}

void stop_ranks(Self self) {
  self->state.phase = Phase::stopping;
  for (auto& rank : self->state.ranks) {
    self->send(rank.worker, shutdown_atom::value);
    rank.worker = nullptr;  // lets the worker's actor system shut down without waiting for us
  }
}

// --- command entrypoints ---

// The command ran to completion: its latest metrics are the validation at the searcher's target.
void finish_command(Self self) {
  auto& st = self->state;
  const auto& metric = st.spec.config->searcher.metric;
  auto& final_metrics = st.command_run.reported;
  auto it = final_metrics.find(metric);
  if (it == final_metrics.end())
    return end_trial(self, RunState::error,
                     "the command finished without reporting the searcher metric '" + metric + "' (reported: " +
                         metric_names(final_metrics) + "); print a line such as '" + metric +
                         "=0.9' or call volador.reporting.report_final_result()");
  st.command_run.finished = true;
  st.progress.batches_trained = st.target_batches;
  st.progress.last_validation_at = static_cast<std::int64_t>(st.target_batches);
  st.spec.record.batches_trained = st.target_batches;
  journal_metrics(self, storage::MetricKind::validation, final_metrics);
  st.last_validation = final_metrics;
  is_new_best(st, final_metrics);
  save_record(self);
  system_log(self, fmt::format("the command finished: {} = {}", metric, it->second));
  self->send(st.experiment, validated_atom::value, record(self).request_id, it->second, st.target_batches);
}

void run_command(Self self) {
  auto& st = self->state;
  const wire::WorkloadRequest request{wire::WorkloadKind::run, 0, st.target_batches, "",
                                      st.spec.config->metrics_collector.format};
  send_workload(self, request, st.ranks.size(), [=](const wire::WorkloadResult& result) {
    if (!result.error_message.empty()) return restart(self, "the command failed: " + result.error_message, true);
    finish_command(self);
    drive(self);
  });
}

void drive_command(Self self) {
  auto& st = self->state;
  if (st.pause_requested || st.close_requested) return stop_ranks(self);  // nothing to checkpoint
  if (st.target_batches == 0 || st.workload_in_flight) return;
  if (!st.command_run.finished) return run_command(self);
  // Done, and the searcher asks for more: the command's result does not change.
  if (st.target_batches > st.progress.batches_trained) finish_command(self);
}

// One report of rank 0's command, journaled as it comes.
void on_report(Self self, const wire::Bytes& bytes) {
  auto report = wire::decode<wire::MetricReport>(bytes);
  auto& st = self->state;
  if (!report || !st.command || report->run_id != record(self).run_id || report->rank != 0 || st.phase != Phase::running)
    return;
  auto& run = st.command_run;
  const auto& metric = st.spec.config->searcher.metric;
  if (report->kind == wire::ReportKind::final_result) {
    run.reported[metric] = report->value;  // journaled at the target once the command exits
    return;
  }
  const auto batches = report->step ? *report->step : ++run.reports;
  if (report->kind == wire::ReportKind::loss)
    return journal_metrics_at(self, storage::MetricKind::training, batches, {{"loss", report->value}});
  MetricMap metrics = report->kind == wire::ReportKind::intermediate ? MetricMap{{metric, report->value}}
                                                                     : std::move(report->metrics);
  journal_metrics_at(self, storage::MetricKind::validation, batches, metrics);
  for (const auto& [name, value] : metrics) run.reported[name] = value;
  // Intermediate results feed goals and early stopping; the target belongs to the final one.
  auto it = metrics.find(metric);
  if (it != metrics.end() && batches > run.forwarded_at && batches < st.target_batches) {
    run.forwarded_at = batches;
    self->send(st.experiment, validated_atom::value, record(self).request_id, it->second, batches);
  }
}

bool checkpointed_here(const TrialState& st) {
  return st.progress.last_checkpoint_at == static_cast<std::int64_t>(st.progress.batches_trained);
}

void drive(Self self) {
  auto& st = self->state;
  if (st.phase != Phase::running) return;
  if (st.command) return drive_command(self);  // stops even while the command runs
  if (st.workload_in_flight) return;
  // Closed (even before its target: early stopping, a goal reached) or
  // paused: take a final checkpoint where it stands, then stop the rank.
  if (st.pause_requested || st.close_requested) {
    if (!checkpointed_here(st) && st.progress.batches_trained > 0) return run_checkpoint(self);
    return stop_ranks(self);
  }
  if (st.target_batches == 0) return;
  auto workload = training::next_workload(st.policy, st.progress, st.target_batches);
  switch (workload.kind) {
    case training::WorkloadKind::done:
      return;
    case training::WorkloadKind::checkpoint:
      return run_checkpoint(self);
    default:
      return run_workload(self, workload);
  }
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
  for (const auto& g : grant) out += fmt::format("{}{} ({} slot{})", out.empty() ? "" : ", ", g.agent_id, g.slots, g.slots == 1 ? "" : "s");
  return out;
}

// Starts a run on the granted slots: ranks numbered agent by agent.
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
    place.local_size = granted.slots;
    for (place.local_rank = 0; place.local_rank < granted.slots; ++place.local_rank, ++place.rank) {
      st.ranks.push_back(RankSlot{.agent = granted.agent});
      launch_rank(self, granted.agent, place);
    }
    ++place.node_index;
  }
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
  // From now on a restarted master looks for this run before restarting it.
  st.spec.record.run_token = st.token;
  st.spec.record.run_agents = st.agent_ids;
  save_record(self);
  st.phase = Phase::running;
  drive(self);
}

caf::response_promise accept_rank(Self self, const wire::Bytes& bytes, caf::actor worker) {
  auto& st = self->state;
  auto promise = self->make_response_promise();
  auto hello = wire::decode<wire::RankHello>(bytes);
  if (!hello) {
    promise.deliver(to_caf_error(hello.error()));
    return promise;
  }
  if (st.phase != Phase::launching || hello->run_id != record(self).run_id || hello->token != st.token ||
      hello->rank >= st.ranks.size() || st.ranks[hello->rank].hello) {
    promise.deliver(to_caf_error(Error::invalid_argument(
        fmt::format("rank {} of trial {} run {} is not expected (stale run, bad token or a second hello)", hello->rank,
                    hello->trial_id, hello->run_id))));
    return promise;
  }
  auto& rank = st.ranks[hello->rank];
  rank.worker = std::move(worker);
  rank.address = std::move(hello->address);
  rank.hello = promise;
  start_when_all_reported(self);
  return promise;
}

// After a rank stopped on request: paused (slots freed) or completed.
void on_rank_stopped(Self self) {
  auto& st = self->state;
  if (!st.pause_requested) return end_trial(self, RunState::completed, "");
  forget_run(self);
  st.phase = Phase::paused;
  st.restore_uuid.clear();
  st.spec.record.state = RunState::paused;
  save_record(self);
  system_log(self, fmt::format("paused after {} batches", st.progress.batches_trained));
}

bool run_is_live(Phase phase) { return phase == Phase::launching || phase == Phase::running || phase == Phase::stopping; }

void on_worker_exit(Self self, const wire::Bytes& bytes) {
  auto exit = wire::decode<wire::WorkerExit>(bytes);
  auto& st = self->state;
  if (!exit || exit->run_id != record(self).run_id || !run_is_live(st.phase) || exit->rank >= st.ranks.size()) return;
  if (st.phase == Phase::stopping && exit->exit_code == 0) {
    st.ranks[exit->rank].stopped = true;
    if (std::ranges::all_of(st.ranks, &RankSlot::stopped)) on_rank_stopped(self);
    return;
  }
  const auto who = st.ranks.size() > 1 ? fmt::format("rank {} worker", exit->rank) : std::string("rank worker");
  std::string why = exit->signal != 0 ? fmt::format("{} was killed by signal {}", who, exit->signal)
                                      : fmt::format("{} exited with code {}", who, exit->exit_code);
  if (!exit->message.empty()) why += ": " + exit->message;
  restart(self, why, true);
}

void on_logs(Self self, const wire::Bytes& bytes) {
  auto logs = wire::decode<wire::LogLines>(bytes);
  if (!logs || logs->run_id != record(self).run_id) return;
  std::vector<storage::LogLine> lines;
  for (auto& entry : logs->lines)
    lines.push_back({logs->trial_id, 0, entry.time_ms, std::move(entry.stream), std::move(entry.text)});
  auto r = self->state.context.journal->append_logs(logs->trial_id, std::move(lines));
  if (!r) spdlog::error("trial {}: journaling logs failed: {}", logs->trial_id, r.error().message);
}

void on_pause(Self self) {
  auto& st = self->state;
  st.pause_requested = true;
  switch (st.phase) {
    case Phase::idle:
    case Phase::waiting_for_slots:
      self->send(st.context.pool, release_atom::value, record(self).id);
      st.phase = Phase::paused;
      st.spec.record.state = RunState::paused;
      save_record(self);
      return;
    default:
      drive(self);  // a running trial checkpoints, then stops; launching ones do once running
  }
}

void on_activate(Self self) {
  auto& st = self->state;
  st.pause_requested = false;
  if (st.phase != Phase::paused) return;
  st.spec.record.state = RunState::active;
  save_record(self);
  if (!rewind_to_resume_point(self)) return;
  if (st.target_batches > 0) request_slots(self);
  else st.phase = Phase::idle;
}


// --- taking a live run back after a master restart ---

constexpr auto kAdoptTimeout = kReattachGrace + std::chrono::seconds(5);

void give_up_reattach(Self self, const std::string& why) {
  auto& st = self->state;
  for (auto& rank : st.ranks)
    if (rank.hello) rank.hello->deliver(to_caf_error(Error::invalid_argument("the trial gave this run up: " + why)));
  restart(self, why, false);
}

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
  const auto workload = as_workload(last->first);
  if (journaled(st, workload, last->second)) return true;
  if (workload.start_batch != st.progress.batches_trained) {
    give_up_reattach(self, fmt::format("the ranks stand at batch {}, the journal at {}", workload.start_batch,
                                       st.progress.batches_trained));
    return false;
  }
  return complete_workload(self, workload, last->second);
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
    for (std::uint32_t local = 0; local < granted.slots && rank < st.ranks.size(); ++local) st.ranks[rank++].agent = granted.agent;
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

caf::response_promise accept_rejoin(Self self, const wire::Bytes& bytes, caf::actor worker) {
  auto& st = self->state;
  auto promise = self->make_response_promise();
  auto rejoin = wire::decode<wire::RankRejoin>(bytes);
  if (!rejoin) {
    promise.deliver(to_caf_error(rejoin.error()));
    return promise;
  }
  if (st.phase != Phase::reattaching || rejoin->run_id != record(self).run_id || rejoin->token != st.token ||
      rejoin->rank >= st.ranks.size() || st.ranks[rejoin->rank].hello) {
    promise.deliver(to_caf_error(Error::invalid_argument(
        fmt::format("rank {} of trial {} run {} cannot rejoin (the run was given up, a bad token or a second rejoin)",
                    rejoin->rank, rejoin->trial_id, rejoin->run_id))));
    return promise;
  }
  auto& rank = st.ranks[rejoin->rank];
  rank.worker = std::move(worker);
  rank.last = std::move(rejoin->last);
  rank.hello = promise;
  finish_reattach(self);
  return promise;
}

// What a recovered trial does first: reattach its live run, or (a command's
// run, which cannot be reattached) give its workers up.
void recover_run(Self self) {
  auto& st = self->state;
  if (record(self).state != RunState::active || record(self).run_agents.empty()) return;
  if (!st.command) return begin_reattach(self);
  forget_run(self);
  save_record(self);
}

}  // namespace

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
      [=](reattach_timeout_atom, std::uint32_t run_id) {
        if (self->state.phase == Phase::reattaching && record(self).run_id == run_id)
          give_up_reattach(self, fmt::format("run {} did not report back within {} s of the master restart", run_id,
                                             kReattachGrace.count()));
      },
      [=](exited_atom, const wire::Bytes& bytes) { on_worker_exit(self, bytes); },
      [=](log_atom, const wire::Bytes& bytes) { on_logs(self, bytes); },
      [=](report_atom, const wire::Bytes& bytes) { on_report(self, bytes); },
  };
}

}  // namespace volador::actors
