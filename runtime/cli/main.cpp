// volador: the client tool. Talks to the master's gateway by actor RPC.
//   volador [-m HOST:PORT] experiment create CONFIG DIR [--follow] [--json]
//   volador experiment list|describe ID [--json]
//   volador trial describe ID [--json] | trial logs ID [-f]
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
  return cli::trial_logs(*client, id, follow);
}
