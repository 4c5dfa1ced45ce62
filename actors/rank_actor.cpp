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

std::string format_metrics(const MetricMap& metrics) {
  std::string out;
  for (const auto& [name, value] : metrics) out += fmt::format("{}{}={:.6g}", out.empty() ? "" : " ", name, value);
  return out;
}

// Runs one workload; the line it logs goes to the trial's log through stdout.
wire::WorkloadResult run(Self self, const wire::WorkloadRequest& request) {
  auto& st = self->state;
  const bool train = request.kind == wire::WorkloadKind::train;
  Result<MetricMap> metrics = train ? st.runner->train(request.start_batch, request.batches) : st.runner->validate();
  if (!metrics) {
    spdlog::error("{}", metrics.error().message);
    return {{}, st.batches_trained, metrics.error().message};
  }
  if (train) {
    st.batches_trained = request.start_batch + request.batches;
    spdlog::info("trained batches {}-{}: {}", request.start_batch, st.batches_trained - 1, format_metrics(*metrics));
  } else {
    spdlog::info("validated after {} batches: {}", st.batches_trained, format_metrics(*metrics));
  }
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
