#include "runtime/worker/workload_loop.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace volador::worker {
namespace {

std::string format_metrics(const MetricMap& metrics) {
  std::string out;
  for (const auto& [name, value] : metrics) out += fmt::format("{}{}={:.6g}", out.empty() ? "" : " ", name, value);
  return out;
}

wire::WorkloadResult save_checkpoint(trial_api::TrialRunner& runner, const wire::WorkloadRequest& request) {
  if (auto saved = runner.save(request.path); !saved) {
    spdlog::error("checkpoint failed: {}", saved.error().message);
    return {{}, request.start_batch, "checkpoint failed: " + saved.error().message};
  }
  spdlog::info("checkpoint saved after {} batches", request.start_batch);
  return {{}, request.start_batch, ""};
}

}  // namespace

wire::WorkloadResult run_workload(trial_api::TrialRunner& runner, const wire::WorkloadRequest& request) {
  if (request.kind == wire::WorkloadKind::checkpoint) return save_checkpoint(runner, request);
  const bool train = request.kind == wire::WorkloadKind::train;
  const auto end = request.start_batch + request.batches;
  auto metrics = train ? runner.train(request.start_batch, request.batches) : runner.validate();
  if (!metrics) {
    spdlog::error("{}", metrics.error().message);
    return {{}, request.start_batch, metrics.error().message};
  }
  if (train)
    spdlog::info("trained batches {}-{}: {}", request.start_batch, end - 1, format_metrics(*metrics));
  else
    spdlog::info("validated after {} batches: {}", request.start_batch, format_metrics(*metrics));
  return {std::move(*metrics), train ? end : request.start_batch, ""};
}

Status serve_workloads(actors::RankSession& session, trial_api::TrialRunner& runner) {
  for (;;) {
    auto request = session.next_workload();
    if (!request) return fail(request.error());
    if (!*request) return {};
    session.complete(run_workload(runner, **request));
  }
}

}  // namespace volador::worker
