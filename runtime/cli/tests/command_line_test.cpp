#include <catch2/catch.hpp>

#include <cstdlib>

#include "runtime/cli/command_line.hpp"
#include "runtime/cli/tests/command_line_support.hpp"

using namespace volador::cli;
using namespace volador::cli::testing;

TEST_CASE("The command line names the verb and its arguments") {
  ::unsetenv("VOLADOR_MASTER");
  auto logs = parsed({"trial", "logs", "31", "-f", "--json"});
  CHECK(logs.verb == "trial logs");
  CHECK(logs.id == 31);
  CHECK(logs.follow);
  CHECK(logs.json);
  CHECK(logs.master == "127.0.0.1:17080");
  auto create = parsed({"experiment", "create", "c.yaml", "dir", "--follow"});
  CHECK(create.verb == "experiment create");
  CHECK(create.config_path == "c.yaml");
  CHECK(create.model_dir == "dir");
  CHECK(parsed({"trial", "list"}).experiment_id == 0);
  CHECK(parsed({"trial", "list", "7", "--json"}).experiment_id == 7);
  CHECK(parsed({"agent", "list", "--json"}).verb == "agent list");
  CHECK(parsed({"slot", "list"}).verb == "slot list");
  CHECK(parsed({"experiment", "kill", "4"}).verb == "experiment kill");
  CHECK(parsed({"checkpoint", "list", "--trial", "9"}).trial_id == 9);
  CHECK(parsed({"preview-search", "c.yaml"}).config_path == "c.yaml");
  CHECK(parsed({"experiment", "list", "--label", "mnist"}).label == "mnist");
}

TEST_CASE("The user verbs and archive and list --all parse") {
  auto create = parsed({"user", "create", "bob", "--admin", "--password-stdin"});
  CHECK(create.verb == "user create");
  CHECK(create.user_name == "bob");
  CHECK(create.admin);
  CHECK(create.password_stdin);
  auto login = parsed({"user", "login", "bob"});
  CHECK(login.verb == "user login");
  CHECK(login.user_name == "bob");
  CHECK_FALSE(login.password_stdin);
  CHECK(parsed({"user", "logout"}).verb == "user logout");
  CHECK(parsed({"user", "list", "--json"}).json);
  CHECK(parsed({"user", "whoami"}).verb == "user whoami");
  CHECK(parsed({"experiment", "archive", "3"}).id == 3);
  CHECK(parsed({"experiment", "unarchive", "3"}).verb == "experiment unarchive");
  CHECK(parsed({"experiment", "list", "--all"}).all);
  CHECK_FALSE(parsed({"experiment", "list"}).all);
  CHECK(refused({"user", "login"}) == "volador: user login: missing NAME\n");
  CHECK(refused({"user", "create", "bob", "--root"}) == "volador: user create: unexpected argument '--root'\n");
}

TEST_CASE("trial logs shows the last page unless --tail or --all says otherwise") {
  CHECK(parsed({"trial", "logs", "7"}).tail == kDefaultLogTail);
  CHECK_FALSE(parsed({"trial", "logs", "7"}).all);
  CHECK(parsed({"trial", "logs", "7", "--tail", "20", "-f"}).tail == 20);
  CHECK(parsed({"trial", "logs", "7", "--all"}).all);
  CHECK(refused({"trial", "logs", "7", "--tail", "5", "--all"}).starts_with("volador: trial logs: --tail excludes --all"));
}

TEST_CASE("trial describe keeps 1000 points per metric series unless --max-points or --all says otherwise") {
  CHECK(parsed({"trial", "describe", "7"}).max_points == kDefaultTrialPoints);
  CHECK_FALSE(parsed({"trial", "describe", "7"}).all);
  CHECK(parsed({"trial", "describe", "7", "--max-points", "50", "--json"}).max_points == 50);
  CHECK(parsed({"trial", "describe", "7", "--all"}).all);
  CHECK(refused({"trial", "describe", "7", "--max-points", "4"}).starts_with("volador: trial describe: --max-points"));
  CHECK(refused({"trial", "describe", "7", "--max-points", "50", "--all"})
            .starts_with("volador: trial describe: --max-points excludes --all"));
}

TEST_CASE("The master option -m is taken before or after the verb") {
  CHECK(parsed({"-m", "10.0.0.1:1", "experiment", "list"}).master == "10.0.0.1:1");
  CHECK(parsed({"experiment", "-m", "10.0.0.2:2", "list"}).master == "10.0.0.2:2");
  CHECK(parsed({"experiment", "list", "-m", "10.0.0.3:3"}).master == "10.0.0.3:3");
  CHECK(parsed({"trial", "logs", "5", "--master", "10.0.0.4:4", "-f"}).master == "10.0.0.4:4");
  CHECK(parsed({"trial", "logs", "--master=10.0.0.5:5", "5"}).id == 5);
}

TEST_CASE("A usage error is one line naming the verb and what was wrong, with status 1") {
  CHECK(refused({"trial", "logs", "3", "--foo"}) == "volador: trial logs: unexpected argument '--foo'\n");
  CHECK(refused({"trial", "describe", "3", "4", "--bar"}) == "volador: trial describe: unexpected arguments '4' '--bar'\n");
  CHECK(refused({"trial", "logs"}) == "volador: trial logs: missing ID\n");
  CHECK(refused({"trial", "logs", "abc"}) == "volador: trial logs: ID: expected a number, got 'abc'\n");
  CHECK(refused({"experiment", "create", "c.yaml"}) == "volador: experiment create: missing DIR\n");
  CHECK(refused({}) == "volador: missing command (one of: experiment, trial, checkpoint, model, agent, slot, pool, user, preview-search)\n");
  CHECK(refused({"bogus"}).starts_with("volador: unknown command 'bogus' (one of: experiment, "));
  CHECK(refused({"trial", "bogus"}) == "volador: trial: unknown command 'bogus' (one of: list, describe, logs, kill)\n");
  CHECK(refused({"experiment"}).starts_with("volador: experiment: missing command (one of: create, list, "));
  CHECK(refused({"experiment", "list", "-m"}) == "volador: experiment list: --master needs a value\n");
  CHECK(refused({"checkpoint", "list"}) ==
        "volador: checkpoint list: give an experiment ID or --trial ID (one of them)\n");
  CHECK(refused({"checkpoint", "list", "3", "--trial", "4"}).starts_with("volador: checkpoint list: give an"));
}

TEST_CASE("--help and --version exit 0 with their text on stdout") {
  for (auto args : {std::vector<const char*>{"--help"}, {"trial", "logs", "--help"}, {"--version"}}) {
    auto out = parse(args);
    REQUIRE(std::holds_alternative<ParseExit>(out));
    CHECK(std::get<ParseExit>(out).status == 0);
    CHECK_FALSE(std::get<ParseExit>(out).out.empty());
    CHECK(std::get<ParseExit>(out).err.empty());
  }
  CHECK(std::get<ParseExit>(parse({"trial", "logs", "--help"})).out.find("--json") != std::string::npos);
  CHECK(std::get<ParseExit>(parse({"--version"})).out == "volador 0.1.0\n");
}
