#include "actors/rank_session.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/net/actor_system_setup.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {
// The trial answers once all its ranks reported, which may take a while on a
// busy host; a rank that never comes makes the trial restart and kill us.
constexpr auto kHelloTimeout = std::chrono::minutes(10);
constexpr auto kConnectPatience = std::chrono::seconds(10);
}  // namespace

struct RankSession::Impl {
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  std::unique_ptr<caf::scoped_actor> self;
  caf::actor master;
  wire::RankGroup group;
  std::optional<caf::response_promise> pending;  // the workload being run
  caf::actor trial;                              // who sent it

  Impl() {
    net::configure_actor_system(config);
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

Result<std::unique_ptr<RankSession>> RankSession::connect(const net::Endpoint& master, const wire::RankHello& hello) {
  auto impl = std::make_unique<Impl>();
  auto& mm = impl->system->middleman();
  const auto deadline = std::chrono::steady_clock::now() + kConnectPatience;
  for (;;) {
    auto gateway = mm.remote_actor(master.host, master.port);
    if (gateway) {
      impl->master = *gateway;
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return fail(Error::unavailable("cannot reach the master at " + master.to_string() + ": " +
                                     impl->system->render(gateway.error())));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
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

const wire::RankGroup& RankSession::group() const { return impl_->group; }

Result<std::optional<wire::WorkloadRequest>> RankSession::next_workload() {
  auto& self = *impl_->self;
  Result<std::optional<wire::WorkloadRequest>> out = std::nullopt;
  bool received = false;
  self->receive_while([&] { return !received; })(
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
        out = std::optional(*request);
      },
      [&](shutdown_atom) { received = true; },
      [&](wake_atom) {},  // left over from a finished wait_for_stop()
      [&](caf::down_msg& down) {
        received = true;
        out = fail(Error::unavailable("lost the master: " + impl_->system->render(down.reason)));
      });
  return out;
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
  impl_->pending->deliver(wire::encode(result));
  impl_->pending.reset();
}

}  // namespace volador::actors
