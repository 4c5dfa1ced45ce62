#pragma once
// The client side of the master's gateway: one blocking call per request,
// each with a timeout, each returning the decoded reply or an Error.

#include <chrono>
#include <filesystem>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::cli {

class MasterClient {
 public:
  // Presents the client certificate in `bundle` (mutual TLS) and connects to
  // the master's gateway. Errors: the bundle is missing or damaged (naming
  // it), or unavailable naming the address.
  static Result<MasterClient> connect(const net::Endpoint& master, const std::filesystem::path& bundle);

  Result<wire::CreateExperimentReply> create_experiment(const wire::CreateExperimentRequest& request);
  Result<wire::ExperimentList> list_experiments();
  Result<wire::ExperimentDetail> describe_experiment(std::uint64_t id);
  Result<wire::TrialDetail> describe_trial(std::uint64_t id);
  Result<wire::LogBatch> trial_logs(std::uint64_t id, std::uint64_t after_seq);
  Status pause_experiment(std::uint64_t id);
  Status activate_experiment(std::uint64_t id);
  Status kill_experiment(std::uint64_t id);
  Status kill_trial(std::uint64_t id);
  // Checkpoints of an experiment (trial_id 0) or of a trial (experiment_id 0).
  Result<wire::CheckpointList> checkpoints(std::uint64_t experiment_id, std::uint64_t trial_id);
  Result<wire::CheckpointList> checkpoint(const std::string& uuid);
  Result<wire::AgentList> agents();

 private:
  struct Runtime;  // the certificate's files and the actor system, shared by copies
  MasterClient(std::shared_ptr<Runtime> runtime, caf::actor gateway, net::Endpoint endpoint);
  template <class Reply, class... Args>
  Result<Reply> call(std::chrono::seconds timeout, Args&&... args);
  template <class... Args>
  Status command(Args&&... args);

  std::shared_ptr<Runtime> runtime_;
  caf::actor gateway_;
  net::Endpoint endpoint_;
};

}  // namespace volador::cli
