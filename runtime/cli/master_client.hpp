#pragma once
// The client side of the master's gateway: one blocking call per request,
// each with a timeout, each returning the decoded reply or an Error. Every
// call but login carries the client's login token; the master refusing it
// comes back as `unauthenticated` "not logged in to HOST:PORT: run 'volador
// user login NAME'".

#include <chrono>
#include <filesystem>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "master/timings.hpp"
#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::cli {

// "not logged in to MASTER: run 'volador user login NAME'": what the CLI
// says when it has no valid token for `master`.
std::string not_logged_in(const std::string& master);

class MasterClient {
 public:
  // Presents the client certificate in `bundle` (mutual TLS) and connects to
  // the master's gateway. Errors: the bundle is missing or damaged (naming
  // it), or unavailable naming the address once `timings`'
  // client_connect_patience has passed. `token`: the login token sent with
  // every call (empty before a login).
  static Result<MasterClient> connect(const net::Endpoint& master, const std::filesystem::path& bundle,
                                      std::string token, const master::Timings& timings = {});

  // The token and its user; wrong credentials: unauthenticated "wrong user name or password".
  Result<wire::LoginReply> login(const std::string& name, const std::string& password);
  // Revokes this client's token.
  Status logout();
  Result<wire::UserInfo> whoami();
  Result<wire::UserList> users();
  Result<wire::UserInfo> create_user(const std::string& name, const std::string& password, bool admin);

  Result<wire::CreateExperimentReply> create_experiment(const wire::CreateExperimentRequest& request);
  // Archived ones only with `include_archived`.
  Result<wire::ExperimentList> list_experiments(bool include_archived);
  Result<wire::ExperimentDetail> describe_experiment(std::uint64_t id);
  // Trials of one experiment, or of every experiment (experiment_id 0).
  Result<wire::TrialList> list_trials(std::uint64_t experiment_id);
  Result<wire::TrialSummary> trial_summary(std::uint64_t id);
  // Each metric series cut to at most `max_points` points (0: every point).
  Result<wire::TrialDetail> describe_trial(std::uint64_t id, std::uint32_t max_points);
  Result<wire::LogBatch> trial_logs(std::uint64_t id, std::uint64_t after_seq);
  Status pause_experiment(std::uint64_t id);
  Status activate_experiment(std::uint64_t id);
  Status kill_experiment(std::uint64_t id);
  Status kill_trial(std::uint64_t id);
  // Archives (or unarchives) an ended experiment.
  Status archive_experiment(std::uint64_t id, bool archived);
  // Checkpoints of an experiment (trial_id 0) or of a trial (experiment_id 0).
  Result<wire::CheckpointList> checkpoints(std::uint64_t experiment_id, std::uint64_t trial_id);
  Result<wire::CheckpointList> checkpoint(const std::string& uuid);
  Result<wire::AgentList> agents();
  Result<wire::PoolList> pools();

  // The lifecycle of an experiment (master/lifecycle_requests.hpp) and the model registry (master/model_registry.hpp).
  Status delete_experiment(std::uint64_t id);
  Result<wire::CreateExperimentReply> fork_experiment(const wire::ForkExperimentRequest& request);
  Result<wire::CreateExperimentReply> continue_experiment(const wire::ForkExperimentRequest& request);
  Result<wire::ModelDefinition> model_definition(std::uint64_t id);
  Status set_experiment_metadata(const wire::ExperimentMetadataChange& change);
  Status delete_checkpoint(const std::string& uuid);
  Result<wire::ModelSummary> create_model(const std::string& name, const std::string& description);
  Result<wire::ModelVersion> register_model_version(const std::string& name, const std::string& uuid);
  Result<wire::ModelList> models();
  Result<wire::ModelDetail> model(const std::string& name);

 private:
  struct Runtime;  // the certificate's files and the actor system, shared by copies
  MasterClient(std::shared_ptr<Runtime> runtime, caf::actor gateway, net::Endpoint endpoint, std::string token);
  // (atom, args...) without the token.
  template <class Reply, class... Args>
  Result<Reply> request(std::chrono::seconds timeout, Args&&... args);
  // (atom, token, args...): the decoded reply, or (Reply = bool) the acknowledgement.
  template <class Reply, class Atom, class... Args>
  Result<Reply> call(std::chrono::seconds timeout, Atom atom, Args&&... args);
  // call() for a question that changes nothing: asked again, once, over a new
  // connection when the first answer did not come (unavailable: the link may
  // have dropped under load). Commands are never sent twice.
  template <class Reply, class Atom, class... Args>
  Result<Reply> query(Atom atom, Args&&... args);
  template <class Atom, class... Args>
  Status command(Atom atom, Args&&... args);

  std::shared_ptr<Runtime> runtime_;
  caf::actor gateway_;
  net::Endpoint endpoint_;
  std::string token_;
};

}  // namespace volador::cli
