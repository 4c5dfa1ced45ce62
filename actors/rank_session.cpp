#include "actors/rank_session.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include <thread>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/master_outage.hpp"
#include "runtime/net/actor_system_setup.hpp"
#include "runtime/net/remote.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {
// The trial answers once all its ranks reported, which may take a while on a
// busy host; a rank that never comes makes the trial restart and kill us.
constexpr auto kHelloTimeout = std::chrono::minutes(10);
constexpr auto kConnectPatience = std::chrono::seconds(10);
constexpr auto kRejoinRetry = std::chrono::milliseconds(200);
// The restarted trial answers once all its ranks and agents are back.
constexpr auto kRejoinTimeout = kReattachGrace + std::chrono::seconds(10);

}  // namespace

struct RankSession::Impl {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  std::unique_ptr<caf::scoped_actor> self;
  net::Endpoint endpoint;
  wire::RankHello hello;
  caf::actor master;
  wire::RankGroup group;
  std::optional<caf::response_promise> pending;  // the workload being run
  caf::actor trial;                              // who sent it
  // The last workload answered, and its answer: sent again on a rejoin, as
  // the answer may have been lost with the master.
  std::optional<wire::FinishedWorkload> last;
  wire::WorkloadRequest running;                 // the request being answered

  // The master went away: reconnects and reports in again to the restarted
  // trial, for up to kMasterOutagePatience. Error: the trial did not take
  // this rank back (the run was given up, or the master stayed away).
  Status rejoin();

  explicit Impl(const tls::IdentityFiles& identity) {
    net::configure_actor_system(config, identity);
    system = std::make_unique<caf::actor_system>(config);
    self = std::make_unique<caf::scoped_actor>(*system);
  }
  ~Impl() {
    self.reset();  // before the system it belongs to
    system.reset();
  }
};

RankSession::RankSession(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RankSession::~RankSession() = default;

Result<std::unique_ptr<RankSession>> RankSession::connect(const net::Endpoint& master, const std::filesystem::path& tls_dir,
                                                         const wire::RankHello& hello) {
  auto impl = std::make_unique<Impl>(tls::IdentityFiles::in(tls_dir));
  impl->endpoint = master;
  impl->hello = hello;
  auto gateway = net::await_master(*impl->system, master, std::chrono::steady_clock::now() + kConnectPatience);
  if (!gateway) return fail(gateway.error());
  impl->master = *gateway;
  auto& self = *impl->self;
  self->monitor(impl->master);
  Status accepted;
  self->request(impl->master, kHelloTimeout, hello_atom::value, wire::encode(hello), caf::actor_cast<caf::actor>(self))
      .receive(
          [&](const wire::Bytes& bytes) {
            auto group = wire::decode<wire::RankGroup>(bytes);
            if (group) impl->group = std::move(*group);
            else accepted = fail(group.error());
          },
          [&](const caf::error& error) { accepted = fail(from_caf_error(error)); });
  if (!accepted) return fail(accepted.error());
  return std::unique_ptr<RankSession>(new RankSession(std::move(impl)));
}

Status RankSession::Impl::rejoin() {
  pending.reset();
  trial = nullptr;
  const wire::RankRejoin rejoin{
      .trial_id = hello.trial_id, .run_id = hello.run_id, .rank = hello.rank, .token = hello.token, .last = last};
  const auto deadline = std::chrono::steady_clock::now() + kMasterOutagePatience;
  const auto lost = master;  // a proxy of the dead connection, maybe still cached
  for (;;) {
    auto gateway = net::await_master(*system, endpoint, deadline, lost);
    if (!gateway) return fail(gateway.error());
    master = *gateway;
    (*self)->monitor(master);
    Status taken_back;
    (*self)
        ->request(master, kRejoinTimeout, rejoin_atom::value, wire::encode(rejoin), caf::actor_cast<caf::actor>(*self))
        .receive([](bool) {}, [&](const caf::error& error) { taken_back = fail(from_caf_error(error)); });
    // not_found: the restarted master has not recovered the trial yet.
    if (taken_back || taken_back.error().code != ErrorCode::not_found || std::chrono::steady_clock::now() >= deadline)
      return taken_back;
    std::this_thread::sleep_for(kRejoinRetry);
  }
}

const wire::RankGroup& RankSession::group() const { return impl_->group; }

Result<std::optional<wire::WorkloadRequest>> RankSession::next_workload() {
  auto& self = *impl_->self;
  Result<std::optional<wire::WorkloadRequest>> out = std::nullopt;
  bool received = false;
  bool master_lost = false;
  self->receive_while([&] { return !received && !master_lost; })(
      [&](workload_atom, const wire::Bytes& bytes) {
        received = true;
        auto request = wire::decode<wire::WorkloadRequest>(bytes);
        impl_->trial = caf::actor_cast<caf::actor>(self->current_sender());
        impl_->pending = self->make_response_promise();
        if (!request) {
          impl_->pending->deliver(to_caf_error(request.error()));
          impl_->pending.reset();
          out = fail(request.error());
          return;
        }
        impl_->running = *request;
        out = std::optional(*request);
      },
      [&](shutdown_atom) { received = true; },
      [&](wake_atom) {},  // left over from a finished wait_for_stop()
      [&](caf::down_msg& down) { master_lost = down.source == impl_->master.address(); });
  if (!master_lost) return out;
  if (auto back = impl_->rejoin(); !back) return fail(Error::unavailable("lost the master: " + back.error().message));
  return next_workload();
}

void RankSession::report(const wire::MetricReport& report) {
  if (!impl_->pending || !impl_->trial) return;
  (*impl_->self)->send(impl_->trial, report_atom::value, wire::encode(report));
}

Result<bool> RankSession::wait_for_stop() {
  auto& self = *impl_->self;
  Result<bool> out = false;
  bool received = false;
  self->receive_while([&] { return !received; })(
      [&](wake_atom) { received = true; },
      [&](shutdown_atom) {
        received = true;
        out = true;
      },
      [&](caf::down_msg& down) {
        received = true;
        out = fail(Error::unavailable("lost the master: " + impl_->system->render(down.reason)));
      });
  return out;
}

std::function<void()> RankSession::waker() const {
  return [me = caf::actor_cast<caf::actor_addr>(*impl_->self)] {
    if (auto actor = caf::actor_cast<caf::actor>(me)) caf::anon_send(actor, wake_atom::value);
  };
}

void RankSession::complete(const wire::WorkloadResult& result) {
  if (!impl_->pending) return;
  impl_->last = wire::FinishedWorkload{.request = impl_->running, .result = result};
  impl_->pending->deliver(wire::encode(result));
  impl_->pending.reset();
}

}  // namespace volador::actors
