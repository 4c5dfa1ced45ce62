// volador: the client tool. Talks to the master's gateway by actor RPC.
// The verbs and their arguments: runtime/cli/command_line.cpp (`volador --help`).
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <iostream>
#include <optional>

#include "runtime/cli/command_line.hpp"
#include "runtime/cli/commands.hpp"
#include "runtime/cli/lifecycle_commands.hpp"
#include "runtime/cli/model_commands.hpp"
#include "runtime/cli/preview_command.hpp"
#include "runtime/cli/token_store.hpp"
#include "runtime/cli/user_commands.hpp"
#include "runtime/core/clock.hpp"
#include "runtime/node/timings_file.hpp"

using namespace volador;

namespace {

// A verb of an experiment's lifecycle or of the model registry; nullopt for another verb.
std::optional<int> run_lifecycle_verb(cli::MasterClient& client, const cli::Invocation& in) {
  const auto& verb = in.verb;
  if (verb == "experiment delete") return cli::delete_experiment(client, in.id, in.yes);
  if (verb == "experiment fork") return cli::fork_experiment(client, in.id, in.changes_path, in.json);
  if (verb == "experiment continue") return cli::continue_experiment(client, in.id, in.changes_path, in.json);
  if (verb == "experiment download-model-def") return cli::download_model_definition(client, in.id, in.dir);
  if (verb == "experiment set description") return cli::set_description(client, in.id, in.text);
  if (verb == "experiment set labels") return cli::set_labels(client, in.id, in.labels);
  if (verb == "checkpoint delete") return cli::delete_checkpoint(client, in.uuid);
  if (verb == "model create") return cli::create_model(client, in.model_name, in.description, in.json);
  if (verb == "model register") return cli::register_model_version(client, in.model_name, in.uuid, in.json);
  if (verb == "model list") return cli::list_models(client, in.json);
  if (verb == "model describe") return cli::describe_model(client, in.model_name, in.json);
  if (verb == "model download") return cli::download_model(client, in.model_name, in.version, in.dir);
  return std::nullopt;
}

// A verb that asks the master a question or tells it what to do.
int run_on_master(cli::MasterClient& client, const cli::Invocation& in) {
  const auto& verb = in.verb;
  if (verb == "experiment list")
    return cli::list_experiments(client, {.all = in.all, .label = in.label, .workspace = in.workspace, .project = in.project},
                                 in.json);
  if (verb == "experiment describe") return cli::describe_experiment(client, in.id, in.json);
  if (verb == "trial list") return cli::list_trials(client, in.experiment_id, in.json);
  if (verb == "trial describe") return cli::describe_trial(client, in.id, in.all ? 0 : in.max_points, in.json);
  if (verb == "trial logs") return cli::trial_logs(client, in.id, {in.tail, in.all, in.follow, in.json});
  if (verb == "checkpoint list") return cli::list_checkpoints(client, in.experiment_id, in.trial_id, in.json);
  if (verb == "checkpoint download") return cli::download_checkpoint(client, in.uuid, in.dir);
  if (verb == "agent list") return cli::list_agents(client, in.json);
  if (verb == "slot list") return cli::list_slots(client, in.json);
  if (verb == "pool list") return cli::list_pools(client, in.json);
  if (verb == "user whoami") return cli::whoami(client, in.json);
  if (verb == "user list") return cli::list_users(client, in.json);
  if (verb == "user create") return cli::create_user(client, in.user_name, in.admin, in.password_stdin);
  if (auto status = run_lifecycle_verb(client, in)) return *status;
  for (const auto* state_verb : {"experiment pause", "experiment activate", "experiment kill", "experiment archive",
                                 "experiment unarchive", "trial kill"}) {
    if (verb != state_verb) continue;
    const auto space = verb.find(' ');
    return cli::change_state(client, verb.substr(space + 1), verb.substr(0, space), in.id);
  }
  std::cerr << "error: no verb '" << verb << "' in this build\n";
  return 1;
}

// The login token for `master`: VOLADOR_TOKEN when set, else the one `user
// login` stored and not yet expired; empty when there is none.
Result<std::string> login_token(const std::string& master, const std::filesystem::path& token_file) {
  if (const char* token = std::getenv("VOLADOR_TOKEN"); token != nullptr && *token != '\0') return std::string(token);
  auto stored = cli::load_token(token_file, master);
  if (!stored) return fail(stored.error());
  if (!*stored || (*stored)->expires_at_ms <= system_now_ms()) return std::string();
  return (*stored)->token;
}

}  // namespace

int main(int argc, char** argv) {
  auto parsed = cli::parse_command_line(argc, argv);
  if (const auto* exit = std::get_if<cli::ParseExit>(&parsed)) {
    std::cout << exit->out;
    std::cerr << exit->err;
    return exit->status;
  }
  const auto& in = std::get<cli::Invocation>(parsed);
  if (in.verb == "preview-search") return cli::preview_search(in.config_path, in.json);

  auto master = net::parse_endpoint(in.master);
  if (!master) {
    std::cerr << "error: " << master.error().message << "\n";
    return 1;
  }
  auto timings = in.timings_file.empty() ? Result<master::Timings>(master::Timings{}) : node::read_timings_file(in.timings_file);
  if (!timings) return cli::report(timings.error());
  spdlog::set_level(spdlog::level::warn);
  const std::string master_key = master->to_string();
  auto token_file = cli::default_token_file();
  auto token = token_file ? login_token(master_key, *token_file) : Result<std::string>(std::string());
  if (!token) return cli::report(token.error());
  // Without a token the master's refusal says "not logged in": after the
  // connection, so that a wrong certificate or address is named first.
  const bool logging_in = in.verb == "user login";
  if (in.verb == "experiment create")
    return cli::create_experiment(*master, in.bundle, *token, *timings, {in.config_path, in.model_dir, in.follow, in.json});

  auto client = cli::MasterClient::connect(*master, in.bundle, *token, *timings);
  if (!client) return cli::report(client.error());
  if ((logging_in || in.verb == "user logout") && !token_file) return cli::report(token_file.error());
  if (logging_in) return cli::login_user(*client, {master_key, *token_file, in.user_name, in.password_stdin});
  if (in.verb == "user logout") return cli::logout_user(*client, master_key, *token_file);
  return run_on_master(*client, in);
}
