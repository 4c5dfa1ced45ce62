#include "actors/rank_actor.hpp"

#include <caf/all.hpp>

#include "actors/caf_error.hpp"
#include "runtime/net/remote.hpp"

namespace volador::actors {
namespace {

using Self = RankActor::stateful_pointer<RankActorState>;

void watch_master(Self self, caf::actor master) {
  self->state.master = std::move(master);
  self->monitor(self->state.master);
  self->state.reporting = true;
}

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
  self->request(master, self->state.timings.hello_timeout, hello_atom::value, self->state.trial_id, hello,
                caf::actor_cast<caf::actor>(self))
      .then(
          [=](const wire::Bytes& bytes) {
            if (!self->state.reporting || !net::same_object(self->state.master, master)) return;
            self->state.reporting = false;
            auto group = wire::decode<wire::RankGroup>(bytes);
            if (group) self->state.inbox->push(GroupReceived{std::move(*group)});
            else self->state.inbox->push(ReportRefused{group.error()});
          },
          [=](const caf::error& error) {
            if (net::same_object(self->state.master, master)) refuse(self, from_caf_error(error));
          });
}

void say_rejoin(Self self, const wire::Bytes& rejoin) {
  const auto master = self->state.master;
  self->request(master, self->state.timings.rejoin_timeout(), rejoin_atom::value, self->state.trial_id, rejoin,
                caf::actor_cast<caf::actor>(self))
      .then(
          [=](bool) {
            if (!self->state.reporting || !net::same_object(self->state.master, master)) return;
            self->state.reporting = false;
            self->state.inbox->push(Rejoined{});
          },
          [=](const caf::error& error) {
            if (net::same_object(self->state.master, master)) refuse(self, from_caf_error(error));
          });
}

void on_down(Self self, const caf::down_msg& down) {
  auto& st = self->state;
  if (down.source != st.master.address()) return;  // a master lost earlier
  const auto reason = "lost the master: " + self->system().render(down.reason);
  if (st.reporting) return refuse(self, Error::unavailable(reason));
  st.pending.reset();  // its answer has nowhere to go; a rejoin carries it
  st.trial = nullptr;
  st.inbox->push(MasterLost{reason});
}

}  // namespace

RankActor::behavior_type rank_actor(Self self, std::shared_ptr<RankInbox> inbox, caf::actor master,
                                    const wire::RankHello& hello, const master::Timings& timings) {
  self->state.inbox = std::move(inbox);
  self->state.timings = timings;
  self->state.trial_id = hello.trial_id;
  watch_master(self, std::move(master));
  say_hello(self, wire::encode(hello));
  self->set_down_handler([=](const caf::down_msg& down) { on_down(self, down); });
  return {
      [=](workload_atom, const wire::Bytes& bytes) -> caf::typed_response_promise<wire::Bytes> {
        auto& st = self->state;
        auto sender = caf::actor_cast<TrialActor>(self->current_sender());  // the promise takes it over
        auto promise = self->make_response_promise<wire::Bytes>();
        auto request = wire::decode<wire::WorkloadRequest>(bytes);
        if (!request) return promise.deliver(to_caf_error(request.error()));
        st.pending = promise;
        st.trial = std::move(sender);
        st.inbox->push(WorkloadReceived{std::move(*request)});
        return promise;
      },
      [=](shutdown_atom) { self->state.inbox->push(StopReceived{}); },
      [=](complete_atom, const wire::Bytes& result) {
        if (auto pending = std::exchange(self->state.pending, std::nullopt)) pending->deliver(result);
      },
      [=](report_atom, const wire::Bytes& report) {
        if (self->state.pending && self->state.trial) self->send(self->state.trial, report_atom::value, report);
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
