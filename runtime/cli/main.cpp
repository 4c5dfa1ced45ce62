// volador: the client tool. Talks to the master's gateway by actor RPC.
//   volador [-m HOST:PORT] experiment create CONFIG DIR [--follow] [--json]
//   volador experiment list|describe ID [--json]
//   volador experiment pause|activate|kill ID, trial kill ID
//   volador trial describe ID [--json] | trial logs ID [-f]
//   volador checkpoint list EXPERIMENT|--trial ID [--json], checkpoint download UUID DIR
//   volador preview-search CONFIG [--json]      (local, no master)
#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <iostream>

#include "runtime/cli/commands.hpp"
#include "runtime/cli/preview_command.hpp"
#include "runtime/net/actor_system_setup.hpp"

using namespace volador;

int main(int argc, char** argv) {
  CLI::App app{"volador: submit and watch experiments on a Volador cluster"};
  app.set_version_flag("--version", "volador 0.1.0");
  std::string master_text = "127.0.0.1:17080";
  app.add_option("-m,--master", master_text, "the master's HOST:PORT")->envname("VOLADOR_MASTER")->capture_default_str();
  app.require_subcommand(1);

  auto* experiment = app.add_subcommand("experiment", "experiments")->require_subcommand(1);
  auto* trial = app.add_subcommand("trial", "trials")->require_subcommand(1);
  auto* checkpoint = app.add_subcommand("checkpoint", "checkpoints")->require_subcommand(1);
  cli::CreateOptions create;
  std::uint64_t id = 0;
  bool json = false, follow = false;

  auto* create_cmd = experiment->add_subcommand("create", "submit CONFIG with the model definition in DIR");
  create_cmd->add_option("config", create.config_path, "distributed.yaml")->required();
  create_cmd->add_option("dir", create.model_dir, "the project folder (packed and uploaded)")->required();
  create_cmd->add_flag("-f,--follow", create.follow, "show progress until the experiment ends");
  create_cmd->add_flag("--json", create.json, "JSON output");
  auto* list_cmd = experiment->add_subcommand("list", "list experiments");
  auto* describe_cmd = experiment->add_subcommand("describe", "an experiment and its trials");
  auto* trial_describe_cmd = trial->add_subcommand("describe", "a trial and its metric history");
  auto* logs_cmd = trial->add_subcommand("logs", "a trial's output");
  std::vector<CLI::App*> state_cmds;
  for (auto verb : {"pause", "activate", "kill"})
    state_cmds.push_back(experiment->add_subcommand(verb, std::string(verb) + " an experiment"));
  state_cmds.push_back(trial->add_subcommand("kill", "kill a trial"));
  for (auto* cmd : state_cmds) cmd->add_option("id", id, "ID")->required();
  auto* ckpt_list_cmd = checkpoint->add_subcommand("list", "checkpoints of an experiment or a trial");
  std::uint64_t experiment_id = 0, trial_id = 0;
  ckpt_list_cmd->add_option("experiment", experiment_id, "experiment ID");
  ckpt_list_cmd->add_option("--trial", trial_id, "trial ID instead of an experiment");
  ckpt_list_cmd->add_flag("--json", json, "JSON output");
  auto* download_cmd = checkpoint->add_subcommand("download", "copy a checkpoint into DIR, verified");
  std::string uuid, dest;
  download_cmd->add_option("uuid", uuid, "checkpoint UUID")->required();
  download_cmd->add_option("dir", dest, "destination folder (missing or empty)")->required();
  for (auto* cmd : {describe_cmd, trial_describe_cmd, logs_cmd}) cmd->add_option("id", id, "ID")->required();
  for (auto* cmd : {list_cmd, describe_cmd, trial_describe_cmd}) cmd->add_flag("--json", json, "JSON output");
  logs_cmd->add_flag("-f,--follow", follow, "keep printing until the trial ends");
  std::string preview_path;
  auto* preview_cmd = app.add_subcommand("preview-search", "simulate the search in CONFIG without running it");
  preview_cmd->add_option("config", preview_path, "distributed.yaml")->required();
  preview_cmd->add_flag("--json", json, "JSON output");
  CLI11_PARSE(app, argc, argv);
  if (preview_cmd->parsed()) return cli::preview_search(preview_path, json);

  auto master = net::parse_endpoint(master_text);
  if (!master) {
    std::cerr << "error: " << master.error().message << "\n";
    return 1;
  }
  spdlog::set_level(spdlog::level::warn);
  caf::actor_system_config config;
  net::configure_actor_system(config);
  caf::actor_system system{config};
  if (create_cmd->parsed()) return cli::create_experiment(system, *master, create);

  auto client = cli::MasterClient::connect(system, *master);
  if (!client) {
    std::cerr << "error: " << client.error().message << "\n";
    return 1;
  }
  if (list_cmd->parsed()) return cli::list_experiments(*client, json);
  if (describe_cmd->parsed()) return cli::describe_experiment(*client, id, json);
  if (trial_describe_cmd->parsed()) return cli::describe_trial(*client, id, json);
  for (auto* cmd : state_cmds)
    if (cmd->parsed()) return cli::change_state(*client, cmd->get_name(), cmd->get_parent()->get_name(), id);
  if (ckpt_list_cmd->parsed()) {
    if ((experiment_id == 0) == (trial_id == 0)) {
      std::cerr << "error: checkpoint list takes an experiment ID or --trial ID (one of them)\n";
      return 1;
    }
    return cli::list_checkpoints(*client, experiment_id, trial_id, json);
  }
  if (download_cmd->parsed()) return cli::download_checkpoint(*client, uuid, dest);
  return cli::trial_logs(*client, id, follow);
}
