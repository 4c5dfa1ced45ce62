#include "actors/rank_actor.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

using Self = caf::stateful_actor<RankState>*;

constexpr auto kHelloTimeout = std::chrono::seconds(30);

wire::WorkloadResult run(Self self, const wire::WorkloadRequest& request) {
  auto& st = self->state;
  Result<MetricMap> metrics = request.kind == wire::WorkloadKind::train
                                  ? st.runner->train(request.start_batch, request.batches)
                                  : st.runner->validate();
  if (!metrics) return {{}, st.batches_trained, metrics.error().message};
  if (request.kind == wire::WorkloadKind::train) st.batches_trained = request.start_batch + request.batches;
  return {std::move(*metrics), st.batches_trained, ""};
}

}  // namespace

caf::behavior rank_actor(Self self, std::shared_ptr<trial_api::TrialRunner> runner, caf::actor master,
                         wire::RankHello hello) {
  self->state.runner = std::move(runner);
  self->monitor(master);
  self->set_down_handler([=](const caf::down_msg&) {
    spdlog::error("rank {}: lost the master", hello.rank);
    self->quit(caf::sec::remote_linking_failed);
  });
  self->request(master, kHelloTimeout, hello_atom::value, wire::encode(hello), caf::actor_cast<caf::actor>(self))
      .then([](bool) {},
            [=](const caf::error& error) {
              spdlog::error("the master refused this rank worker: {}", from_caf_error(error).message);
              self->quit(error);
            });
  return {
      [=](workload_atom, const wire::Bytes& bytes) -> caf::result<wire::Bytes> {
        auto request = wire::decode<wire::WorkloadRequest>(bytes);
        if (!request) return to_caf_error(request.error());
        return wire::encode(run(self, *request));
      },
      [=](shutdown_atom) { self->quit(); },
  };
}

}  // namespace volador::actors
