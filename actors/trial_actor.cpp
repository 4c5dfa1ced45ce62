#include "actors/trial_actor.hpp"


#include <caf/all.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/peer_check.hpp"
#include "actors/resource_pool_actor.hpp"
#include "master/image_admission.hpp"
#include "master/pool_admission.hpp"
#include "runtime/core/overloaded.hpp"
#include "runtime/core/random_bytes.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

using Self = TrialActor::stateful_pointer<TrialState>;

std::string random_secret() { return random_hex(16); }

master::TrialSetup trial_setup(const MasterContext& context, master::TrialSpec spec) {
  return {.spec = std::move(spec),
          .journal = context.journal,
          .master_host = context.host,
          .master_port = context.port,
          .timings = context.timings,
          .clock = system_now_ms,
          .make_secret = random_secret,
          .issue_rank_identity = [identities = context.rank_identities](const std::string& agent_id,
                                                                         const tls::RankName& rank) {
            return identities->for_launch(agent_id, rank);
          }};
}

std::uint64_t trial_id(Self self) { return self->state.run->record().id; }

// How the trial's experiment shares the pool it was admitted to.
scheduling::ExperimentShare share(Self self) {
  const auto& spec = self->state.run->spec();
  return master::experiment_share(spec.record.experiment_id, spec.config->resources, spec.resource_pool);
}

// Whether the sender may act as a rank of this trial's experiment (`what`), else why not.
Status check_rank(Self self, std::string_view what) {
  return master::check_rank_request(current_peer(self), self->state.run->record().experiment_id, what);
}

// Whether the sender is one of the master's own actors (a refusal is logged).
bool from_master(Self self, std::string_view what) { return permitted(master::check_local(current_peer(self), what)); }

// The agents of a grant, remembered by id; their shares for TrialRun.
std::vector<master::AgentShare> offer(Self self, const std::vector<GrantedAgent>& grant) {
  std::vector<master::AgentShare> shares;
  for (const auto& granted : grant) {
    self->state.offered[granted.agent_id] = granted.agent;
    shares.push_back({granted.agent_id, granted.slot_indices});
  }
  return shares;
}

void carry_out(Self self, master::TrialEffects effects);

void feed(Self self, master::TrialEvent event) { carry_out(self, self->state.run->on(std::move(event))); }

template <class Reply>
void deliver_replies(Self self, const Reply& reply) {
  for (auto& rank : self->state.ranks)
    if (rank.reply) std::exchange(rank.reply, std::nullopt)->deliver(reply);
}

// Sends workload number `workload` (an encoded WorkloadRequest) to `rank`; its answer is fed back.
void request_workload(Self self, std::uint64_t workload, const wire::Bytes& request, std::uint32_t rank) {
  if (rank >= self->state.ranks.size()) return;
  self->request(self->state.ranks[rank].worker, self->state.context.timings.workload_timeout, workload_atom::value,
                request)
      .then(
          [=](const wire::Bytes& bytes) {
            auto result = wire::decode<wire::WorkloadResult>(bytes);
            if (!result) result = wire::WorkloadResult{.error_message = "an unreadable answer: " + result.error().message};
            feed(self, master::WorkloadAnswered{workload, rank, std::move(*result)});
          },
          [=](const caf::error& error) {
            // A rank that died is reported by its agent with the exit status,
            // one whose link dropped rejoins.
            if (self->state.run->phase() == master::TrialRun::Phase::running)
              spdlog::warn("trial {}: workload failed on rank {}: {}", trial_id(self), rank,
                           from_caf_error(error).message);
          });
}

void send_workload(Self self, const master::SendWorkload& send) {
  const auto to_rank_0 = wire::encode(send.request);
  const auto to_others = send.ranks > 1 ? wire::encode(master::share_of_rank(send.request, 1)) : to_rank_0;
  for (std::uint32_t rank = 0; rank < send.ranks; ++rank)
    request_workload(self, send.workload, rank == 0 ? to_rank_0 : to_others, rank);
}

void launch_rank(Self self, const master::LaunchRank& launch) {
  const auto run_id = launch.spec.run_id;
  const auto rank = launch.spec.rank;
  self->request(self->state.agents.at(launch.agent_id), self->state.context.timings.launch_timeout,
                launch_atom::value, wire::encode(launch.spec), caf::actor_cast<caf::actor>(self))
      .then(
          [=](const std::string& refusal) {
            if (!refusal.empty()) feed(self, master::LaunchFailed{run_id, rank, refusal, true});
          },
          [=](const caf::error& error) { feed(self, master::LaunchFailed{run_id, rank, from_caf_error(error).message}); });
}

void adopt_run(Self self, const master::AdoptRun& adopt) {
  auto& st = self->state;
  self->request(st.context.pool, st.context.timings.adopt_timeout(), adopt_atom::value, trial_id(self), adopt.run_id,
                adopt.agent_ids, adopt.slots, share(self))
      .then([=](const std::vector<GrantedAgent>& grant) { feed(self, master::RunAdopted{adopt.run_id, offer(self, grant)}); },
            [=](const caf::error& error) {
              feed(self, master::AdoptFailed{adopt.run_id, from_caf_error(error).message});
            });
}

void watch_agents(Self self, const master::WatchAgents& watch) {
  auto& st = self->state;
  for (const auto& id : watch.agent_ids) {
    const auto& agent = st.offered.at(id);
    self->monitor(agent);
    st.agents[id] = agent;
  }
}

// Agents that reported every rank's exit hold nothing of the run: they are not told.
void forget_run(Self self, const master::ForgetRun& forget) {
  auto& st = self->state;
  for (const auto& [id, agent] : st.agents) {
    self->demonitor(agent.address());
    if (!forget.ranks_exited) self->send(agent, kill_atom::value, trial_id(self));
  }
  st.agents.clear();
  st.ranks.clear();
  st.awaiting_journal.clear();  // their ranks are gone
}

// The batch of reports being handled is answered once batch `seq` is written.
void acknowledge_when_journaled(Self self, std::uint64_t seq) {
  auto& st = self->state;
  if (st.acknowledging) st.awaiting_journal.emplace(seq, *std::exchange(st.acknowledging, std::nullopt));
}

// Hands a batch of reports to the journal's writer thread; its answer waits for the write.
void journal_reports(Self self, const master::JournalReports& e) {
  acknowledge_when_journaled(self, e.seq);
  self->state.context.journal->commit_async(e.writes, [trial = TrialActor(self), run_id = e.run_id, seq = e.seq](const Status& written) {
    // As the trial itself: a local sender, which the handler lets through.
    caf::send_as(trial, trial, journaled_atom::value, run_id, seq, written ? std::string() : written.error().message);
  });
}

// Answers the batch of reports being handled, else every copy of batch
// `seq` (and of earlier ones) that waited for its write.
void acknowledge_reports(Self self, std::uint64_t seq) {
  auto& st = self->state;
  if (st.acknowledging) {
    std::exchange(st.acknowledging, std::nullopt)->deliver(seq);
    return;
  }
  const auto written = st.awaiting_journal.upper_bound(seq);
  for (auto it = st.awaiting_journal.begin(); it != written; ++it) it->second.deliver(seq);
  st.awaiting_journal.erase(st.awaiting_journal.begin(), written);
}

void admit_rank(Self self, std::uint32_t rank) {
  auto& ranks = self->state.ranks;
  if (ranks.size() <= rank) ranks.resize(rank + 1);
  ranks[rank] = std::exchange(self->state.reporting, {});
}

void shutdown_ranks(Self self) {
  for (auto& rank : self->state.ranks) {
    if (!rank.worker) continue;  // told already
    caf::anon_send(rank.worker, shutdown_atom::value);
    rank.worker = nullptr;  // lets the worker's actor system shut down without waiting for us
  }
}

void end(Self self, const master::ReportEnded& ended) {
  auto& st = self->state;
  self->send(st.context.gateway, detach_atom::value, trial_id(self));
  self->send(st.experiment, trial_ended_atom::value, ended.request_id, ended.state);
  self->quit();
}

void carry_out(Self self, master::TrialEffects effects) {
  auto& st = self->state;
  const auto id = trial_id(self);
  for (auto& effect : effects)
    std::visit(
        Overloaded{
            [&](const master::RequestSlots& e) {
              self->send(st.context.pool, request_slots_atom::value, id, e.slots, share(self),
                         master::needs_images(self->state.run->spec().config->environment), TrialActor(self));
            },
            [&](const master::ReleaseSlots&) { self->send(st.context.pool, release_atom::value, id); },
            [&](const master::WatchAgents& e) { watch_agents(self, e); },
            [&](const master::ForgetRun& e) { forget_run(self, e); },
            [&](const master::LaunchRank& e) { launch_rank(self, e); },
            [&](const master::AdmitRank& e) { admit_rank(self, e.rank); },
            [&](const master::RefuseRank& e) {
              std::exchange(st.reporting, {}).reply->deliver(to_caf_error(Error::invalid_argument(e.message)));
            },
            [&](const master::AnswerHellos& e) { deliver_replies(self, wire::encode(e.group)); },
            [&](const master::AnswerRejoins& e) {
              if (e.accepted) deliver_replies(self, true);
              else deliver_replies(self, to_caf_error(Error::invalid_argument(e.message)));
            },
            [&](const master::SendWorkload& e) { send_workload(self, e); },
            [&](const master::ResendWorkload& e) { request_workload(self, e.workload, wire::encode(e.request), e.rank); },
            [&](const master::ShutdownRanks&) { shutdown_ranks(self); },
            [&](const master::AdoptRun& e) { adopt_run(self, e); },
            [&](const master::ClaimWorkers& e) {
              for (const auto& [agent_id, agent] : st.agents)
                self->send(agent, adopt_atom::value, id, e.run_id, caf::actor_cast<caf::actor>(self));
            },
            [&](const master::StartReattachTimer& e) {
              self->delayed_send(self, e.after, reattach_timeout_atom::value, e.run_id);
            },
            [&](const master::ReportValidation& e) {
              self->send(st.experiment, validated_atom::value, e.request_id, e.value, e.batches);
            },
            [&](const master::ReportCheckpoint& e) { self->send(st.experiment, checkpointed_atom::value, e.request_id); },
            [&](const master::JournalReports& e) { journal_reports(self, e); },
            [&](const master::AcknowledgeReports& e) { acknowledge_reports(self, e.seq); },
            [&](const master::AcknowledgeWhenJournaled& e) { acknowledge_when_journaled(self, e.seq); },
            [&](const master::ReportEnded& e) { end(self, e); },
        },
        effect);
}

// A hello or rejoin, answered with `Reply`: held in `reporting` while TrialRun decides.
template <class Message, class Event, class Reply>
caf::typed_response_promise<Reply> accept_report(Self self, const wire::Bytes& bytes, caf::actor worker) {
  const auto allowed = check_rank(self, "report in for a trial");  // before the promise takes the sender
  auto promise = self->template make_response_promise<Reply>();
  if (!allowed) return promise.deliver(to_caf_error(allowed.error()));
  auto message = wire::decode<Message>(bytes);
  if (!message) {
    promise.deliver(to_caf_error(message.error()));
    return promise;
  }
  self->state.reporting = {std::move(worker), static_cast<caf::response_promise&>(promise)};
  feed(self, Event{std::move(*message)});
  return promise;
}

// A batch of a command rank's reports (MetricReports), answered with the
// last batch journaled; one the trial does not expect (another run, or a run
// not running) is refused, and the rank keeps it.
caf::typed_response_promise<std::uint64_t> take_reports(Self self, const wire::Bytes& bytes) {
  const auto allowed = check_rank(self, "report metrics for a trial");  // before the promise takes the sender
  auto promise = self->make_response_promise<std::uint64_t>();
  if (!allowed) return promise.deliver(to_caf_error(allowed.error()));
  auto batch = wire::decode<wire::MetricReports>(bytes);
  if (!batch) return promise.deliver(to_caf_error(batch.error()));
  const auto why = fmt::format("trial {}: reports of run {} rank {} are not expected now", trial_id(self),
                               batch->run_id, batch->rank);
  self->state.acknowledging = promise;
  feed(self, master::CommandReported{std::move(*batch)});
  if (auto refused = std::exchange(self->state.acknowledging, std::nullopt))
    refused->deliver(to_caf_error(Error::invalid_argument(why)));
  return promise;
}

// Hands a worker's output lines of run `run_id` to the journal's writer
// thread, which calls `written` once they are written; false (nothing
// written, `written` never called) when there are none or they are another run's.
bool append_output(Self self, std::uint64_t trial_id, std::uint32_t run_id, std::vector<wire::LogEntry>& entries,
                   std::function<void(const Status&)> written) {
  if (run_id != self->state.run->record().run_id || entries.empty()) return false;
  std::vector<storage::LogLine> lines;
  for (auto& entry : entries)
    lines.push_back({trial_id, 0, entry.time_ms, std::move(entry.stream), std::move(entry.text)});
  self->state.context.journal->append_logs_async(trial_id, std::move(lines), std::move(written));
  return true;
}

// A message of a worker's output (LogLines) from its agent, answered true once
// its lines are written (false at once when it takes none: another run's).
// The write goes to the journal's writer thread and the answer waits for it,
// not the trial: the agent ships a rank's next message only after an answer.
caf::typed_response_promise<bool> journal_logs(Self self, const wire::Bytes& bytes) {
  const auto allowed = master::check_not_rank(current_peer(self), "ship a worker's output");  // before the promise
  auto promise = self->make_response_promise<bool>();
  if (!allowed) return promise.deliver(to_caf_error(allowed.error()));
  auto logs = wire::decode<wire::LogLines>(bytes);
  if (!logs) return promise.deliver(to_caf_error(logs.error()));
  auto& st = self->state;
  const auto message = st.last_log_message + 1;
  auto written_to = [trial = TrialActor(self), message](const Status& written) {
    // As the trial itself: a local sender, which the handler lets through.
    caf::send_as(trial, trial, logged_atom::value, message, written ? std::string() : written.error().message);
  };
  if (!append_output(self, logs->trial_id, logs->run_id, logs->lines, std::move(written_to)))
    return promise.deliver(false);
  st.last_log_message = message;
  st.awaiting_logs.emplace(message, promise);
  return promise;
}

// A rank's end from its agent (WorkerExit): its last output lines, when the
// report carries them (LaunchSpec.exitCarriesOutput), are journaled first, as
// a LogLines message before it would have been; then the run takes the end.
void take_exit(Self self, const wire::Bytes& bytes) {
  auto exit = wire::decode<wire::WorkerExit>(bytes);
  if (!exit) return spdlog::warn("trial {}: dropped an unreadable message: {}", trial_id(self), exit.error().message);
  append_output(self, exit->trial_id, exit->run_id, exit->output, [trial = trial_id(self)](const Status& written) {
    if (!written) spdlog::error("trial {}: journaling a rank's last output failed: {}", trial, written.error().message);
  });
  feed(self, master::WorkerExited{std::move(*exit)});
}

// The lines of output message `message` are written (`error` empty) or lost: its agent is answered.
void answer_logs(Self self, std::uint64_t message, const std::string& error) {
  auto it = self->state.awaiting_logs.find(message);
  if (it == self->state.awaiting_logs.end()) return;
  if (error.empty()) {
    it->second.deliver(true);
  } else {
    spdlog::error("trial {}: journaling logs failed: {}", trial_id(self), error);
    it->second.deliver(to_caf_error(Error::io(error)));
  }
  self->state.awaiting_logs.erase(it);
}

}  // namespace

TrialActor::behavior_type trial_actor(Self self, MasterContext context, master::TrialSpec spec,
                                      ExperimentActor experiment) {
  auto& st = self->state;
  st.context = std::move(context);
  st.experiment = std::move(experiment);
  st.run.emplace(trial_setup(st.context, std::move(spec)));
  carry_out(self, st.run->start());
  self->send(st.context.gateway, attach_atom::value, trial_id(self), TrialActor(self));
  self->set_down_handler([=](const caf::down_msg& down) {
    for (const auto& [id, agent] : self->state.agents)
      if (agent.address() == down.source) return feed(self, master::AgentLost{id});
  });
  return {
      [=](train_to_atom, std::uint64_t batches) {
        if (from_master(self, "set a trial's target")) feed(self, master::TrainTo{batches});
      },
      [=](close_atom) {
        if (from_master(self, "close a trial")) feed(self, master::Close{});
      },
      [=](pause_atom) {
        if (from_master(self, "pause a trial")) feed(self, master::Pause{});
      },
      [=](park_atom) {
        if (from_master(self, "park a trial")) feed(self, master::Park{});
      },
      [=](activate_atom) {
        if (from_master(self, "activate a trial")) feed(self, master::Activate{});
      },
      [=](kill_atom) {
        if (from_master(self, "kill a trial")) feed(self, master::Kill{});
      },
      [=](granted_atom, const std::vector<GrantedAgent>& grant) {
        if (from_master(self, "grant slots")) feed(self, master::SlotsGranted{offer(self, grant)});
      },
      [=](preempt_atom, std::uint64_t for_experiment) {
        if (from_master(self, "preempt a trial")) feed(self, master::Preempt{for_experiment});
      },
      [=](hello_atom, const wire::Bytes& bytes, caf::actor worker) {
        return accept_report<wire::RankHello, master::RankHelloed, wire::Bytes>(self, bytes, std::move(worker));
      },
      [=](rejoin_atom, const wire::Bytes& bytes, caf::actor worker) {
        return accept_report<wire::RankRejoin, master::RankRejoined, bool>(self, bytes, std::move(worker));
      },
      [=](reattach_timeout_atom, std::uint32_t run_id) {
        if (from_master(self, "end a reattach")) feed(self, master::ReattachTimedOut{run_id});
      },
      [=](journaled_atom, std::uint32_t run_id, std::uint64_t seq, const std::string& error) {
        if (from_master(self, "report a journal write")) feed(self, master::ReportsJournaled{run_id, seq, error});
      },
      [=](exited_atom, const wire::Bytes& bytes) {
        if (permitted(master::check_not_rank(current_peer(self), "report a worker's exit"))) take_exit(self, bytes);
      },
      [=](logged_atom, std::uint64_t message, const std::string& error) {
        if (from_master(self, "report a log write")) answer_logs(self, message, error);
      },
      [=](log_atom, const wire::Bytes& bytes) { return journal_logs(self, bytes); },
      [=](report_atom, const wire::Bytes& bytes) { return take_reports(self, bytes); },
  };
}

}  // namespace volador::actors
