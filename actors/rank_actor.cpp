#include "actors/rank_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/caf_error.hpp"
#include "runtime/net/remote.hpp"

namespace volador::actors {
namespace {

using Self = RankActor::stateful_pointer<RankActorState>;

// How long points wait for more before they go to the trial as a batch.
constexpr auto kFlushDelay = std::chrono::milliseconds(20);

// Watches `master` instead of the gateway watched before, if any.
void watch_master(Self self, caf::actor master) {
  auto& st = self->state;
  if (st.master) self->demonitor(st.master);
  st.master = std::move(master);
  self->monitor(st.master);
  st.reporting = true;
}

// Whether the trial that `trial_number` was taken for is still the one spoken for.
bool current(Self self, std::uint64_t trial_number) { return self->state.trial_number == trial_number; }

void refuse(Self self, Error error) {
  if (!self->state.reporting) return;  // the loss of the master answered first
  self->state.reporting = false;
  self->state.inbox->push(ReportRefused{std::move(error)});
}

void say_hello(Self self, const wire::Bytes& hello) {
  // A rank that never comes makes the trial restart and kill us; a lost
  // master ends the wait at once (a down message). Answers through a
  // gateway given up since do not count.
  const auto master = self->state.master;
  const auto number = self->state.trial_number;
  self->request(master, self->state.timings.hello_timeout, hello_atom::value, self->state.trial_id, hello,
                caf::actor_cast<caf::actor>(self))
      .then(
          [=](const wire::Bytes& bytes) {
            if (!current(self, number) || !self->state.reporting || !net::same_object(self->state.master, master))
              return;
            self->state.reporting = false;
            auto group = wire::decode<wire::RankGroup>(bytes);
            if (group) self->state.inbox->push(GroupReceived{std::move(*group)});
            else self->state.inbox->push(ReportRefused{group.error()});
          },
          [=](const caf::error& error) {
            if (current(self, number) && net::same_object(self->state.master, master))
              refuse(self, from_caf_error(error));
          });
}

void say_rejoin(Self self, const wire::Bytes& rejoin) {
  const auto master = self->state.master;
  const auto number = self->state.trial_number;
  self->request(master, self->state.timings.rejoin_timeout(), rejoin_atom::value, self->state.trial_id, rejoin,
                caf::actor_cast<caf::actor>(self))
      .then(
          [=](bool) {
            if (!current(self, number) || !self->state.reporting || !net::same_object(self->state.master, master))
              return;
            self->state.reporting = false;
            self->state.inbox->push(Rejoined{});
          },
          [=](const caf::error& error) {
            if (current(self, number) && net::same_object(self->state.master, master))
              refuse(self, from_caf_error(error));
          });
}

void send_ready(Self self, bool partial);

// Sends `batch` to the trial; its answer, the last batch the trial journaled,
// frees the batches up to that one. The answer comes once the batch is
// written, however long the master's disk takes: no timeout, since a live
// link loses no answer, and a batch lost with the link goes again to the
// trial reached anew (take_unacknowledged). A refusal means the trial is
// done with this run; the trial stops the rank. One that comes once the
// batch is settled (its trial stopped the rank and ended before the batch's
// write was acknowledged, as a fast command's trial does) is expected.
// Answers that come once the rank speaks for another trial are dropped.
void send_batch(Self self, OutgoingBatch batch) {
  const auto number = self->state.trial_number;
  self->request(self->state.trial, caf::infinite, report_atom::value, batch.bytes)
      .then(
          [=](std::uint64_t journaled) {
            if (!current(self, number)) return;
            self->state.outbox->acknowledge(journaled);
            send_ready(self, false);
          },
          [=](const caf::error& error) {
            if (!current(self, number)) return;
            const auto level = self->state.outbox->settled(batch.seq) ? spdlog::level::debug : spdlog::level::warn;
            spdlog::log(level, "metric batch {} was refused: {}", batch.seq, self->system().render(error));
          });
}

// Sends what the outbox has ready (a partial batch too when `partial`).
void send_ready(Self self, bool partial) {
  if (!self->state.trial) return;  // the link is down: all goes once the trial is reached anew
  for (auto& batch : self->state.outbox->take_ready(partial)) send_batch(self, std::move(batch));
}

// Points held get a flush_atom a moment later, unless one is under way.
void arm_flush_timer(Self self) {
  auto& st = self->state;
  if (st.flush_timer || !st.outbox->holds_points()) return;
  st.flush_timer = true;
  self->delayed_send(self, kFlushDelay, flush_atom::value);
}

void take_workload(Self self, caf::typed_response_promise<wire::Bytes> promise, TrialActor trial,
                   wire::WorkloadRequest request) {
  auto& st = self->state;
  if (st.started && !(*st.started == request)) {  // the thread's answer belongs to the launch's workload alone
    promise.deliver(wire::encode(wire::WorkloadResult{
        .metrics = {}, .batches_trained = request.start_batch,
        .error_message = "the rank runs its launch's workload, and the trial sent another one first"}));
    return;
  }
  const bool reached_anew =
      !net::same_object(caf::actor_cast<caf::actor>(st.trial), caf::actor_cast<caf::actor>(trial));
  st.pending = std::move(promise);
  st.trial = std::move(trial);
  if (reached_anew)
    for (auto& batch : st.outbox->take_unacknowledged()) send_batch(self, std::move(batch));
  if (std::exchange(st.started, std::nullopt)) {
    if (auto answer = std::exchange(st.early_answer, std::nullopt)) {
      std::exchange(st.pending, std::nullopt)->deliver(*answer);
      return;
    }
    // The thread runs it already: its answer goes to this request. A thread
    // that waits for the trial to be back after a rejoin takes this as the word.
    st.inbox->push(LaunchWorkloadSent{});
    return;
  }
  st.inbox->push(WorkloadReceived{std::move(request)});
}

void on_down(Self self, const caf::down_msg& down) {
  auto& st = self->state;
  if (down.source != st.master.address()) return;  // a master lost earlier
  st.outbox->link_lost();
  const auto reason = "lost the master: " + self->system().render(down.reason);
  if (st.reporting) return refuse(self, Error::unavailable(reason));
  st.pending.reset();  // its answer has nowhere to go; a rejoin carries it
  st.trial = nullptr;
  st.inbox->push(MasterLost{reason});
}

// Speaks for `start`'s trial from now on: the previous one's state goes.
void start_trial(Self self, RankTrialStart start) {
  auto& st = self->state;
  ++st.trial_number;
  st.inbox = std::move(start.inbox);
  st.outbox = std::move(start.outbox);
  st.trial_id = start.hello.trial_id;
  st.trial = nullptr;
  st.pending.reset();
  st.started = std::move(start.started);
  st.early_answer.reset();
  watch_master(self, std::move(start.master));
  say_hello(self, wire::encode(start.hello));
}

}  // namespace

RankActor::behavior_type rank_actor(Self self, const master::Timings& timings) {
  self->state.timings = timings;
  self->set_down_handler([=](const caf::down_msg& down) { on_down(self, down); });
  return {
      [=](RankTrialStart& start) { start_trial(self, std::move(start)); },
      [=](workload_atom, const wire::Bytes& bytes) -> caf::typed_response_promise<wire::Bytes> {
        auto sender = caf::actor_cast<TrialActor>(self->current_sender());  // the promise takes it over
        auto promise = self->make_response_promise<wire::Bytes>();
        auto request = wire::decode<wire::WorkloadRequest>(bytes);
        if (!request) return promise.deliver(to_caf_error(request.error()));
        take_workload(self, promise, std::move(sender), std::move(*request));
        return promise;
      },
      [=](shutdown_atom) {
        self->state.outbox->close();  // the trial journals no more reports
        self->state.inbox->push(StopReceived{});
      },
      [=](complete_atom, const wire::Bytes& result) {
        if (auto pending = std::exchange(self->state.pending, std::nullopt)) pending->deliver(result);
        else if (self->state.started) self->state.early_answer = result;  // the trial has not sent it yet
      },
      [=](report_atom) {
        send_ready(self, false);
        arm_flush_timer(self);
      },
      [=](flush_atom) {
        self->state.flush_timer = false;
        send_ready(self, true);
        arm_flush_timer(self);
      },
      [=](rejoin_atom, const wire::Bytes& rejoin, caf::actor gateway) {
        watch_master(self, std::move(gateway));
        say_rejoin(self, rejoin);
      },
      [=](hello_atom, const wire::Bytes& hello, caf::actor gateway) {
        watch_master(self, std::move(gateway));
        say_hello(self, hello);
      },
  };
}

}  // namespace volador::actors
