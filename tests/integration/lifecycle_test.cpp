// An experiment's lifecycle after its submission and the model registry, end
// to end on a master and an agent as processes, through the `volador` client:
// kill, delete, fork, download-model-def, set description / labels,
// checkpoint delete, and models registered, listed, described and downloaded,
// also after a master restart.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// One trial of 40 batches checkpointed every 20: over in a few seconds.
std::string short_config(const std::string& name, const std::string& rest = "") {
  return native_trial_config(name, "min_checkpoint_period: {batches: 20}\n"
                                   "searcher: {name: single, metric: accuracy, smaller_is_better: false, "
                                   "max_length: {batches: 40}}\n" + rest);
}

// Two trials at once that run until killed.
const std::string kLongSearch =
    "name: long\n"
    "entrypoint: native:mlp_classifier\n"
    "data: {train_records: 2000, validation_records: 500}\n"
    "hyperparameters: {global_batch_size: 32, learning_rate: {type: double, minval: 0.01, maxval: 0.1}, hidden_units: 16}\n"
    "records_per_epoch: 2000\n"
    "scheduling_unit: 20\n"
    "searcher: {name: random, max_trials: 2, max_concurrent_trials: 2, metric: accuracy, smaller_is_better: false, "
    "max_length: {epochs: 100000}}\n";

// Submits `config` as PROJECT and follows it to COMPLETED; its id. Its
// checkpoints go to a folder beside PROJECT, where the GC keeps the two latest of each trial.
std::string completed(const Cluster& cluster, const fs::path& project, const std::string& config) {
  const auto storage = project.parent_path() / "checkpoints";
  fs::create_directories(storage);
  write_file(project / "distributed.yaml", config + "checkpoint_storage: {type: shared_fs, host_path: " + storage.string() +
                                               ", save_trial_latest: 2}\n");
  write_file(project / "notes.txt", "kept in the project\n");
  auto run = create_and_follow(cluster, project);
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  return run.json()["id"].dump();
}

// The experiment's checkpoints whose files are there (the GC deleted the others).
nlohmann::json live_checkpoints(const Cluster& cluster, const std::string& id) {
  auto live = nlohmann::json::array();
  for (const auto& c : checkpoints(cluster, id))
    if (c["state"] == "ACTIVE") live.push_back(c);
  return live;
}

std::string read_text(const fs::path& path) {
  std::ostringstream out;
  out << std::ifstream(path).rdbuf();
  return out.str();
}

std::set<std::string> listed_ids(const Cluster& cluster, const std::vector<std::string>& filter = {}) {
  std::vector<std::string> args{"experiment", "list", "--json"};
  args.insert(args.end(), filter.begin(), filter.end());
  auto list = cluster.cli(args);
  REQUIRE(list.exit_code == 0);
  std::set<std::string> ids;
  for (const auto& e : list.json()) ids.insert(e["id"].dump());
  return ids;
}

}  // namespace

TEST_CASE("Killing a trial cancels it alone and killing its experiment cancels the rest, and only then may it be deleted") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 2);
  const auto id = submit(cluster, dir.path() / "long", kLongSearch);
  // The first trial to train is killed.
  std::size_t killed = 0;
  REQUIRE(eventually([&] {
    auto trials = describe_experiment(cluster, id)["trials"];
    for (std::size_t i = 0; i < trials.size(); ++i)
      if (!trials[i]["latest_training"].empty()) return (killed = i), true;
    return false;
  }));
  auto kill_trial = cluster.cli({"trial", "kill", describe_experiment(cluster, id)["trials"][killed]["id"].dump()});
  INFO(kill_trial.err);
  REQUIRE(kill_trial.exit_code == 0);
  CHECK(eventually([&] { return describe_experiment(cluster, id)["trials"][killed]["state"] == "CANCELED"; }));
  const auto after = describe_experiment(cluster, id);
  CHECK(after["state"] == "ACTIVE");
  CHECK(after["trials"].size() == 2);
  CHECK(after["trials"][1 - killed]["state"] == "ACTIVE");

  auto refused = cluster.cli({"experiment", "delete", id, "--yes"});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err == "error: experiment " + id + " is ACTIVE: only an ended experiment can be deleted (kill it first: "
                       "volador experiment kill " + id + ")\n");

  REQUIRE(cluster.cli({"experiment", "kill", id}).exit_code == 0);
  REQUIRE(eventually([&] { return describe_experiment(cluster, id)["state"] == "CANCELED"; }));
  const auto canceled = describe_experiment(cluster, id);
  REQUIRE(canceled["trials"].size() == 2);
  for (const auto& trial : canceled["trials"]) CHECK(trial["state"] == "CANCELED");
  auto deleted = cluster.cli({"experiment", "delete", id, "--yes"});
  INFO(deleted.err);
  CHECK(deleted.out == "experiment " + id + ": deleted\n");
  CHECK(listed_ids(cluster, {"--all"}).empty());
}

TEST_CASE("Deleting an experiment removes its records and checkpoints, keeps registered ones, and leaves others whole") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const auto gone = completed(cluster, dir.path() / "a", short_config("a"));
  const auto kept = completed(cluster, dir.path() / "b", short_config("b"));
  const auto gone_checkpoints = live_checkpoints(cluster, gone);
  const auto kept_checkpoints = live_checkpoints(cluster, kept);
  REQUIRE(gone_checkpoints.size() >= 2);
  REQUIRE_FALSE(kept_checkpoints.empty());
  const std::string registered = gone_checkpoints[0]["uuid"];
  const auto gone_trial = describe_experiment(cluster, gone)["trials"][0]["id"].dump();

  REQUIRE(cluster.cli({"model", "create", "mlp", "--description", "the native example"}).exit_code == 0);
  auto version = cluster.cli({"model", "register", "mlp", registered, "--json"});
  INFO(version.err);
  REQUIRE(version.exit_code == 0);
  CHECK(version.json()["version"] == 1);

  // A registered checkpoint cannot be deleted; an unregistered one can.
  auto refused = cluster.cli({"checkpoint", "delete", registered});
  CHECK(refused.exit_code == 1);
  CHECK(refused.err == "error: checkpoint " + registered + " is version 1 of model 'mlp': a registered checkpoint is never deleted\n");
  const auto checkpoints_before = checkpoints(cluster, kept).size();
  const std::string doomed = kept_checkpoints.back()["uuid"];
  const std::string doomed_path = kept_checkpoints.back()["path"];
  auto removed = cluster.cli({"checkpoint", "delete", doomed});
  INFO(removed.err);
  CHECK(removed.out == "checkpoint " + doomed + ": deleted\n");
  CHECK_FALSE(fs::exists(doomed_path));
  for (const auto& c : checkpoints(cluster, kept))
    if (c["uuid"] == doomed) CHECK(c["state"] == "DELETED");

  auto deleted = cluster.cli({"experiment", "delete", gone, "--yes"});
  INFO(deleted.err);
  REQUIRE(deleted.exit_code == 0);
  CHECK(cluster.cli({"experiment", "describe", gone}).exit_code == 1);
  CHECK(cluster.cli({"trial", "logs", gone_trial}).exit_code == 1);
  CHECK(listed_ids(cluster, {"--all"}) == std::set<std::string>{kept});
  for (const auto& c : gone_checkpoints)
    CHECK(fs::exists(c["path"].get<std::string>()) == (c["uuid"] == registered));
  // The other experiment is whole.
  CHECK(describe_experiment(cluster, kept)["state"] == "COMPLETED");
  CHECK(checkpoints(cluster, kept).size() == checkpoints_before);
  CHECK(cluster.cli({"trial", "logs", describe_experiment(cluster, kept)["trials"][0]["id"].dump()}).exit_code == 0);
  // The registered checkpoint still comes back whole through the registry.
  auto described = cluster.cli({"model", "describe", "mlp", "--json"});
  REQUIRE(described.exit_code == 0);
  CHECK(described.json()["versions"][0]["experiment_id"].dump() == gone);
  auto downloaded = cluster.cli({"model", "download", "mlp", (dir.path() / "model").string()});
  INFO(downloaded.err);
  CHECK(downloaded.exit_code == 0);
  CHECK(fs::exists(dir.path() / "model" / "manifest.json"));
}

TEST_CASE("A fork runs the stored project with its changes merged, and bad changes are refused at their line") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const auto original = completed(cluster, dir.path() / "a", short_config("a", "labels: [baseline]\n"));

  write_file(dir.path() / "bad.yaml", "name: forked\nsearcher:\n  max_length: {batchs: 20}\n");
  auto bad = cluster.cli({"experiment", "fork", original, "--config", (dir.path() / "bad.yaml").string()});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err.starts_with((dir.path() / "bad.yaml").string() + ":3:"));
  CHECK(bad.err.find("batchs") != std::string::npos);

  write_file(dir.path() / "changes.yaml", "name: forked\nsearcher:\n  max_length: {batches: 60}\n");
  auto fork = cluster.cli({"experiment", "fork", original, "--config", (dir.path() / "changes.yaml").string(), "--json"});
  INFO(fork.err);
  REQUIRE(fork.exit_code == 0);
  const auto forked = fork.json()["id"].dump();
  REQUIRE(eventually([&] { return describe_experiment(cluster, forked)["state"] == "COMPLETED"; }, 120));
  auto detail = describe_experiment(cluster, forked);
  CHECK(detail["name"] == "forked");
  std::map<std::string, std::string> listed_names;  // id -> name, as `experiment list` shows them
  for (const auto& e : cluster.cli({"experiment", "list", "--json"}).json()) listed_names[e["id"].dump()] = e["name"];
  CHECK(listed_names == std::map<std::string, std::string>{{original, "a"}, {forked, "forked"}});
  CHECK(cluster.cli({"experiment", "list"}).out.find("forked") != std::string::npos);
  CHECK(detail["labels"] == nlohmann::json::array({"baseline"}));
  CHECK(detail["trials"][0]["batches_trained"] == 60);

  // The stored project comes back as it was uploaded.
  auto unpacked = cluster.cli({"experiment", "download-model-def", forked, (dir.path() / "def").string()});
  INFO(unpacked.err);
  REQUIRE(unpacked.exit_code == 0);
  CHECK(read_text(dir.path() / "def" / "notes.txt") == "kept in the project\n");
  CHECK(read_text(dir.path() / "def" / "distributed.yaml") == read_text(dir.path() / "a" / "distributed.yaml"));
  CHECK(cluster.cli({"experiment", "download-model-def", forked, (dir.path() / "def").string()}).exit_code == 1);
}

TEST_CASE("A description and labels set after submission are shown, filtered on and kept across a master restart") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const auto id = completed(cluster, dir.path() / "a", short_config("a", "labels: [baseline]\n"));
  CHECK(listed_ids(cluster, {"--label", "baseline"}) == std::set<std::string>{id});
  auto labels = cluster.cli({"experiment", "set", "labels", id, "prod", "mnist"});
  INFO(labels.err);
  CHECK(labels.out == "experiment " + id + ": labels set\n");
  auto description = cluster.cli({"experiment", "set", "description", id, "the one to ship"});
  INFO(description.err);
  CHECK(description.exit_code == 0);
  for (int run = 0; run < 2; ++run) {
    CHECK(listed_ids(cluster, {"--label", "baseline"}).empty());
    CHECK(listed_ids(cluster, {"--label", "prod"}) == std::set<std::string>{id});
    auto detail = describe_experiment(cluster, id);
    CHECK(detail["description"] == "the one to ship");
    CHECK(detail["labels"] == nlohmann::json::array({"prod", "mnist"}));
    if (run == 0) {
      REQUIRE(cluster.stop_master());
      cluster.start_master();
    }
  }
  CHECK(cluster.cli({"experiment", "set", "labels", id, "a", "a"}).err == "error: label 'a' is given twice\n");
}

TEST_CASE("Models are created, registered, listed and described, and their versions survive a master restart") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const auto id = completed(cluster, dir.path() / "a", short_config("a"));
  const auto list = live_checkpoints(cluster, id);
  REQUIRE(list.size() >= 2);
  const auto trial = describe_experiment(cluster, id)["trials"][0];

  CHECK(cluster.cli({"model", "create", "mlp"}).out == "created model mlp\n");
  CHECK(cluster.cli({"model", "create", "mlp"}).err == "error: model 'mlp' exists\n");
  CHECK(cluster.cli({"model", "create", "no/slash"}).exit_code == 1);
  CHECK(cluster.cli({"model", "register", "nope", list[0]["uuid"]}).exit_code == 1);
  for (const auto& c : list) REQUIRE(cluster.cli({"model", "register", "mlp", c["uuid"]}).exit_code == 0);

  cluster.kill_master();
  cluster.start_master();
  auto described = cluster.cli({"model", "describe", "mlp", "--json"});
  INFO(described.err);
  REQUIRE(described.exit_code == 0);
  const auto model = described.json();
  REQUIRE(model["versions"].size() == list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const auto& v = model["versions"][i];
    CHECK(v["version"] == i + 1);
    CHECK(v["checkpoint_uuid"] == list[i]["uuid"]);
    CHECK(v["experiment_id"].dump() == id);
    CHECK(v["trial_id"] == trial["id"]);
    CHECK(v["batches"] == list[i]["batches"]);
    CHECK(v["hparams"] == nlohmann::json::parse(trial["hparams"].dump()));
    CHECK(v["metrics"] == list[i]["metrics"]);
  }
  auto listed = cluster.cli({"model", "list", "--json"});
  REQUIRE(listed.exit_code == 0);
  CHECK(listed.json()[0]["num_versions"] == list.size());
  CHECK(cluster.cli({"model", "list"}).out.find("mlp") != std::string::npos);

  auto first = cluster.cli({"model", "download", "mlp", "--version", "1", (dir.path() / "v1").string()});
  INFO(first.err);
  CHECK(first.exit_code == 0);
  CHECK(fs::exists(dir.path() / "v1" / "manifest.json"));
  CHECK(cluster.cli({"model", "download", "mlp", "--version", "9", (dir.path() / "v9").string()}).err ==
        "error: model 'mlp' has no version 9 (its latest is " + std::to_string(list.size()) + ")\n");
}

TEST_CASE("A continued experiment trains each trial on from its newest checkpoint to the longer max_length") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const auto original = completed(cluster, dir.path() / "a", short_config("a"));
  const auto source = describe_experiment(cluster, original)["trials"][0];
  const auto newest = live_checkpoints(cluster, original).back();
  REQUIRE(newest["batches"] == 40);

  write_file(dir.path() / "longer.yaml", "searcher:\n  max_length: {batches: 80}\n");
  auto resumed = cluster.cli({"experiment", "continue", original, "--config", (dir.path() / "longer.yaml").string(), "--json"});
  INFO(resumed.err);
  REQUIRE(resumed.exit_code == 0);
  const auto id = resumed.json()["id"].dump();
  CHECK(resumed.json()["continued_from"].dump() == original);
  REQUIRE(eventually([&] { return describe_experiment(cluster, id)["state"] == "COMPLETED"; }, 120));
  const auto trial = describe_experiment(cluster, id)["trials"][0];
  CHECK(trial["batches_trained"] == 80);
  CHECK(trial["hparams"] == source["hparams"]);
  CHECK(trial["seed"] == source["seed"]);
  // It trained from batch 40 on: no report before, and its log says where it started.
  for (const auto& [key, metrics] : metric_history(cluster, trial["id"].dump())) CHECK(key.second > 40);
  auto logs = cluster.cli({"trial", "logs", trial["id"].dump()});
  CHECK(logs.out.find("checkpoint " + newest["uuid"].get<std::string>()) != std::string::npos);
  // The original is unchanged.
  CHECK(describe_experiment(cluster, original)["trials"][0]["batches_trained"] == 40);
}
