#include "actors/rank_session.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <deque>
#include <iterator>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <variant>

#include "actors/atoms.hpp"
#include "actors/rank_actor.hpp"
#include "actors/workload_chain.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

constexpr auto kRejoinRetry = std::chrono::milliseconds(200);
// How many finished workloads a rank keeps for a rejoin. A master journals
// an answer after it sent the next workload, so a restarted one may lack the
// last few; a rank further ahead than this makes the run restart from its
// checkpoint (the journal stalled for that many workloads).
constexpr std::size_t kFinishedKept = 16;

// What a rejoin carries: the finished workloads, the newest as `last`.
wire::RankRejoin rejoin_message(const wire::RankHello& hello, const std::deque<wire::FinishedWorkload>& finished) {
  wire::RankRejoin rejoin{.trial_id = hello.trial_id, .run_id = hello.run_id, .rank = hello.rank, .token = hello.token,
                         .runs_chains = true};
  if (finished.empty()) return rejoin;
  rejoin.last = finished.back();
  rejoin.earlier.assign(finished.begin(), std::prev(finished.end()));
  return rejoin;
}

}  // namespace

struct RankSession::Impl {
  std::unique_ptr<MasterLink> own_link;  // connect()'s, which ends the rank actor with it
  MasterLink* link = nullptr;
  wire::RankHello hello;
  std::shared_ptr<RankInbox> inbox = std::make_shared<RankInbox>();
  std::shared_ptr<MetricOutbox> outbox;  // the command's reports, until the trial journaled them
  RankActor rank;  // the link's, which speaks for this session's trial until the next session's starts
  wire::RankGroup group;
  bool hello_pending = false;  // the rank started its launch's workload before the trial answered its hello
  std::optional<wire::WorkloadRequest> started;  // that workload, until next_workload() returns it
  WorkloadChain chain;  // the workload the trial sent, with the chain that follows it, until answered
  std::optional<wire::WorkloadRequest> running;  // the workload being run, until completed
  // The last workloads answered, oldest first, and their answers: sent again
  // on a rejoin, as a restarted master may not have journaled them.
  std::deque<wire::FinishedWorkload> finished;

  // The link to the master dropped (the master went away, or the link alone
  // under load): reconnects to the master, restarted or the same, and reports
  // in again to the trial, for up to the master outage patience. Error: the
  // trial did not take this rank back (the run was given up, or the master
  // stayed away).
  Status rejoin();
  // Waits for the trial's answer to the hello. When the link drops meanwhile
  // (unavailable), says hello again if the master answers within half a
  // connection timeout: a live master does, and a run whose master died
  // before it started is restarted anyway, so its ranks give up within
  // seconds. Error: the trial refused the hello, or the master is gone.
  Result<wire::RankGroup> await_group();
  // The hello's answer did not come (`error`): says hello again through a new
  // link when the old one dropped (unavailable) and the master answers within
  // half a connection timeout. Error: the refusal, or the master is gone.
  Status hello_again(const Error& error);
  // Waits for an event of `Wanted`; while the hello is pending, takes its
  // answer on the way (a group, or a refusal: said again, or the error).
  template <class... Wanted>
  Result<std::variant<Wanted...>> wait_for();
  // The link dropped while a workload runs (MasterLost taken): rejoins the
  // trial and waits until it sends the workload again, whose answer it then
  // takes. true: the trial told the rank to stop instead. Error: unavailable,
  // the trial did not take this rank back.
  Result<bool> resume_workload();
  // A workload the rank finished last, sent again: the trial lacked a report
  // batch before its answer, which the rank actor sent again first, as to
  // any trial reached anew. Answers it as before; false for another workload.
  bool answer_again(const wire::WorkloadRequest& request);
  // Keeps `result`, the running workload's; sends the request's answer (the
  // chain's results in `then`) once it failed or was the chain's last.
  void keep_result(wire::WorkloadResult result);
};

RankSession::RankSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RankSession::~RankSession() = default;

Result<std::unique_ptr<RankSession>> RankSession::connect(const net::Endpoint& master, const std::filesystem::path& tls_dir,
                                                         const wire::RankHello& hello, const master::Timings& timings) {
  auto link = MasterLink::connect(master, tls_dir, timings);
  if (!link) return fail(link.error());
  auto session = join(**link, hello);
  if (!session) return fail(session.error());
  (*session)->impl_->own_link = std::move(*link);
  return session;
}

Result<std::unique_ptr<RankSession>> RankSession::join(MasterLink& link, const wire::RankHello& hello,
                                                      std::optional<wire::WorkloadRequest> started) {
  auto impl = std::make_unique<Impl>();
  impl->link = &link;
  impl->hello = hello;
  impl->hello.runs_chains = true;
  impl->outbox = std::make_shared<MetricOutbox>(hello.run_id, hello.rank);
  auto& rank = link.rank_actor();
  if (!rank) rank = caf::actor_cast<caf::actor>(link.system().spawn(rank_actor, link.timings()));
  impl->rank = caf::actor_cast<RankActor>(rank);
  caf::anon_send(impl->rank, RankTrialStart{impl->inbox, impl->outbox, link.gateway(), impl->hello, started});
  if (started) {
    impl->hello_pending = true;
    impl->started = std::move(started);
    return std::unique_ptr<RankSession>(new RankSession(std::move(impl)));
  }
  auto group = impl->await_group();
  if (!group) return fail(group.error());
  impl->group = std::move(*group);
  return std::unique_ptr<RankSession>(new RankSession(std::move(impl)));
}

Result<wire::RankGroup> RankSession::Impl::await_group() {
  for (;;) {
    auto answer = inbox->wait_for<GroupReceived, ReportRefused>();
    if (auto* received = std::get_if<GroupReceived>(&answer)) return std::move(received->group);
    if (auto again = hello_again(std::get<ReportRefused>(answer).error); !again) return fail(again.error());
  }
}

Status RankSession::Impl::hello_again(const Error& error) {
  if (error.code != ErrorCode::unavailable) return fail(error);
  const auto deadline = std::chrono::steady_clock::now() + link->timings().links.connection_timeout / 2;
  auto gateway = link->reconnect(deadline);
  if (!gateway) return fail(Error::unavailable(error.message + "; " + gateway.error().message));
  caf::anon_send(rank, hello_atom::value, wire::encode(hello), *gateway);
  return {};
}

template <class... Wanted>
Result<std::variant<Wanted...>> RankSession::Impl::wait_for() {
  for (;;) {
    auto event = inbox->wait_for<Wanted..., GroupReceived, ReportRefused>();
    if (std::holds_alternative<GroupReceived>(event)) {
      hello_pending = false;
      continue;
    }
    if (auto* refused = std::get_if<ReportRefused>(&event)) {
      if (!hello_pending) continue;  // no hello waits: a stale answer
      if (auto again = hello_again(refused->error); !again) return fail(again.error());
      continue;
    }
    return std::visit(
        [](auto& wanted) -> std::variant<Wanted...> {
          if constexpr ((std::is_same_v<std::decay_t<decltype(wanted)>, Wanted> || ...)) return std::move(wanted);
          else throw std::logic_error("taken above");
        },
        event);
  }
}

Status RankSession::Impl::rejoin() {
  const auto rejoin = rejoin_message(hello, finished);
  const auto deadline = std::chrono::steady_clock::now() + link->timings().master_outage_patience;
  for (;;) {
    auto gateway = link->reconnect(deadline);
    if (!gateway) return fail(gateway.error());
    caf::anon_send(rank, rejoin_atom::value, wire::encode(rejoin), *gateway);
    auto answer = inbox->wait_for<Rejoined, ReportRefused>();
    auto* refused = std::get_if<ReportRefused>(&answer);
    if (refused == nullptr) return {};
    // not_found: the restarted master has not recovered the trial yet;
    // unavailable: the new link dropped too (a loaded host). Both pass.
    const bool passing = refused->error.code == ErrorCode::not_found || refused->error.code == ErrorCode::unavailable;
    if (!passing || std::chrono::steady_clock::now() >= deadline) return fail(refused->error);
    std::this_thread::sleep_for(kRejoinRetry);
  }
}

Result<bool> RankSession::Impl::resume_workload() {
  for (;;) {
    if (auto back = rejoin(); !back) return fail(Error::unavailable("lost the master: " + back.error().message));
    auto event = wait_for<WorkloadReceived, LaunchWorkloadSent, StopReceived, MasterLost>();
    if (!event) return fail(event.error());
    if (std::holds_alternative<WorkloadReceived>(*event) || std::holds_alternative<LaunchWorkloadSent>(*event))
      return false;
    if (std::holds_alternative<StopReceived>(*event)) return true;
  }
}

bool RankSession::Impl::answer_again(const wire::WorkloadRequest& request) {
  if (finished.empty() || !(finished.back().request == request)) return false;
  caf::anon_send(rank, complete_atom::value, wire::encode(finished.back().result));
  return true;
}

void RankSession::Impl::keep_result(wire::WorkloadResult result) {
  running.reset();
  auto answered = chain.finish(std::move(result));
  if (!answered) return;
  const auto answer = wire::encode(answered->result);
  finished.push_back(std::move(*answered));
  if (finished.size() > kFinishedKept) finished.pop_front();
  caf::anon_send(rank, complete_atom::value, answer);
}

const wire::RankGroup& RankSession::group() const { return impl_->group; }

Result<std::optional<wire::WorkloadRequest>> RankSession::next_workload() {
  if (auto step = impl_->chain.next()) {  // the previous workload's chain goes on
    impl_->running = std::move(step);
    return impl_->running;
  }
  if (auto started = std::exchange(impl_->started, std::nullopt)) {  // the launch's, before the trial sends it
    impl_->running = impl_->chain.start(std::move(*started));
    return impl_->running;
  }
  for (;;) {
    auto event = impl_->wait_for<WorkloadReceived, StopReceived, MasterLost>();
    if (!event) return fail(event.error());
    if (auto* workload = std::get_if<WorkloadReceived>(&*event)) {
      if (impl_->answer_again(workload->request)) continue;
      impl_->running = impl_->chain.start(std::move(workload->request));
      return impl_->running;
    }
    if (std::holds_alternative<StopReceived>(*event)) return std::nullopt;
    if (auto back = impl_->rejoin(); !back) return fail(Error::unavailable("lost the master: " + back.error().message));
  }
}

void RankSession::report(const wire::MetricReport& report) {
  if (impl_->running && impl_->outbox->add(report)) caf::anon_send(impl_->rank, report_atom::value);
}

Result<bool> RankSession::flush_reports() {
  if (impl_->running && impl_->running->reports_in_answer) return false;  // complete() carries them
  for (;;) {
    caf::anon_send(impl_->rank, flush_atom::value);
    switch (impl_->outbox->wait_until_drained()) {
      case MetricOutbox::Drained::all: return false;
      case MetricOutbox::Drained::closed: return true;
      case MetricOutbox::Drained::link_lost: break;
    }
    auto event = impl_->wait_for<StopReceived, MasterLost>();
    if (!event) return fail(event.error());
    if (std::holds_alternative<StopReceived>(*event)) return true;
    auto resumed = impl_->resume_workload();
    if (!resumed || *resumed) return resumed;
  }
}

Result<bool> RankSession::wait_for_stop() {
  auto event = impl_->wait_for<Woken, StopReceived, MasterLost>();
  if (!event) return fail(event.error());
  if (std::holds_alternative<MasterLost>(*event)) return impl_->resume_workload();
  return std::holds_alternative<StopReceived>(*event);
}

std::function<void()> RankSession::waker() const {
  return [inbox = impl_->inbox] { inbox->push(Woken{}); };
}

void RankSession::complete(const wire::WorkloadResult& result) {
  if (!impl_->running) return;
  auto answer = result;
  if (impl_->running->reports_in_answer) answer.reports = impl_->outbox->take_final();
  impl_->keep_result(std::move(answer));
}

}  // namespace volador::actors
