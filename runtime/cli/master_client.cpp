#include "runtime/cli/master_client.hpp"

#include <caf/all.hpp>
#include <caf/io/all.hpp>

#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "runtime/net/actor_system_setup.hpp"
#include "runtime/net/remote.hpp"
#include "runtime/tls/temporary_identity.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::cli {
namespace {
constexpr auto kConnectPatience = std::chrono::seconds(3);
constexpr auto kQueryTimeout = std::chrono::seconds(30);
constexpr auto kCreateTimeout = std::chrono::seconds(120);  // carries the model definition
}  // namespace

struct MasterClient::Runtime {
  tls::TemporaryIdentity identity;
  caf::actor_system_config config;
  std::unique_ptr<caf::actor_system> system;

  explicit Runtime(tls::TemporaryIdentity certificate) : identity(std::move(certificate)) {
    net::configure_actor_system(config, identity.files());
    system = std::make_unique<caf::actor_system>(config);
  }
};

MasterClient::MasterClient(std::shared_ptr<Runtime> runtime, caf::actor gateway, net::Endpoint endpoint)
    : runtime_(std::move(runtime)), gateway_(std::move(gateway)), endpoint_(std::move(endpoint)) {}

Result<MasterClient> MasterClient::connect(const net::Endpoint& master, const std::filesystem::path& bundle) {
  auto identity = tls::TemporaryIdentity::from_bundle(bundle);
  if (!identity)
    return fail(Error{identity.error().code, "the client's certificate: " + identity.error().message +
                                                 " (set --bundle or VOLADOR_BUNDLE to the master's DATA/tls/admin.bundle)"});
  auto runtime = std::make_shared<Runtime>(std::move(*identity));
  auto& system = *runtime->system;
  // A loaded master may miss one attempt: try for a few seconds before giving up.
  auto gateway = net::await_master(system, master, std::chrono::steady_clock::now() + kConnectPatience);
  if (!gateway)
    return fail(Error::unavailable(gateway.error().message + " (is `volador-node up` running? set -m HOST:PORT or VOLADOR_MASTER; a master of "
                                   "another cluster refuses this client's certificate: set --bundle or VOLADOR_BUNDLE)"));
  return MasterClient(std::move(runtime), *gateway, master);
}

template <class Reply, class... Args>
Result<Reply> MasterClient::call(std::chrono::seconds timeout, Args&&... args) {
  caf::scoped_actor self{*runtime_->system};
  Result<Reply> out = fail(Error::internal("no reply"));
  self->request(gateway_, timeout, std::forward<Args>(args)...)
      .receive([&](const wire::Bytes& bytes) { out = wire::decode<Reply>(bytes); },
               [&](const caf::error& error) { out = fail(actors::from_caf_error(error)); });
  return out;
}

template <class... Args>
Status MasterClient::command(Args&&... args) {
  caf::scoped_actor self{*runtime_->system};
  Status out;
  self->request(gateway_, kQueryTimeout, std::forward<Args>(args)...)
      .receive([](bool) {}, [&](const caf::error& error) { out = fail(actors::from_caf_error(error)); });
  return out;
}

Status MasterClient::pause_experiment(std::uint64_t id) { return command(actors::pause_atom::value, id); }
Status MasterClient::activate_experiment(std::uint64_t id) { return command(actors::activate_atom::value, id); }
Status MasterClient::kill_experiment(std::uint64_t id) { return command(actors::kill_atom::value, id); }
Status MasterClient::kill_trial(std::uint64_t id) {
  return command(actors::kill_trial_atom::value, id);
}

Result<wire::CheckpointList> MasterClient::checkpoints(std::uint64_t experiment_id, std::uint64_t trial_id) {
  return call<wire::CheckpointList>(kQueryTimeout, actors::checkpoints_atom::value, experiment_id, trial_id);
}

Result<wire::CheckpointList> MasterClient::checkpoint(const std::string& uuid) {
  return call<wire::CheckpointList>(kQueryTimeout, actors::checkpoints_atom::value, uuid);
}

Result<wire::CreateExperimentReply> MasterClient::create_experiment(const wire::CreateExperimentRequest& request) {
  return call<wire::CreateExperimentReply>(kCreateTimeout, actors::create_atom::value, wire::encode(request));
}

Result<wire::ExperimentList> MasterClient::list_experiments() {
  return call<wire::ExperimentList>(kQueryTimeout, actors::list_atom::value);
}

Result<wire::ExperimentDetail> MasterClient::describe_experiment(std::uint64_t id) {
  return call<wire::ExperimentDetail>(kQueryTimeout, actors::describe_atom::value, id);
}

Result<wire::TrialDetail> MasterClient::describe_trial(std::uint64_t id) {
  return call<wire::TrialDetail>(kQueryTimeout, actors::trial_atom::value, id);
}

Result<wire::LogBatch> MasterClient::trial_logs(std::uint64_t id, std::uint64_t after_seq) {
  return call<wire::LogBatch>(kQueryTimeout, actors::logs_atom::value, id, after_seq);
}

Result<wire::AgentList> MasterClient::agents() { return call<wire::AgentList>(kQueryTimeout, actors::agents_atom::value); }

}  // namespace volador::cli
