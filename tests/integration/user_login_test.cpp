// Users and tokens end to end: a master and an agent as processes, the
// `volador` client logging in, refused without a valid token, and owners
// guarding their experiments.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "master/users/secrets.hpp"
#include "runtime/core/clock.hpp"
#include "storage/journal/journal.hpp"
#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// A single trial long enough to stay ACTIVE for the whole test (killed at its end).
const char* kLongConfig =
    "name: long\n"
    "entrypoint: native:mlp_classifier\n"
    "data: {train_records: 2000, validation_records: 500}\n"
    "hyperparameters: {global_batch_size: 32, learning_rate: 0.05, hidden_units: 16}\n"
    "records_per_epoch: 2000\n"
    "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {epochs: 100000}}\n";

// A client environment of its own: no token but the one it logs in with.
std::map<std::string, std::string> client_home(const fs::path& home) {
  return {{"HOME", home.string()}, {"VOLADOR_TOKEN", ""}};
}

std::string not_logged_in(const Cluster& cluster) {
  return "volador: not logged in to " + cluster.master_address() + ": run 'volador user login NAME'\n";
}

}  // namespace

TEST_CASE("Without a login the client says how to log in and a wrong password is refused and logout revokes the token") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  const auto alone = client_home(dir.path() / "home");

  auto anonymous = cluster.cli_with(alone, {"experiment", "list"});
  CHECK(anonymous.exit_code == 1);
  CHECK(anonymous.err == not_logged_in(cluster));

  write_file(dir.path() / "wrong", "not-the-password\n");
  auto wrong = cluster.cli_with(alone, {"user", "login", "admin", "--password-stdin"}, (dir.path() / "wrong").string());
  CHECK(wrong.exit_code == 1);
  CHECK(wrong.err == "volador: wrong user name or password\n");
  auto nobody = cluster.cli_with(alone, {"user", "login", "nobody", "--password-stdin"}, (dir.path() / "wrong").string());
  CHECK(nobody.err == wrong.err);  // nothing tells whether a user exists

  auto login = cluster.cli_with(alone, {"user", "login", "admin", "--password-stdin"},
                                (dir.path() / "data" / "admin.password").string());
  INFO(login.err);
  REQUIRE(login.exit_code == 0);
  CHECK(login.out == "logged in to " + cluster.master_address() + " as admin (admin)\n");
  CHECK(fs::status(dir.path() / "home" / ".volador" / "tokens.json").permissions() ==
        (fs::perms::owner_read | fs::perms::owner_write));
  auto me = cluster.cli_with(alone, {"user", "whoami", "--json"});
  REQUIRE(me.exit_code == 0);
  CHECK(me.json()["name"] == "admin");
  CHECK(me.json()["admin"] == true);

  // The stored token, sent from another client's environment, works until logout revokes it.
  const auto stored = nlohmann::json::parse(std::ifstream(dir.path() / "home" / ".volador" / "tokens.json"));
  const std::string token = stored[cluster.master_address()]["token"];
  const std::map<std::string, std::string> with_token{{"HOME", (dir.path() / "other").string()}, {"VOLADOR_TOKEN", token}};
  CHECK(cluster.cli_with(with_token, {"experiment", "list"}).exit_code == 0);
  auto logout = cluster.cli_with(alone, {"user", "logout"});
  CHECK(logout.exit_code == 0);
  auto revoked = cluster.cli_with(with_token, {"experiment", "list"});
  CHECK(revoked.exit_code == 1);
  CHECK(revoked.err == not_logged_in(cluster));
  CHECK(cluster.cli_with(alone, {"experiment", "list"}).err == not_logged_in(cluster));
}

TEST_CASE("An expired token is refused") {
  TempDir dir;
  Cluster cluster(dir.path() / "data");
  cluster.start_master();
  CHECK(cluster.cli({"user", "whoami"}).exit_code == 0);
  // A token that expired a second ago, planted in the journal while the master is down.
  REQUIRE(cluster.stop_master());
  const std::string token = master::new_token();
  {
    auto journal = storage::Journal::open(dir.path() / "data" / "journal");
    REQUIRE(journal);
    const std::int64_t now = system_now_ms();
    REQUIRE((*journal)->put_token({.token_hash = master::token_hash(token), .user_name = "admin",
                                   .created_at_ms = now - 3'600'000, .expires_at_ms = now - 1000, .revoked = false}));
  }
  cluster.start_master();
  auto expired = cluster.cli_with({{"HOME", (dir.path() / "home").string()}, {"VOLADOR_TOKEN", token}}, {"user", "whoami"});
  CHECK(expired.exit_code == 1);
  CHECK(expired.err == not_logged_in(cluster));
  CHECK(cluster.cli({"user", "whoami"}).out == "admin (admin)\n");  // the fixture's token, still valid
}

TEST_CASE("A user changes their own experiments but not the admin's while the admin changes any and archived ones are hidden") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  write_file(dir.path() / "admin-project/distributed.yaml", kLongConfig);
  write_file(dir.path() / "bob-project/distributed.yaml", kLongConfig);
  const auto admins = submit(cluster, dir.path() / "admin-project");

  write_file(dir.path() / "bob.password", "bob-password\n");
  auto created = cluster.cli_with(cluster.admin_environment(), {"user", "create", "bob", "--password-stdin"},
                                  (dir.path() / "bob.password").string());
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  const auto bob = client_home(dir.path() / "bob-home");
  REQUIRE(cluster.cli_with(bob, {"user", "login", "bob", "--password-stdin"}, (dir.path() / "bob.password").string())
              .exit_code == 0);
  auto refused_create = cluster.cli_with(bob, {"user", "create", "eve", "--password-stdin"},
                                         (dir.path() / "bob.password").string());
  CHECK(refused_create.exit_code == 1);
  CHECK(refused_create.err == "error: only an admin can create users (you are 'bob')\n");

  auto bobs_created = cluster.cli_with(bob, {"experiment", "create", (dir.path() / "bob-project/distributed.yaml").string(),
                                             (dir.path() / "bob-project").string(), "--json"});
  INFO(bobs_created.err);
  REQUIRE(bobs_created.exit_code == 0);
  const auto bobs = bobs_created.json()["id"].dump();

  auto listed = cluster.cli_with(bob, {"experiment", "list", "--json"}).json();
  REQUIRE(listed.size() == 2);
  CHECK(listed[0]["owner"] == "admin");
  CHECK(listed[1]["owner"] == "bob");

  auto not_his = cluster.cli_with(bob, {"experiment", "pause", admins});
  CHECK(not_his.exit_code == 1);
  CHECK(not_his.err == "error: experiment " + admins + " belongs to 'admin': only its owner or an admin can pause it\n");
  CHECK(cluster.cli_with(bob, {"experiment", "kill", admins}).exit_code == 1);
  const auto admins_trial = describe_experiment(cluster, admins)["trials"][0]["id"].dump();
  auto not_his_trial = cluster.cli_with(bob, {"trial", "kill", admins_trial});
  CHECK(not_his_trial.err == "error: experiment " + admins +
                                 " belongs to 'admin': only its owner or an admin can kill a trial of it\n");
  CHECK(describe_experiment(cluster, admins)["state"] == "ACTIVE");

  auto paused = cluster.cli_with(bob, {"experiment", "pause", bobs});
  INFO(paused.err);
  CHECK(paused.exit_code == 0);
  CHECK(eventually([&] { return describe_experiment(cluster, bobs)["state"] == "PAUSED"; }));
  CHECK(cluster.cli({"experiment", "pause", admins}).exit_code == 0);  // the admin's own
  CHECK(cluster.cli({"experiment", "kill", bobs}).exit_code == 0);     // an admin may change anyone's
  CHECK(cluster.cli({"experiment", "kill", admins}).exit_code == 0);
  CHECK(eventually([&] { return describe_experiment(cluster, bobs)["state"] == "CANCELED"; }));
  CHECK(eventually([&] { return describe_experiment(cluster, admins)["state"] == "CANCELED"; }));

  CHECK(cluster.cli_with(bob, {"experiment", "archive", admins}).exit_code == 1);
  auto archived = cluster.cli_with(bob, {"experiment", "archive", bobs});
  INFO(archived.err);
  CHECK(archived.out == "experiment " + bobs + ": archived\n");
  auto shown = cluster.cli_with(bob, {"experiment", "list", "--json"}).json();
  REQUIRE(shown.size() == 1);
  CHECK(shown[0]["id"].dump() == admins);
  auto all = cluster.cli_with(bob, {"experiment", "list", "--all", "--json"}).json();
  REQUIRE(all.size() == 2);
  CHECK(all[1]["archived"] == true);
  CHECK(cluster.cli_with(bob, {"experiment", "unarchive", bobs}).exit_code == 0);
  CHECK(cluster.cli_with(bob, {"experiment", "list", "--json"}).json().size() == 2);
}
