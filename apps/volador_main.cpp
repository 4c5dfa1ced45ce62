// volador: the client tool. Talks to the master's gateway by actor RPC.
// The verbs and their arguments: runtime/cli/command_line.cpp (`volador --help`).
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <spdlog/spdlog.h>

#include <iostream>

#include "runtime/cli/command_line.hpp"
#include "runtime/cli/commands.hpp"
#include "runtime/cli/preview_command.hpp"

using namespace volador;

namespace {

// A verb that asks the master a question or tells it what to do.
int run_on_master(cli::MasterClient& client, const cli::Invocation& in) {
  const auto& verb = in.verb;
  if (verb == "experiment list") return cli::list_experiments(client, in.json);
  if (verb == "experiment describe") return cli::describe_experiment(client, in.id, in.json);
  if (verb == "trial list") return cli::list_trials(client, in.experiment_id, in.json);
  if (verb == "trial describe") return cli::describe_trial(client, in.id, in.json);
  if (verb == "trial logs") return cli::trial_logs(client, in.id, in.follow, in.json);
  if (verb == "checkpoint list") return cli::list_checkpoints(client, in.experiment_id, in.trial_id, in.json);
  if (verb == "checkpoint download") return cli::download_checkpoint(client, in.uuid, in.dir);
  if (verb == "agent list") return cli::list_agents(client, in.json);
  if (verb == "slot list") return cli::list_slots(client, in.json);
  for (const auto* state_verb : {"experiment pause", "experiment activate", "experiment kill", "trial kill"}) {
    if (verb != state_verb) continue;
    const auto space = verb.find(' ');
    return cli::change_state(client, verb.substr(space + 1), verb.substr(0, space), in.id);
  }
  std::cerr << "error: no verb '" << verb << "' in this build\n";
  return 1;
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
  spdlog::set_level(spdlog::level::warn);
  if (in.verb == "experiment create")
    return cli::create_experiment(*master, in.bundle, {in.config_path, in.model_dir, in.follow, in.json});

  auto client = cli::MasterClient::connect(*master, in.bundle);
  if (!client) {
    std::cerr << "error: " << client.error().message << "\n";
    return 1;
  }
  return run_on_master(*client, in);
}
