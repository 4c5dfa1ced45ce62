#include "runtime/cli/command_line.hpp"
#include "runtime/cli/lifecycle_command_line.hpp"

#include <CLI/CLI.hpp>

#include <regex>
#include <sstream>
#include <vector>

namespace volador::cli {
namespace {

std::string quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "'" : " '") + w + "'";
  return out;
}

// The subcommand being parsed when parsing stopped: the deepest one given.
const CLI::App* deepest_parsed(const CLI::App& app) {
  const CLI::App* at = &app;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) at = subs.front();
  return at;
}

// "trial logs" for `volador trial logs`; empty for the program itself.
std::string verb_of(const CLI::App* app) {
  std::string out;
  for (; app != nullptr && app->get_parent() != nullptr; app = app->get_parent())
    out = app->get_name() + (out.empty() ? "" : " " + out);
  return out;
}

std::string command_names(const CLI::App& app) {
  std::string out;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    out += (out.empty() ? "" : ", ") + sub->get_name();
  return out;
}

// What was wrong, in words, from CLI11's error (whose own texts vary).
std::string what_was_wrong(const CLI::App& app, const CLI::App& at, const CLI::ParseError& error) {
  const auto extra = app.remaining(true);
  const std::string message = error.what();
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr && message == "A subcommand is required") {
    if (!extra.empty()) return "unknown command '" + extra.front() + "' (one of: " + command_names(at) + ")";
    return "missing command (one of: " + command_names(at) + ")";
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && !extra.empty())
    return (extra.size() == 1 ? "unexpected argument " : "unexpected arguments ") + quoted(extra);
  std::smatch match;
  static const std::regex required("^(\\S+) is required$");
  if (std::regex_match(message, match, required)) return "missing " + match[1].str();
  static const std::regex no_value("^(\\S+): \\d+ required \\S+ missing$");
  if (std::regex_match(message, match, no_value)) return match[1].str() + " needs a value";
  static const std::regex conversion("^Could not convert: (\\S+) = (.*)$");
  if (std::regex_match(message, match, conversion)) {
    const auto* option = at.get_option_no_throw(match[1].str());
    const bool number = option != nullptr && option->get_type_name().find("INT") != std::string::npos;
    return match[1].str() + ": " + (number ? "expected a number, got '" : "invalid value '") + match[2].str() + "'";
  }
  std::string out = message;
  if (!out.empty()) out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
  return out;
}

ParseExit usage_error(const std::string& verb, const std::string& what) {
  return {1, "", "volador: " + (verb.empty() ? "" : verb + ": ") + what + "\n"};
}

}  // namespace

std::variant<Invocation, ParseExit> parse_command_line(int argc, const char* const* argv) {
  Invocation in;
  CLI::App app{"volador: submit and watch experiments on a Volador cluster"};
  app.set_version_flag("--version", "volador 0.1.0");
  app.fallthrough();  // inherited by every subcommand: -m/--master after the verb
  app.add_option("-m,--master", in.master, "the master's HOST:PORT")->envname("VOLADOR_MASTER")->capture_default_str();
  app.add_option("--bundle", in.bundle, "the client's certificate bundle (the master writes DATA/tls/admin.bundle)")
      ->envname("VOLADOR_BUNDLE")
      ->capture_default_str();
  app.add_option("--timings", in.timings_file,
                 "a timings file (as volador-node's): client_connect_patience is how long the client tries to reach "
                 "the master (default 3s)")
      ->envname("VOLADOR_CLIENT_TIMINGS");
  app.require_subcommand(1);
  auto json_flag = [&](CLI::App* cmd) { cmd->add_flag("--json", in.json, "JSON output"); };
  auto id_arg = [&](CLI::App* cmd) { cmd->add_option("ID", in.id, "the ID")->required(); };

  auto* experiment = app.add_subcommand("experiment", "experiments")->require_subcommand(1);
  auto* create = experiment->add_subcommand("create", "submit CONFIG with the model definition in DIR");
  create->add_option("CONFIG", in.config_path, "the experiment config (distributed.yaml)")->required();
  create->add_option("DIR", in.model_dir, "the project folder (packed and uploaded)")->required();
  create->add_flag("-f,--follow", in.follow, "show progress until the experiment ends");
  json_flag(create);
  auto* experiment_list = experiment->add_subcommand("list", "list experiments (not archived ones)");
  experiment_list->add_flag("-a,--all", in.all, "archived experiments too");
  experiment_list->add_option("-l,--label", in.label, "only experiments whose config has this label");
  experiment_list->add_option("--workspace", in.workspace, "only experiments of this workspace");
  experiment_list->add_option("--project", in.project, "only experiments of this project");
  json_flag(experiment_list);
  auto* describe = experiment->add_subcommand("describe", "an experiment and its trials");
  id_arg(describe);
  json_flag(describe);
  for (auto verb : {"pause", "activate", "kill"})
    id_arg(experiment->add_subcommand(verb, std::string(verb) + " an experiment"));
  id_arg(experiment->add_subcommand("archive", "hide an ended experiment from `experiment list`"));
  id_arg(experiment->add_subcommand("unarchive", "show an archived experiment in `experiment list` again"));

  auto* trial = app.add_subcommand("trial", "trials")->require_subcommand(1);
  auto* trial_list = trial->add_subcommand("list", "trials of an experiment, or of all experiments");
  trial_list->add_option("EXPERIMENT", in.experiment_id, "experiment ID (default: all)");
  json_flag(trial_list);
  auto* trial_describe = trial->add_subcommand("describe", "a trial and its metric history");
  id_arg(trial_describe);
  auto* max_points = trial_describe
                         ->add_option("--max-points", in.max_points,
                                      "at most N points of each metric series, its shape kept: per bucket the smallest, "
                                      "largest and last value, and the first and last point (default " +
                                          std::to_string(kDefaultTrialPoints) + ", at least 5)")
                         ->check(CLI::Range(5u, 1'000'000u));
  trial_describe->add_flag("--all", in.all, "every metric point")->excludes(max_points);
  json_flag(trial_describe);
  auto* logs = trial->add_subcommand("logs", "a trial's output (with --json: seq, time_ms, stream, text per line)");
  id_arg(logs);
  logs->add_flag("-f,--follow", in.follow, "keep printing until the trial ends");
  auto* tail = logs->add_option("--tail", in.tail, "the last N lines (default " + std::to_string(kDefaultLogTail) + "), then with -f what comes");
  logs->add_flag("--all", in.all, "every line, from the first")->excludes(tail);
  json_flag(logs);
  id_arg(trial->add_subcommand("kill", "kill a trial"));

  auto* checkpoint = app.add_subcommand("checkpoint", "checkpoints")->require_subcommand(1);
  auto* checkpoint_list = checkpoint->add_subcommand("list", "checkpoints of an experiment or a trial");
  checkpoint_list->add_option("EXPERIMENT", in.experiment_id, "experiment ID");
  checkpoint_list->add_option("--trial", in.trial_id, "trial ID instead of an experiment");
  json_flag(checkpoint_list);
  auto* download = checkpoint->add_subcommand("download", "copy a checkpoint into DIR, verified");
  download->add_option("UUID", in.uuid, "checkpoint UUID")->required();
  download->add_option("DIR", in.dir, "destination folder (missing or empty)")->required();
  add_lifecycle_verbs(app, *experiment, *checkpoint, in);

  auto* agent = app.add_subcommand("agent", "agents")->require_subcommand(1);
  json_flag(agent->add_subcommand("list", "registered agents: host, slots, used slots, running trials"));
  auto* slot = app.add_subcommand("slot", "slots")->require_subcommand(1);
  json_flag(slot->add_subcommand("list", "every agent's slots: free, or the trial using it"));
  auto* pool = app.add_subcommand("pool", "resource pools")->require_subcommand(1);
  json_flag(pool->add_subcommand("list", "resource pools: agents, slots, use, queue and each experiment's share"));

  auto* user = app.add_subcommand("user", "users and logging in")->require_subcommand(1);
  auto password_flag = [&](CLI::App* cmd) {
    cmd->add_flag("--password-stdin", in.password_stdin, "read the password from stdin's first line (else asked without echo)");
  };
  auto* user_create = user->add_subcommand("create", "create user NAME (admins only)");
  user_create->add_option("NAME", in.user_name, "the user name: a-z, 0-9, '_', '.', '-', at most 32")->required();
  user_create->add_flag("--admin", in.admin, "an admin: may create users and change anyone's experiments");
  password_flag(user_create);
  auto* login = user->add_subcommand("login", "log in as NAME; the token is kept in ~/.volador/tokens.json");
  login->add_option("NAME", in.user_name, "the user name")->required();
  password_flag(login);
  user->add_subcommand("logout", "revoke this client's token for the master");
  json_flag(user->add_subcommand("list", "every user (admins only)"));
  json_flag(user->add_subcommand("whoami", "the user this client is logged in as"));

  auto* preview = app.add_subcommand("preview-search", "simulate the search in CONFIG without running it (no master)");
  preview->add_option("CONFIG", in.config_path, "the experiment config (distributed.yaml)")->required();
  json_flag(preview);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const auto* at = deepest_parsed(app);
    if (error.get_exit_code() != 0) return usage_error(verb_of(at), what_was_wrong(app, *at, error));
    std::ostringstream out, err;
    const int status = app.exit(error, out, err);  // --help, --version
    return ParseExit{status, out.str(), err.str()};
  }
  const auto* verb = deepest_parsed(app);
  in.verb = verb_of(verb);
  if (verb == checkpoint_list && (in.experiment_id == 0) == (in.trial_id == 0))
    return usage_error(in.verb, "give an experiment ID or --trial ID (one of them)");
  return in;
}

}  // namespace volador::cli
