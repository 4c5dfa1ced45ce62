#include "actors/gateway_lifecycle.hpp"

#include <spdlog/spdlog.h>

#include "actors/caf_error.hpp"
#include "master/lifecycle_requests.hpp"
#include "runtime/core/clock.hpp"

namespace volador::actors {

Status delete_experiment(GatewayPointer self, const master::User& user, std::uint64_t id) {
  const auto& context = self->state.context;
  const bool running = self->state.experiments.contains(id);
  auto report = master::delete_experiment_for(*context.journal, context.data_dir, user, id, running);
  if (!report) return fail(report.error());
  spdlog::info("experiment {} deleted by {} ({} checkpoints removed, {} registered ones kept)", id, user.name,
               report->checkpoints_removed, report->checkpoints_kept);
  return {};
}

caf::result<wire::Bytes> fork_experiment(GatewayPointer self, const std::string& token, const wire::Bytes& bytes,
                                         bool continuing) {
  auto user = self->state.context.users->authenticate(token);
  if (!user) return to_caf_error(user.error());
  auto request = wire::decode<wire::ForkExperimentRequest>(bytes);
  if (!request) return to_caf_error(request.error());
  const auto& context = self->state.context;
  auto submission = continuing ? master::continue_submission(*context.journal, context.data_dir, *request)
                               : master::fork_submission(*context.journal, *request);
  if (!submission) return to_caf_error(submission.error());
  if (!submission->errors.empty())
    return wire::encode(wire::CreateExperimentReply{.experiment_id = 0, .errors = std::move(submission->errors)});
  auto promise = self->make_response_promise<wire::Bytes>();
  promise.delegate(GatewayActor(self), create_atom::value, token, wire::encode(submission->request));
  return promise;
}

Status set_experiment_metadata(GatewayPointer self, const master::User& user, const wire::Bytes& bytes) {
  auto change = wire::decode<wire::ExperimentMetadataChange>(bytes);
  if (!change) return fail(change.error());
  return master::set_experiment_metadata(*self->state.context.journal, user, *change, system_now_ms());
}

void finish_interrupted_deletions(const MasterContext& context) {
  for (const auto& error : master::finish_pending_deletions(*context.journal, context.data_dir))
    spdlog::error("an interrupted experiment deletion is not finished (it is tried again at the next start): {}",
                  error.message);
}

}  // namespace volador::actors
