#include "runtime/cli/master_client.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/atoms.hpp"
#include "actors/blocking_request.hpp"
#include "runtime/net/actor_system_setup.hpp"
#include "runtime/net/remote.hpp"
#include "runtime/tls/temporary_identity.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::cli {
namespace {
constexpr auto kQueryTimeout = std::chrono::seconds(30);
constexpr auto kCreateTimeout = std::chrono::seconds(120);  // carries the model definition
constexpr auto kLoginTimeout = std::chrono::seconds(60);    // a password hash, maybe behind others
}  // namespace

struct MasterClient::Runtime {
  tls::TemporaryIdentity identity;
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;
  std::chrono::milliseconds connect_patience;  // how long it tries to reach the master

  Runtime(tls::TemporaryIdentity certificate, const master::Timings& timings)
      : identity(std::move(certificate)), connect_patience(timings.client_connect_patience) {
    net::configure_actor_system(config, identity.files(), timings.links);
    system = std::make_unique<caf::actor_system>(config);
  }
};

MasterClient::MasterClient(std::shared_ptr<Runtime> runtime, caf::actor gateway, net::Endpoint endpoint,
                           std::string token)
    : runtime_(std::move(runtime)), gateway_(std::move(gateway)), endpoint_(std::move(endpoint)), token_(std::move(token)) {}

Result<MasterClient> MasterClient::connect(const net::Endpoint& master, const std::filesystem::path& bundle,
                                           std::string token, const master::Timings& timings) {
  auto identity = tls::TemporaryIdentity::from_bundle(bundle);
  if (!identity)
    return fail(Error{identity.error().code, "the client's certificate: " + identity.error().message +
                                                 " (set --bundle or VOLADOR_BUNDLE to the master's DATA/tls/admin.bundle)"});
  auto runtime = std::make_shared<Runtime>(std::move(*identity), timings);
  auto& system = *runtime->system;
  // A loaded master may miss one attempt: try for a few seconds before giving up.
  auto gateway = net::await_master(system, master, std::chrono::steady_clock::now() + runtime->connect_patience);
  if (!gateway)
    return fail(Error::unavailable(gateway.error().message + " (is `volador-node up` running? set -m HOST:PORT or VOLADOR_MASTER; a master of "
                                   "another cluster refuses this client's certificate: set --bundle or VOLADOR_BUNDLE)"));
  return MasterClient(std::move(runtime), *gateway, master, std::move(token));
}

template <class Reply, class... Args>
Result<Reply> MasterClient::request(std::chrono::seconds timeout, Args&&... args) {
  return actors::blocking_request<Reply>(*runtime_->system, gateway_, timeout, std::forward<Args>(args)...);
}

template <class Reply, class Atom, class... Args>
Result<Reply> MasterClient::call(std::chrono::seconds timeout, Atom atom, Args&&... args) {
  auto out = request<Reply>(timeout, atom, token_, std::forward<Args>(args)...);
  if (!out && out.error().code == ErrorCode::unauthenticated)
    return fail(Error::unauthenticated(not_logged_in(endpoint_.to_string())));
  return out;
}

template <class Reply, class Atom, class... Args>
Result<Reply> MasterClient::query(Atom atom, Args&&... args) {
  auto out = call<Reply>(kQueryTimeout, atom, args...);
  if (out || out.error().code != ErrorCode::unavailable) return out;
  // The link may have dropped under load: a new one, and the question again.
  auto gateway = net::await_master(*runtime_->system, endpoint_,
                                   std::chrono::steady_clock::now() + runtime_->connect_patience, gateway_);
  if (!gateway) return fail(Error::unavailable(out.error().message + "; " + gateway.error().message));
  gateway_ = *gateway;
  return call<Reply>(kQueryTimeout, atom, std::forward<Args>(args)...);
}

template <class Atom, class... Args>
Status MasterClient::command(Atom atom, Args&&... args) {
  auto done = call<bool>(kQueryTimeout, atom, std::forward<Args>(args)...);
  if (!done) return fail(done.error());
  return {};
}

Result<wire::LoginReply> MasterClient::login(const std::string& name, const std::string& password) {
  return request<wire::LoginReply>(kLoginTimeout, actors::login_atom::value, name, password);
}

Status MasterClient::logout() { return command(actors::logout_atom::value); }
Result<wire::UserInfo> MasterClient::whoami() { return query<wire::UserInfo>(actors::whoami_atom::value); }
Result<wire::UserList> MasterClient::users() { return query<wire::UserList>(actors::users_atom::value); }

Result<wire::UserInfo> MasterClient::create_user(const std::string& name, const std::string& password, bool admin) {
  return call<wire::UserInfo>(kLoginTimeout, actors::create_user_atom::value, name, password, admin);
}

Status MasterClient::pause_experiment(std::uint64_t id) { return command(actors::pause_atom::value, id); }
Status MasterClient::activate_experiment(std::uint64_t id) { return command(actors::activate_atom::value, id); }
Status MasterClient::kill_experiment(std::uint64_t id) { return command(actors::kill_atom::value, id); }
Status MasterClient::kill_trial(std::uint64_t id) { return command(actors::kill_trial_atom::value, id); }
Status MasterClient::archive_experiment(std::uint64_t id, bool archived) {
  return command(actors::archive_atom::value, id, archived);
}

Result<wire::CheckpointList> MasterClient::checkpoints(std::uint64_t experiment_id, std::uint64_t trial_id) {
  return query<wire::CheckpointList>(actors::checkpoints_atom::value, experiment_id, trial_id);
}

Result<wire::CheckpointList> MasterClient::checkpoint(const std::string& uuid) {
  return query<wire::CheckpointList>(actors::checkpoints_atom::value, uuid);
}

Result<wire::CreateExperimentReply> MasterClient::create_experiment(const wire::CreateExperimentRequest& request) {
  return call<wire::CreateExperimentReply>(kCreateTimeout, actors::create_atom::value, wire::encode(request));
}

Result<wire::ExperimentList> MasterClient::list_experiments(bool include_archived) {
  return query<wire::ExperimentList>(actors::list_atom::value, include_archived);
}

Result<wire::ExperimentDetail> MasterClient::describe_experiment(std::uint64_t id) {
  return query<wire::ExperimentDetail>(actors::describe_atom::value, id);
}

Result<wire::TrialList> MasterClient::list_trials(std::uint64_t experiment_id) {
  return query<wire::TrialList>(actors::trials_atom::value, experiment_id);
}

Result<wire::TrialSummary> MasterClient::trial_summary(std::uint64_t id) {
  return query<wire::TrialSummary>(actors::trial_atom::value, id);
}

Result<wire::TrialDetail> MasterClient::describe_trial(std::uint64_t id, std::uint32_t max_points) {
  return query<wire::TrialDetail>(actors::trial_atom::value, id, max_points);
}

Result<wire::LogBatch> MasterClient::trial_logs(std::uint64_t id, std::uint64_t after_seq) {
  return query<wire::LogBatch>(actors::logs_atom::value, id, after_seq);
}

Result<wire::AgentList> MasterClient::agents() { return query<wire::AgentList>(actors::agents_atom::value); }

Result<wire::PoolList> MasterClient::pools() { return query<wire::PoolList>(actors::pools_atom::value); }

// Removing an experiment's checkpoint folders may take a while.
Status MasterClient::delete_experiment(std::uint64_t id) {
  auto done = call<bool>(kCreateTimeout, actors::delete_atom::value, id);
  if (!done) return fail(done.error());
  return {};
}

Result<wire::CreateExperimentReply> MasterClient::fork_experiment(const wire::ForkExperimentRequest& request) {
  return call<wire::CreateExperimentReply>(kCreateTimeout, actors::fork_atom::value, wire::encode(request));
}

Result<wire::CreateExperimentReply> MasterClient::continue_experiment(const wire::ForkExperimentRequest& request) {
  return call<wire::CreateExperimentReply>(kCreateTimeout, actors::continue_atom::value, wire::encode(request));
}

Result<wire::ModelDefinition> MasterClient::model_definition(std::uint64_t id) {
  return query<wire::ModelDefinition>(actors::model_def_atom::value, id);
}

Status MasterClient::set_experiment_metadata(const wire::ExperimentMetadataChange& change) {
  return command(actors::set_metadata_atom::value, wire::encode(change));
}

Status MasterClient::delete_checkpoint(const std::string& uuid) {
  return command(actors::delete_checkpoint_atom::value, uuid);
}

Result<wire::ModelSummary> MasterClient::create_model(const std::string& name, const std::string& description) {
  return call<wire::ModelSummary>(kQueryTimeout, actors::create_model_atom::value, name, description);
}

Result<wire::ModelVersion> MasterClient::register_model_version(const std::string& name, const std::string& uuid) {
  return call<wire::ModelVersion>(kQueryTimeout, actors::register_model_atom::value, name, uuid);
}

Result<wire::ModelList> MasterClient::models() { return query<wire::ModelList>(actors::models_atom::value); }

Result<wire::ModelDetail> MasterClient::model(const std::string& name) {
  return query<wire::ModelDetail>(actors::model_atom::value, name);
}

std::string not_logged_in(const std::string& master) {
  return "not logged in to " + master + ": run 'volador user login NAME'";
}

}  // namespace volador::cli
