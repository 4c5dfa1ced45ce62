#include "actors/master_actor.hpp"

#include <variant>

#include <caf/all.hpp>
#include <spdlog/spdlog.h>


#include "actors/atoms.hpp"
#include "actors/caf_error.hpp"
#include "actors/encoded_reply.hpp"
#include "actors/experiment_actor.hpp"
#include "actors/gateway_lifecycle.hpp"
#include "actors/peer_check.hpp"
#include "actors/query_actors.hpp"
#include "master/image_admission.hpp"
#include "master/experiment_continuation.hpp"
#include "master/experiment_store.hpp"
#include "master/lifecycle_requests.hpp"
#include "master/model_registry.hpp"
#include "master/trial_imports.hpp"
#include "master/users/ownership.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/core/random_bytes.hpp"
#include "runtime/command/entrypoint.hpp"
#include "runtime/wire/codec.hpp"

namespace volador::actors {
namespace {

using Self = GatewayActor::stateful_pointer<MasterState>;

constexpr auto kPoolTimeout = std::chrono::seconds(10);
#ifdef VOLADOR_HAVE_PYTHON
constexpr bool kPythonTrialsBuilt = true;
#else
constexpr bool kPythonTrialsBuilt = false;
#endif


caf::result<bool> acknowledge(Status status) {
  if (!status) return to_caf_error(status.error());
  return true;
}

// The handler of a client's message (Atom, token, Args...): authenticates
// the token, in this one place, then answers handle(user, args...); a
// missing, invalid or expired token gets `unauthenticated`, a rank worker's
// identity `permission_denied` whatever its token.
template <class Reply, class Atom, class... Args, class Handle>
auto for_user(Self self, Handle handle) {
  return [self, handle](Atom, const std::string& token, Args... args) -> caf::result<Reply> {
    if (auto allowed = master::check_not_rank(current_peer(self), "make a client's request"); !allowed)
      return to_caf_error(allowed.error());
    auto user = self->state.context.users->authenticate(token);
    if (!user) return to_caf_error(user.error());
    return handle(*user, std::move(args)...);
  };
}

// Experiment `id` when `user` may `what` it (its owner or an admin), else why not.
Result<storage::ExperimentRecord> changeable_experiment(Self self, const master::User& user, std::uint64_t id,
                                                        std::string_view what) {
  auto experiment = self->state.context.journal->experiment(id);
  if (!experiment) return fail(experiment.error());
  if (auto allowed = master::check_may_change(user, *experiment, what); !allowed) return fail(allowed.error());
  return experiment;
}

// Archives or unarchives ended experiment `id` for `user`.
Status set_archived(Self self, const master::User& user, std::uint64_t id, bool archived) {
  auto experiment = changeable_experiment(self, user, id, archived ? "archive" : "unarchive");
  if (!experiment) return fail(experiment.error());
  if (!is_terminal(experiment->state) || self->state.experiments.contains(id))
    return fail(Error::invalid_argument(fmt::format("experiment {} is {}: only an ended experiment can be archived", id,
                                                    to_string(experiment->state))));
  experiment->archived = archived;
  return self->state.context.journal->put_experiment(*experiment);
}

// Hands a client's question to a query actor, which answers the client.
template <class Queries, class... Args>
caf::typed_response_promise<wire::Bytes> ask(Self self, const Queries& queries, Args... args) {
  auto promise = self->make_response_promise<wire::Bytes>();
  promise.delegate(queries, std::move(args)...);
  return promise;
}

// Hashes passwords on a thread of its own, for the gateway.
PasswordActor::behavior_type password_actor(std::shared_ptr<master::UserDirectory> users) {
  return {
      [users](login_atom, const std::string& name, const std::string& password) {
        return encoded_reply(users->login(name, password, ""));
      },
      [users](create_user_atom, const std::string& by_name, bool by_admin, const std::string& name,
              const std::string& password, bool admin) {
        return encoded_reply(users->create_user(master::User{.name = by_name, .admin = by_admin}, name, password, admin));
      },
  };
}

wire::CreateExperimentReply refused(std::vector<std::string> errors) { return {0, std::move(errors)}; }

std::uint32_t random_experiment_seed() { return random_u32() & 0x7fffffffu; }

// Why the Python trial `entrypoint` of the project `archive` cannot run for
// the trial API it imports (Keras, DeepSpeed), one line each.
std::vector<std::string> unavailable_trial_apis(const command::PythonTrialEntrypoint& entrypoint,
                                                std::string_view archive) {
  auto found = master::unsupported_trial_imports(archive, entrypoint);
  if (!found) return {"the project archive cannot be read: " + found.error().message};
  return std::move(*found);
}

// What this build cannot run, one line each (empty when it can run it).
std::vector<std::string> unsupported_features(const config::ExperimentConfig& config,
                                              const wire::CreateExperimentRequest& request) {
  const std::string& file = request.config_file_name;
  std::vector<std::string> out;
  const auto& entrypoint = config.entrypoint.kind;
  if (const auto* python = std::get_if<command::PythonTrialEntrypoint>(&entrypoint)) {
    out = unavailable_trial_apis(*python, request.archive);
    if (!kPythonTrialsBuilt)
      out.push_back(file + ": entrypoint: '" + config.entrypoint.text + "' is a Python trial, and this build has no Python "
                    "support (install python3-dev and pybind11-dev, then rebuild)");
  } else if (std::holds_alternative<command::CommandEntrypoint>(entrypoint) &&
             config.searcher.name == "adaptive_asha") {
    out.push_back(file + ": searcher.name: adaptive_asha cannot run the command '" + config.entrypoint.text +
                  "': a command runs to completion by itself and cannot stop at a rung and resume later "
                  "(use single, grid, random, tpe or bayesian, with median early stopping if you like)");
  }
  return out;
}

void track_experiment(Self self, std::uint64_t id, ExperimentActor experiment) {
  self->state.experiments[id] = experiment;
  self->monitor(experiment);
}

// Tells running experiment `id` to pause, activate or kill (`what`), when
// `user` may; else why not.
template <class Atom>
caf::result<bool> change_experiment(Self self, const master::User& user, std::uint64_t id, std::string_view what,
                                    Atom atom) {
  if (auto allowed = changeable_experiment(self, user, id, what); !allowed) return to_caf_error(allowed.error());
  auto running = self->state.experiments.find(id);
  if (running == self->state.experiments.end())
    return to_caf_error(Error::not_found(fmt::format("experiment {} is not running (finished or unknown)", id)));
  auto promise = self->make_response_promise<bool>();
  promise.delegate(running->second, atom);
  return promise;
}

// Kills running trial `id`, when `user` may change its experiment; else why not.
caf::result<bool> kill_trial(Self self, const master::User& user, std::uint64_t id) {
  auto trial = self->state.context.journal->trial(id);
  if (!trial) return to_caf_error(trial.error());
  if (auto allowed = changeable_experiment(self, user, trial->experiment_id, "kill a trial of");
      !allowed)
    return to_caf_error(allowed.error());
  auto running = self->state.trials.find(id);
  if (running == self->state.trials.end())
    return to_caf_error(Error::not_found(fmt::format("trial {} is not running (finished or unknown)", id)));
  self->send(running->second, kill_atom::value);
  return true;
}

// Hands a rank's hello or rejoin to trial `trial_id`'s actor, which decodes
// it; not_found while that trial is not running.
template <class Reply, class Atom>
caf::typed_response_promise<Reply> route_to_trial(Self self, Atom atom, std::uint64_t trial_id, wire::Bytes bytes,
                                                  caf::actor rank) {
  auto promise = self->make_response_promise<Reply>();
  auto it = self->state.trials.find(trial_id);
  if (it == self->state.trials.end())
    promise.deliver(to_caf_error(Error::not_found("trial " + std::to_string(trial_id) + " is not running")));
  else
    promise.delegate(it->second, atom, std::move(bytes), std::move(rank));
  return promise;
}

// Continues an ACTIVE or PAUSED experiment journaled by an earlier master.
Status recover_experiment(Self self, const storage::ExperimentRecord& record) {
  auto& journal = *self->state.context.journal;
  auto parsed = config::parse_experiment_config(record.config_yaml, record.config_file_name);
  auto* config = std::get_if<config::ExperimentConfig>(&parsed);
  if (config == nullptr) return fail(Error::corruption("its journaled config no longer parses"));
  auto shared_config = std::make_shared<const config::ExperimentConfig>(std::move(*config));
  auto store = master::experiment_store(*shared_config, self->state.context.data_dir);
  auto searcher = master::experiment_searcher(record.continues, *shared_config, record.experiment_seed);
  auto archive = journal.archive(record.id);
  auto search_state = journal.search_log(record.id);
  auto trials = journal.trials(record.id);
  if (!store) return fail(store.error());
  if (!searcher) return fail(searcher.error());
  if (!archive) return fail(archive.error());
  if (!search_state) return fail(search_state.error());
  if (!trials) return fail(trials.error());
  if (!*search_state) return fail(Error::corruption("no search state was journaled"));
  auto recovery = std::make_shared<const ExperimentRecovery>(ExperimentRecovery{std::move(**search_state), std::move(*trials)});
  auto experiment = self->spawn(experiment_actor, self->state.context, record, shared_config,
                                std::make_shared<const std::string>(std::move(*archive)), *store,
                                std::shared_ptr<search::Searcher>(std::move(*searcher)), recovery);
  track_experiment(self, record.id, experiment);
  return {};
}

// Continues every unfinished experiment of the journal (once, at start).
void recover_experiments(Self self) {
  auto experiments = self->state.context.journal->experiments();
  if (!experiments) return spdlog::error("cannot read experiments to recover: {}", experiments.error().message);
  for (auto& record : *experiments) {
    if (is_terminal(record.state)) continue;
    if (auto recovered = recover_experiment(self, record); !recovered) {
      spdlog::error("experiment {} cannot be recovered: {}", record.id, recovered.error().message);
      record.state = RunState::error;
      record.error_message = "not recoverable after a master restart: " + recovered.error().message;
      record.ended_at_ms = system_now_ms();
      if (auto marked = self->state.context.journal->put_experiment(record); !marked)
        spdlog::error("experiment {}: journaling it as ERROR failed (it is tried again at the next start): {}", record.id,
                      marked.error().message);
      continue;
    }
    spdlog::info("experiment {} recovered ({})", record.id, to_string(record.state));
  }
}

// The request's config, or the reply refusing it with every error.
std::variant<std::shared_ptr<const config::ExperimentConfig>, wire::CreateExperimentReply> parse_submission(
    const wire::CreateExperimentRequest& request) {
  auto parsed = config::parse_experiment_config(request.config_yaml, request.config_file_name);
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&parsed)) {
    std::vector<std::string> lines;
    for (const auto& e : *errors) lines.push_back(e.to_string());
    return refused(std::move(lines));
  }
  auto config = std::make_shared<const config::ExperimentConfig>(std::get<config::ExperimentConfig>(std::move(parsed)));
  if (auto missing = unsupported_features(*config, request); !missing.empty())
    return refused(std::move(missing));
  return config;
}

// Journals and starts a new experiment that `pool` admitted (its trials go
// there); the reply carries its id or why it was refused.
wire::CreateExperimentReply create_experiment(Self self, const wire::CreateExperimentRequest& request,
                                              std::shared_ptr<const config::ExperimentConfig> config,
                                              const std::string& owner, const std::string& pool) {
  const auto seed = config->experiment_seed.value_or(random_experiment_seed());
  auto plan = master::continuation_plan(*self->state.context.journal, request.continue_from);
  if (!plan) return refused({plan.error().message});
  auto searcher = master::experiment_searcher(*plan, *config, seed);
  if (!searcher) return refused({request.config_file_name + ": searcher.name: " + searcher.error().message});

  auto store = master::experiment_store(*config, self->state.context.data_dir);
  if (!store) return refused({request.config_file_name + ": checkpoint_storage: " + store.error().message});

  auto& journal = *self->state.context.journal;
  auto id = journal.next_id("experiment");
  if (!id) return refused({"the master cannot journal the experiment: " + id.error().message});
  storage::ExperimentRecord record{.id = *id,
                                   .name = config->name,
                                   .config_yaml = request.config_yaml,
                                   .config_file_name = request.config_file_name,
                                   .state = RunState::active,
                                   .experiment_seed = seed,
                                   .progress = 0,
                                   .error_message = "",
                                   .created_at_ms = system_now_ms(),
                                   .ended_at_ms = 0,
                                   .owner = owner,
                                   .archived = false};
  record.continued_from = request.continue_from;
  record.continues = std::move(*plan);
  record.resource_pool = pool;
  if (auto s = journal.put_archive(*id, request.archive); !s) return refused({"storing the model definition failed: " + s.error().message});
  if (auto s = journal.put_experiment(record); !s) return refused({"journaling the experiment failed: " + s.error().message});
  spdlog::info("experiment {} '{}' created by {} ({} searcher)", *id, config->name, owner, config->searcher.name);
  auto experiment = self->spawn(experiment_actor, self->state.context, record, config,
                                std::make_shared<const std::string>(request.archive), *store,
                                std::shared_ptr<search::Searcher>(std::move(*searcher)),
                                std::shared_ptr<const ExperimentRecovery>());
  track_experiment(self, *id, experiment);
  return {*id, {}};
}

}  // namespace


GatewayActor::behavior_type master_actor(Self self, MasterContext context,
                                         std::shared_ptr<const master::ReadModel> summaries) {
  self->state.context = std::move(context);
  self->state.context.gateway = GatewayActor(self);
  self->set_down_handler([=](const caf::down_msg& down) {
    std::erase_if(self->state.experiments, [&](const auto& entry) { return entry.second.address() == down.source; });
  });
  // A stop takes the experiment and trial actors with the gateway (nothing
  // else would end them, and the process waits for every actor); the runs
  // on the agents go on, kept for a restarted master as after a crash.
  self->set_exit_handler([=](const caf::exit_msg& exit) {
    for (const auto& [id, experiment] : self->state.experiments) self->send_exit(experiment, exit.reason);
    for (const auto& [id, trial] : self->state.trials) self->send_exit(trial, exit.reason);
    self->quit(exit.reason);
  });
  auto passwords = self->spawn<caf::detached + caf::linked>(password_actor, self->state.context.users);
  auto summary_queries = self->spawn<caf::detached + caf::linked>(summary_query_actor, summaries);
  auto history_queries = self->spawn<caf::detached + caf::linked>(history_query_actor, self->state.context.journal,
                                                                  summaries, self->state.context.data_dir);
  return {
      for_user<wire::Bytes, create_atom, wire::Bytes>(self, [=](const master::User& user, const wire::Bytes& bytes) {
        auto promise = self->make_response_promise<wire::Bytes>();
        auto request = wire::decode<wire::CreateExperimentRequest>(bytes);
        if (!request) {
          promise.deliver(to_caf_error(request.error()));
          return promise;
        }
        auto submission = parse_submission(*request);
        if (auto* refusal = std::get_if<wire::CreateExperimentReply>(&submission)) {
          promise.deliver(wire::encode(*refusal));
          return promise;
        }
        auto config = std::get<std::shared_ptr<const config::ExperimentConfig>>(std::move(submission));
        // The pool refuses an unknown pool, or one whose agents could never fit a trial or run its image.
        self->request(self->state.context.pool, kPoolTimeout, capacity_atom::value, config->resources.resource_pool,
                      config->resources.slots_per_trial, config->resources.memory_limit, config->resources.max_processes,
                      master::image_fields(config->environment))
            .then([=](const std::string& pool) mutable {
                    promise.deliver(wire::encode(create_experiment(self, *request, config, user.name, pool)));
                  },
                  [=](const caf::error& error) mutable {
                    const auto why = from_caf_error(error);
                    if (why.code != ErrorCode::invalid_argument) promise.deliver(error);
                    else promise.deliver(wire::encode(refused({request->config_file_name + ": " + why.message})));
                  });
        return promise;
      }),
      for_user<wire::Bytes, list_atom, bool>(self, [=](const master::User&, bool all) {
        return ask(self, summary_queries, list_atom::value, all);
      }),
      for_user<wire::Bytes, describe_atom, std::uint64_t>(self, [=](const master::User&, std::uint64_t id) {
        return ask(self, summary_queries, describe_atom::value, id);
      }),
      for_user<wire::Bytes, trials_atom, std::uint64_t>(self, [=](const master::User&, std::uint64_t experiment_id) {
        return ask(self, summary_queries, trials_atom::value, experiment_id);
      }),
      for_user<wire::Bytes, trial_atom, std::uint64_t>(self, [=](const master::User&, std::uint64_t id) {
        return ask(self, summary_queries, trial_atom::value, id);
      }),
      for_user<wire::Bytes, trial_atom, std::uint64_t, std::uint32_t>(
          self, [=](const master::User&, std::uint64_t id, std::uint32_t max_points) {
            return ask(self, history_queries, trial_atom::value, id, max_points);
          }),
      for_user<wire::Bytes, logs_atom, std::uint64_t, std::uint64_t>(
          self, [=](const master::User&, std::uint64_t id, std::uint64_t after_seq) {
            return ask(self, history_queries, logs_atom::value, id, after_seq);
          }),
      for_user<wire::Bytes, agents_atom>(self, [=](const master::User&) {
        auto promise = self->make_response_promise<wire::Bytes>();
        promise.delegate(self->state.context.pool, agents_atom::value);
        return promise;
      }),
      for_user<wire::Bytes, pools_atom>(self, [=](const master::User&) {
        auto promise = self->make_response_promise<wire::Bytes>();
        promise.delegate(self->state.context.pool, pools_atom::value);
        return promise;
      }),
      for_user<bool, pause_atom, std::uint64_t>(self, [=](const master::User& user, std::uint64_t id) {
        return change_experiment(self, user, id, "pause", pause_atom::value);
      }),
      for_user<bool, activate_atom, std::uint64_t>(self, [=](const master::User& user, std::uint64_t id) {
        return change_experiment(self, user, id, "activate", activate_atom::value);
      }),
      for_user<bool, kill_atom, std::uint64_t>(self, [=](const master::User& user, std::uint64_t id) {
        return change_experiment(self, user, id, "kill", kill_atom::value);
      }),
      for_user<bool, kill_trial_atom, std::uint64_t>(self, [=](const master::User& user, std::uint64_t id) {
        return kill_trial(self, user, id);
      }),
      for_user<bool, archive_atom, std::uint64_t, bool>(self, [=](const master::User& user, std::uint64_t id, bool archived) {
        return acknowledge(set_archived(self, user, id, archived));
      }),
      for_user<wire::Bytes, checkpoints_atom, std::uint64_t, std::uint64_t>(
          self, [=](const master::User&, std::uint64_t experiment_id, std::uint64_t trial_id) {
            return ask(self, history_queries, checkpoints_atom::value, experiment_id, trial_id);
          }),
      for_user<wire::Bytes, checkpoints_atom, std::string>(self, [=](const master::User&, const std::string& uuid) {
        return ask(self, history_queries, checkpoints_atom::value, uuid);
      }),
      for_user<bool, delete_atom, std::uint64_t>(self, [=](const master::User& user, std::uint64_t id) {
        return acknowledge(delete_experiment(self, user, id));
      }),
      [=](fork_atom, const std::string& token, const wire::Bytes& bytes) {
        return fork_experiment(self, token, bytes, false);
      },
      [=](continue_atom, const std::string& token, const wire::Bytes& bytes) {
        return fork_experiment(self, token, bytes, true);
      },
      for_user<wire::Bytes, model_def_atom, std::uint64_t>(self, [=](const master::User&, std::uint64_t id) {
        return encoded_reply(master::model_definition(*self->state.context.journal, id));
      }),
      for_user<bool, set_metadata_atom, wire::Bytes>(self, [=](const master::User& user, const wire::Bytes& bytes) {
        return acknowledge(set_experiment_metadata(self, user, bytes));
      }),
      for_user<bool, delete_checkpoint_atom, std::string>(self, [=](const master::User& user, const std::string& uuid) {
        const auto& c = self->state.context;
        return acknowledge(master::delete_checkpoint_for(*c.journal, c.data_dir, user, uuid));
      }),
      for_user<wire::Bytes, create_model_atom, std::string, std::string>(
          self, [=](const master::User& user, const std::string& name, std::string description) {
            return encoded_reply(
                master::create_model(*self->state.context.journal, name, std::move(description), user, system_now_ms()));
          }),
      for_user<wire::Bytes, register_model_atom, std::string, std::string>(
          self, [=](const master::User& user, const std::string& name, const std::string& uuid) {
            const auto& c = self->state.context;
            return encoded_reply(master::register_model_version(*c.journal, c.data_dir, name, uuid, user, system_now_ms()));
          }),
      for_user<wire::Bytes, models_atom>(
          self, [=](const master::User&) { return encoded_reply(master::list_models(*self->state.context.journal)); }),
      for_user<wire::Bytes, model_atom, std::string>(self, [=](const master::User&, const std::string& name) {
        return encoded_reply(master::describe_model(*self->state.context.journal, name));
      }),
      [=](login_atom, std::string& name, std::string& password) {
        const auto allowed = master::check_not_rank(current_peer(self), "log in");  // before the promise takes the sender
        auto promise = self->make_response_promise<wire::Bytes>();
        if (!allowed) return promise.deliver(to_caf_error(allowed.error()));
        promise.delegate(passwords, login_atom::value, std::move(name), std::move(password));
        return promise;
      },
      [=](logout_atom, const std::string& token) {
        if (auto allowed = master::check_not_rank(current_peer(self), "log out"); !allowed) return acknowledge(allowed);
        return acknowledge(self->state.context.users->logout(token));
      },
      for_user<wire::Bytes, whoami_atom>(self, [](const master::User& user) { return wire::encode(user); }),
      for_user<wire::Bytes, users_atom>(
          self, [=](const master::User& user) { return encoded_reply(self->state.context.users->list_users(user)); }),
      for_user<wire::Bytes, create_user_atom, std::string, std::string, bool>(
          self, [=](const master::User& user, std::string name, std::string password, bool admin) {
            auto promise = self->make_response_promise<wire::Bytes>();
            promise.delegate(passwords, create_user_atom::value, user.name, user.admin, std::move(name),
                             std::move(password), admin);
            return promise;
          }),
      [=](register_atom, wire::Bytes& bytes, caf::actor& agent) {
        const auto allowed = master::check_not_rank(current_peer(self), "register as an agent");  // before the promise
        auto promise = self->make_response_promise<bool>();
        if (!allowed) return promise.deliver(to_caf_error(allowed.error()));
        promise.delegate(self->state.context.pool, register_atom::value, std::move(bytes), std::move(agent));
        return promise;
      },
      [=](work_disk_atom, wire::Bytes& bytes) {
        if (!permitted(master::check_not_rank(current_peer(self), "report an agent's work disk"))) return;
        // The pool heeds it only from the agent it names, as registered.
        self->send(self->state.context.pool, work_disk_atom::value, std::move(bytes),
                   caf::actor_cast<caf::actor>(self->current_sender()));
      },
      [=](hello_atom, std::uint64_t trial_id, wire::Bytes& bytes, caf::actor& rank) {
        return route_to_trial<wire::Bytes>(self, hello_atom::value, trial_id, std::move(bytes), std::move(rank));
      },
      [=](rejoin_atom, std::uint64_t trial_id, wire::Bytes& bytes, caf::actor& rank) {
        return route_to_trial<bool>(self, rejoin_atom::value, trial_id, std::move(bytes), std::move(rank));
      },
      [=](attach_atom, std::uint64_t trial_id, TrialActor trial) {
        if (permitted(master::check_local(current_peer(self), "attach a trial"))) self->state.trials[trial_id] = std::move(trial);
      },
      [=](detach_atom, std::uint64_t trial_id) {
        if (permitted(master::check_local(current_peer(self), "detach a trial"))) self->state.trials.erase(trial_id);
      },
      [=](listening_atom, const std::string& host, std::uint16_t port) {
        if (!permitted(master::check_local(current_peer(self), "set the master's address"))) return;
        const bool first = self->state.context.port == 0;
        self->state.context.host = host;
        self->state.context.port = port;
        // Recovered trials hand this address to their workers, so recover only now.
        if (first) finish_interrupted_deletions(self->state.context);
        if (first) recover_experiments(self);
      },
  };
}

}  // namespace volador::actors
