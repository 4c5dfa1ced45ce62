#pragma once
// A rank worker's actor: its side of the control plane. It presents the
// rank to its trial (the hello), takes the trial's workloads and hands them
// to the thread that runs the trial code through a RankInbox, answers each
// once that thread completed it, and watches the master, so that losing it
// is an event for that thread at once, never a timeout. A command's metric
// reports go to the trial in acknowledged batches (MetricOutbox). RankSession
// is the thread's blocking front to it. One actor serves every trial of a
// warm worker, one after another (RankTrialStart): the master keeps one
// proxy of it, not one per trial (each proxy costs a message between the
// nodes when it is made and another when its actor ends).

#include <memory>
#include <optional>

#include <caf/actor.hpp>
#include <caf/allowed_unsafe_message_type.hpp>
#include <caf/replies_to.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/atoms.hpp"
#include "actors/interfaces.hpp"
#include "actors/metric_outbox.hpp"
#include "actors/rank_inbox.hpp"
#include "master/timings.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {

// The trial the rank actor speaks for from now on, from the thread that runs
// it (a local message only): the previous trial's state is dropped, and
// answers to that trial's requests that come later are ignored.
struct RankTrialStart {
  std::shared_ptr<RankInbox> inbox;
  std::shared_ptr<MetricOutbox> outbox;  // the trial's command's reports, sent to the trial in batches
  caf::actor master;                     // the gateway the hello goes to, watched
  wire::RankHello hello;
  // The launch's first workload, which the thread runs without waiting for
  // the trial: the trial's first request, which must equal it, takes the
  // thread's answer (at once if the thread completed it before); another one
  // first is answered with an error (the run restarts).
  std::optional<wire::WorkloadRequest> started;
};

}  // namespace volador::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(volador::actors::RankTrialStart)

namespace volador::actors {

using RankActor = caf::typed_actor<
    // the trial thread: a trial to speak for, after the previous one
    caf::reacts_to<RankTrialStart>,
    // the trial: a workload (WorkloadRequest), answered (WorkloadResult) once the trial thread completed it
    caf::replies_to<workload_atom, wire::Bytes>::with<wire::Bytes>,
    // the trial: it is done with this rank
    caf::reacts_to<shutdown_atom>,
    // the trial thread: the answer (WorkloadResult) to the pending workload
    caf::reacts_to<complete_atom, wire::Bytes>,
    // the trial thread: it added metric reports to the outbox (a first point held, or a full batch)
    caf::reacts_to<report_atom>,
    // itself, a few tens of ms after points were held, or the trial thread draining the outbox: send them all
    caf::reacts_to<flush_atom>,
    // the trial thread: present this rank (RankRejoin) to a restarted master's
    // gateway, or to the same master's once the link that dropped is back
    caf::reacts_to<rejoin_atom, wire::Bytes, caf::actor>,
    // the trial thread: say the hello (RankHello) again through this gateway:
    // the link dropped before the trial answered it
    caf::reacts_to<hello_atom, wire::Bytes, caf::actor>>;

struct RankActorState {
  std::uint64_t trial_number = 0;  // of the RankTrialStart in force: answers meant for an earlier one are dropped
  std::shared_ptr<RankInbox> inbox;
  std::shared_ptr<MetricOutbox> outbox;  // a command's reports, sent to `trial` in batches
  bool flush_timer = false;              // a flush_atom to itself is under way
  std::uint64_t trial_id = 0;  // the gateway routes the hello and rejoins by it
  caf::actor master;           // the gateway it reported to, watched
  bool reporting = false;  // a hello or rejoin is waiting for its answer
  std::optional<caf::typed_response_promise<wire::Bytes>> pending;  // the workload being run
  TrialActor trial;                                                  // who sent it
  master::Timings timings;  // its hello_timeout and rejoin_timeout() bound the answers it waits for
  // The launch's first workload, which the trial thread runs before the trial
  // sent it: the trial's equal request takes its answer. Until then:
  std::optional<wire::WorkloadRequest> started;
  std::optional<wire::Bytes> early_answer;  // its answer, when the thread completed it first
  static inline const char* name = "rank";
};

// For each RankTrialStart: sends its hello to the trial through its master
// and reports the answer to its inbox (GroupReceived or ReportRefused), and
// sends the batches of its outbox to the trial of the pending workload, again
// to a trial reached anew. `timings` bound the answers it waits for.
RankActor::behavior_type rank_actor(RankActor::stateful_pointer<RankActorState> self, const master::Timings& timings);

}  // namespace volador::actors
