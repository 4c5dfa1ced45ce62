// One rank actor speaks for a warm worker's trials one after another
// (RankTrialStart): what comes for an earlier trial never reaches a later
// trial's thread. A real actor system; the test plays the master's gateway
// and the trial threads.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include "actors/rank_actor.hpp"

using namespace volador;
using namespace volador::actors;

namespace {

wire::RankHello hello_of(std::uint64_t trial_id) {
  return {.trial_id = trial_id, .run_id = 1, .rank = 0, .token = "secret", .address = {}, .runs_chains = true};
}

wire::RankGroup group_of(const std::string& id) { return {.group_id = id, .secret = "s", .ranks = {}}; }

struct TwoTrials {
  caf::actor_system_config config;
  caf::actor_system system{config};
  caf::scoped_actor gateway{system};
  RankActor rank = system.spawn(rank_actor, master::Timings{});
  ~TwoTrials() { caf::anon_send_exit(rank, caf::exit_reason::user_shutdown); }

  // Starts the trial of `hello` on the rank; its thread's inbox.
  std::shared_ptr<RankInbox> start(const wire::RankHello& hello) {
    auto inbox = std::make_shared<RankInbox>();
    caf::anon_send(rank, RankTrialStart{inbox, std::make_shared<MetricOutbox>(hello.run_id, hello.rank),
                                        caf::actor_cast<caf::actor>(gateway), hello, std::nullopt});
    return inbox;
  }
  // The hello the rank said next, held unanswered: its promise and its trial.
  std::pair<caf::response_promise, std::uint64_t> held_hello() {
    std::pair<caf::response_promise, std::uint64_t> held;
    gateway->receive([&](hello_atom, std::uint64_t trial_id, const wire::Bytes&, const caf::actor&) {
      held = {gateway->make_response_promise(), trial_id};
    });
    return held;
  }
};

}  // namespace

TEST_CASE("A hello answer meant for a warm worker's earlier trial never reaches its next trial's thread") {
  TwoTrials t;
  (void)t.start(hello_of(7));
  auto [first, first_trial] = t.held_hello();
  CHECK(first_trial == 7);
  auto second_inbox = t.start(hello_of(8));  // the first trial's hello still unanswered
  auto [second, second_trial] = t.held_hello();
  CHECK(second_trial == 8);
  first.deliver(wire::encode(group_of("trial-7")));  // comes first, for the trial before
  second.deliver(wire::encode(group_of("trial-8")));
  auto answer = second_inbox->wait_for<GroupReceived, ReportRefused>();
  REQUIRE(std::holds_alternative<GroupReceived>(answer));
  CHECK(std::get<GroupReceived>(answer).group.group_id == "trial-8");
}

TEST_CASE("A refused hello of a warm worker's earlier trial does not refuse its next trial's") {
  TwoTrials t;
  (void)t.start(hello_of(7));
  auto [first, first_trial] = t.held_hello();
  auto second_inbox = t.start(hello_of(8));
  auto [second, second_trial] = t.held_hello();
  first.deliver(caf::make_error(caf::sec::request_timeout));  // as a hello whose trial ended unanswered
  second.deliver(wire::encode(group_of("trial-8")));
  auto answer = second_inbox->wait_for<GroupReceived, ReportRefused>();
  CHECK(std::holds_alternative<GroupReceived>(answer));
}
