// A rank actor started with its launch's first workload (RankSession::join's
// `started`): the trial thread runs it before the trial sends it, and the
// trial's equal request takes the thread's answer, however the two cross.
// A real actor system; the test plays the master's gateway (which holds the
// hello unanswered), the trial and the trial thread.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "actors/rank_actor.hpp"

using namespace volador;
using namespace volador::actors;

namespace {

const wire::RankHello kHello{.trial_id = 7, .run_id = 3, .rank = 0, .token = "secret", .address = {}, .runs_chains = true};
const wire::WorkloadRequest kRun{.kind = wire::WorkloadKind::run, .start_batch = 0, .batches = 100,
                                 .path = "/checkpoints/staging", .metric_pattern = "", .reports_in_answer = true};
const wire::WorkloadResult kAnswer{.metrics = {}, .batches_trained = 100, .error_message = ""};

// A rank actor of kHello, started with kRun, whose hello waits in `gateway`'s
// mailbox, and `trial` to play the trial; the rank is stopped at the end.
struct StartedRank {
  caf::actor_system_config config;
  caf::actor_system system{config};
  caf::scoped_actor gateway{system};
  caf::scoped_actor trial{system};
  std::shared_ptr<RankInbox> inbox = std::make_shared<RankInbox>();  // the trial thread's
  RankActor rank = start(system.spawn(rank_actor, master::Timings{}));
  ~StartedRank() { caf::anon_send_exit(rank, caf::exit_reason::user_shutdown); }
  // `actor`, speaking for a trial of kHello started with kRun.
  RankActor start(RankActor actor) const {
    caf::anon_send(actor, RankTrialStart{inbox, std::make_shared<MetricOutbox>(kHello.run_id, kHello.rank),
                                         caf::actor_cast<caf::actor>(gateway), kHello, kRun});
    return actor;
  }
  // The thread completed the launch's workload with `answer`.
  void complete(const wire::WorkloadResult& answer) const { caf::anon_send(rank, complete_atom::value, wire::encode(answer)); }
};

// The rank's answer to `request` sent as the trial; nullopt when none came within a few seconds.
std::optional<wire::WorkloadResult> answer_to(caf::scoped_actor& trial, const RankActor& rank,
                                              const wire::WorkloadRequest& request) {
  std::optional<wire::WorkloadResult> answer;
  trial->request(rank, std::chrono::seconds(3), workload_atom::value, wire::encode(request))
      .receive([&](const wire::Bytes& bytes) { answer = wire::decode<wire::WorkloadResult>(bytes).value(); },
               [&](const caf::error&) {});
  return answer;
}

}  // namespace

TEST_CASE("A rank's answer to its launch's workload, completed before the trial sent it, answers the trial's request at once") {
  StartedRank r;
  r.complete(kAnswer);  // the thread ran it, the hello still unanswered
  CHECK(answer_to(r.trial, r.rank, kRun) == kAnswer);
}

TEST_CASE("A rank's launch workload asked for by the trial while it runs is answered when the thread completes it") {
  StartedRank r;
  std::optional<wire::WorkloadResult> answer;
  auto request = r.trial->request(r.rank, std::chrono::seconds(3), workload_atom::value, wire::encode(kRun));
  r.complete(kAnswer);  // after the request, in the rank's mailbox
  request.receive([&](const wire::Bytes& bytes) { answer = wire::decode<wire::WorkloadResult>(bytes).value(); },
                  [&](const caf::error&) {});
  CHECK(answer == kAnswer);
}

TEST_CASE("A request other than the launch's workload sent first is answered with an error and never takes its answer") {
  StartedRank r;
  auto other = kRun;
  other.batches = 200;
  const auto refused = answer_to(r.trial, r.rank, other);
  REQUIRE(refused);
  CHECK(refused->error_message == "the rank runs its launch's workload, and the trial sent another one first");
  r.complete(kAnswer);
  CHECK(answer_to(r.trial, r.rank, kRun) == kAnswer);  // the launch's answer still goes to the launch's request
}

TEST_CASE("The trial's request for the launch's workload reaches the thread as word of it, never as a workload to run") {
  StartedRank r;
  auto request = r.trial->request(r.rank, std::chrono::seconds(3), workload_atom::value, wire::encode(kRun));
  // A thread that took it as a workload would answer it again after its own answer, and
  // that second answer would go to the trial's next request (a native trial's next workload).
  CHECK(std::holds_alternative<LaunchWorkloadSent>(r.inbox->wait_for<WorkloadReceived, LaunchWorkloadSent>()));
  r.complete(kAnswer);
  std::optional<wire::WorkloadResult> answer;
  request.receive([&](const wire::Bytes& bytes) { answer = wire::decode<wire::WorkloadResult>(bytes).value(); },
                  [&](const caf::error&) {});
  CHECK(answer == kAnswer);
  // The trial's next request is a workload to run.
  auto next = kRun;
  next.start_batch = 100;
  r.trial->send(r.rank, workload_atom::value, wire::encode(next));
  const auto event = r.inbox->wait_for<WorkloadReceived, LaunchWorkloadSent>();
  REQUIRE(std::holds_alternative<WorkloadReceived>(event));
  CHECK(std::get<WorkloadReceived>(event).request == next);
}
