#include "runtime/worker/trial_join.hpp"

#include <cstdlib>
#include <functional>
#include <optional>

#include <spdlog/spdlog.h>

#include "runtime/collective/factory.hpp"
#include "runtime/net/local_address.hpp"

namespace volador::worker {
namespace {

std::size_t bucket_bytes() {
  const char* text = std::getenv("VOLADOR_BUCKET_BYTES");
  if (text == nullptr) return kDefaultBucketBytes;
  const auto value = std::strtoull(text, nullptr, 10);
  return value > 0 ? value : kDefaultBucketBytes;
}

collective::GroupSpec group_spec(const wire::RankGroup& group, std::uint32_t rank) {
  collective::GroupSpec spec;
  spec.group_id = group.group_id;
  spec.secret = group.secret;
  for (const auto& r : group.ranks) spec.ranks.push_back({r.host_id, {r.host, r.port}});
  spec.rank = static_cast<int>(rank);
  spec.options.timeout = std::chrono::milliseconds(group.timeout_ms);
  if (group.shm_limit_bytes > 0) spec.options.shm_limit_bytes = group.shm_limit_bytes;
  return spec;
}

// The data-plane listener: on the address that routes to the master, or on
// every interface when the agent names the address peers must use (NAT).
Result<collective::TcpListener> open_listener(const WorkerLaunch& launch) {
  std::string host = "0.0.0.0";
  if (launch.advertise.empty()) {
    auto routed = net::local_address_towards(launch.master);
    if (!routed) return fail(routed.error());
    host = *routed;
  }
  auto opened = collective::TcpListener::open(host);
  if (!opened) return fail(Error::io("cannot open the data-plane listener on " + host + ": " + opened.error().message));
  return opened;
}

using ReportIn = std::function<Result<std::unique_ptr<actors::RankSession>>(const wire::RankHello& hello)>;

Result<JoinedTrial> join(const WorkerLaunch& launch, const ReportIn& report_in) {
  auto hello = launch.hello;
  std::optional<collective::TcpListener> listener;
  if (launch.world_size > 1) {
    auto opened = open_listener(launch);
    if (!opened) return fail(opened.error());
    listener.emplace(std::move(*opened));
    const auto& host = launch.advertise.empty() ? listener->endpoint().host : launch.advertise;
    hello.address = {collective::local_host_id(), host, listener->endpoint().port};
  }
  auto session = report_in(hello);
  if (!session) return fail(session.error());
  JoinedTrial joined{std::move(*session), std::make_shared<trial_api::DataParallel>()};
  if (!listener) return joined;
  const auto spec = group_spec(joined.session->group(), hello.rank);
  spdlog::info("data plane: {}; rank {} listens on {}, reached at {}:{}", collective::describe_group(spec.ranks), hello.rank,
               listener->endpoint().host, hello.address.host, hello.address.port);
  auto comm = collective::make_communicator(spec, *listener);
  if (!comm) return fail(Error::unavailable("cannot connect the data plane to the other ranks: " + comm.error().message));
  joined.group = std::make_shared<trial_api::DataParallel>(std::move(*comm), bucket_bytes(), spec.options);
  return joined;
}

}  // namespace

Result<JoinedTrial> join_trial(const WorkerLaunch& launch) {
  return join(launch, [&](const wire::RankHello& hello) {
    return actors::RankSession::connect(launch.master, launch.tls_dir, hello, launch.timings);
  });
}

Result<JoinedTrial> join_trial(actors::MasterLink& link, const WorkerLaunch& launch) {
  // A lone rank needs no group: it starts the launch's workload, if any, at once.
  const auto started = launch.world_size == 1 ? launch.first_workload : std::nullopt;
  return join(launch, [&](const wire::RankHello& hello) { return actors::RankSession::join(link, hello, started); });
}

}  // namespace volador::worker
