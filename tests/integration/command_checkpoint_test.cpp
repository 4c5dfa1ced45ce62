// End to end: a command (script) trial's checkpoint folder on a master and an
// agent in separate processes: saved at exit and at volador.reporting.checkpoint(),
// downloaded byte for byte, resumed from after a pause and after a failed
// run, collected by the GC.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

// A single trial of `entrypoint` (searcher metric `accuracy`, larger is better,
// target 10 batches) with `rest` appended.
std::string script_config(const std::string& entrypoint, const std::string& rest = "") {
  return "name: checkpointing script\n"
         "entrypoint: " + entrypoint + "\n"
         "hyperparameters: {}\n"
         "searcher: {name: single, metric: accuracy, smaller_is_better: false, max_length: {batches: 10}}\n"
         "max_restarts: 0\n" + rest;
}

// Bytes of every value, and more: what a model file may hold.
std::string binary_content() {
  std::string bytes;
  for (int i = 0; i < 70'000; ++i) bytes.push_back(static_cast<char>((i * 7919) % 256));
  return bytes;
}

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The experiment's checkpoints in the ACTIVE state.
std::vector<nlohmann::json> active_checkpoints(const Cluster& cluster, const std::string& id) {
  std::vector<nlohmann::json> active;
  for (const auto& c : checkpoints(cluster, id))
    if (c["state"] == "ACTIVE") active.push_back(c);
  return active;
}

// Downloads checkpoint `uuid` into a new folder under `dir`; the folder.
fs::path download(const Cluster& cluster, const std::string& uuid, const fs::path& dir) {
  const auto dest = dir / ("download-" + uuid);
  auto downloaded = cluster.cli({"checkpoint", "download", uuid, dest.string()});
  INFO(downloaded.err);
  REQUIRE(downloaded.exit_code == 0);
  return dest;
}

// The names of the folders directly in `dir`.
std::set<std::string> folder_names(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) names.insert(entry.path().filename().string());
  return names;
}

// A script that checkpoints epochs 1 to 5 (the epoch in epoch.txt, the first
// `epoch` bytes of 0, 1, 2, ... in weights.bin) with volador.reporting, each
// after reporting accuracy = epoch / 10 at step epoch, then reports 0.9 as its
// result. Resuming, it checks its latest checkpoint and goes on after its
// epoch. With a path as its argument it waits after epoch 2 until that file
// exists; with --crash-once it exits with code 4 after epoch 2 unless resumed.
constexpr const char* kEpochScript = R"(import os, sys, time
from volador.reporting import (checkpoint, checkpoint_dir, latest_checkpoint, report_final_result,
                               report_intermediate_result)
crash_once = "--crash-once" in sys.argv
go = next((arg for arg in sys.argv[1:] if arg != "--crash-once"), None)
start = 0
latest = latest_checkpoint()
if latest:
    with open(os.path.join(latest, "epoch.txt")) as f:
        start = int(f.read())
    with open(os.path.join(latest, "weights.bin"), "rb") as f:
        assert f.read() == bytes(range(start)), "the restored weights differ"
    print(f"resumed at epoch {start}", flush=True)
for epoch in range(start + 1, 6):
    with open(os.path.join(checkpoint_dir(), "epoch.txt"), "w") as f:
        f.write(str(epoch))
    with open(os.path.join(checkpoint_dir(), "weights.bin"), "wb") as f:
        f.write(bytes(range(epoch)))
    report_intermediate_result(epoch / 10, step=epoch)
    checkpoint()
    if crash_once and not latest and epoch == 2:
        print("crashing after epoch 2", file=sys.stderr, flush=True)
        sys.exit(4)
    while go and epoch == 2 and not os.path.exists(go):
        time.sleep(0.05)
report_final_result(0.9)
)";

// Runs `project` as an experiment on `cluster` and follows it; requires it to end COMPLETED and
// returns its description (`volador experiment create --follow`'s JSON).
nlohmann::json run_to_completion(const Cluster& cluster, const fs::path& project) {
  auto created = create_and_follow(cluster, project, 240);
  INFO(created.out << created.err);
  REQUIRE(created.exit_code == 0);
  auto experiment = created.json();
  REQUIRE(experiment["state"] == "COMPLETED");
  return experiment;
}

}  // namespace

TEST_CASE("A script's saved model comes back byte for byte from checkpoint download") {
  TempDir dir;
  const auto project = dir.path() / "project";
  const auto model = binary_content();
  write_file(project / "model.bin", model);
  write_file(project / "train.py", "import os, shutil\n"
                                   "folder = os.environ['VOLADOR_CHECKPOINT_DIR']\n"
                                   "assert os.listdir(folder) == [] and 'VOLADOR_LATEST_CHECKPOINT' not in os.environ\n"
                                   "os.makedirs(os.path.join(folder, 'model'))\n"
                                   "shutil.copyfile('model.bin', os.path.join(folder, 'model', 'model.bin'))\n"
                                   "print('accuracy=0.75')\n");
  write_file(project / "distributed.yaml", script_config("/usr/bin/python3 train.py"));
  Cluster cluster(dir.path() / "data", 1);
  const auto experiment = run_to_completion(cluster, project);
  const auto saved = checkpoints(cluster, experiment["id"].dump());
  REQUIRE(saved.size() == 1);
  CHECK(saved[0]["state"] == "ACTIVE");
  CHECK(saved[0]["metrics"]["accuracy"] == 0.75);
  const auto folder = download(cluster, saved[0]["uuid"].get<std::string>(), dir.path());
  CHECK(read_bytes(folder / "model/model.bin") == model);
  CHECK(folder_names(folder) == std::set<std::string>{"manifest.json", "model"});
}

TEST_CASE("A script that leaves its checkpoint folder empty registers no checkpoint") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "train.sh", "mkdir -p \"$VOLADOR_CHECKPOINT_DIR/empty-subfolder\"; echo accuracy=0.5\n");
  write_file(project / "distributed.yaml", script_config("sh train.sh"));
  Cluster cluster(dir.path() / "data", 1);
  CHECK(checkpoints(cluster, run_to_completion(cluster, project)["id"].dump()).empty());
}

TEST_CASE("A paused script resumes from the checkpoint it made with volador.reporting.checkpoint()") {
  TempDir dir;
  const auto project = dir.path() / "project";
  const auto go = dir.path() / "go";
  write_file(project / "train.py", kEpochScript);
  write_file(project / "distributed.yaml", script_config("/usr/bin/python3 train.py " + go.string()));
  Cluster cluster(dir.path() / "data", 1);
  const auto id = submit(cluster, project);
  auto trial = [&] { return describe_experiment(cluster, id)["trials"][0]; };
  auto checkpointed_at = [&](std::uint64_t batches) {
    for (const auto& c : active_checkpoints(cluster, id))
      if (c["batches"] == batches) return true;
    return false;
  };
  REQUIRE(eventually([&] { return checkpointed_at(2); }, 60));  // epoch 2 saved; the script waits

  REQUIRE(cluster.cli({"experiment", "pause", id}).exit_code == 0);
  REQUIRE(eventually([&] { return trial()["state"] == "PAUSED"; }));
  write_file(go, "");
  REQUIRE(cluster.cli({"experiment", "activate", id}).exit_code == 0);
  REQUIRE(eventually([&] { return describe_experiment(cluster, id)["state"] == "COMPLETED"; }, 60));

  const auto done = trial();
  CHECK(done["restarts"] == 0);
  CHECK(done["best_validation"] == 0.9);
  const auto logs = cluster.cli({"trial", "logs", "--all", done["id"].dump()}).out;
  INFO(logs);
  CHECK(logs.find("resumed at epoch 2") != std::string::npos);
  // Epochs 1 and 2 from the first run, 3 to 5 from the second, the result at the target.
  const auto detail = cluster.cli({"trial", "describe", done["id"].dump(), "--json"}).json();
  std::map<std::uint64_t, double> accuracy;
  for (const auto& m : detail["metrics"]) accuracy[m["batches"].get<std::uint64_t>()] = m["metrics"]["accuracy"];
  CHECK(accuracy == std::map<std::uint64_t, double>{{1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 0.4}, {5, 0.5}, {10, 0.9}});
  // The latest checkpoint holds what the script wrote last.
  std::uint64_t newest = 0;
  std::string newest_uuid;
  for (const auto& c : active_checkpoints(cluster, id))
    if (c["batches"].get<std::uint64_t>() >= newest) {
      newest = c["batches"].get<std::uint64_t>();
      newest_uuid = c["uuid"].get<std::string>();
    }
  REQUIRE_FALSE(newest_uuid.empty());
  const auto folder = download(cluster, newest_uuid, dir.path());
  CHECK(read_bytes(folder / "epoch.txt") == "5");
  CHECK(read_bytes(folder / "weights.bin") == std::string{0, 1, 2, 3, 4});
}

TEST_CASE("A script that fails after a checkpoint is restarted from it within max_restarts and completes") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "train.py", kEpochScript);
  auto config = script_config("/usr/bin/python3 train.py --crash-once");
  config.replace(config.find("max_restarts: 0"), 15, "max_restarts: 1");
  write_file(project / "distributed.yaml", config);
  Cluster cluster(dir.path() / "data", 1);
  const auto experiment = run_to_completion(cluster, project);
  const auto trial = experiment["trials"][0];
  CHECK(trial["restarts"] == 1);
  CHECK(trial["best_validation"] == 0.9);
  const auto logs = cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
  INFO(logs);
  CHECK(logs.find("crashing after epoch 2") != std::string::npos);
  CHECK(logs.find("the command exited with code 4: crashing after epoch 2") != std::string::npos);
  CHECK(logs.find("restarting (restart 1 of 1) from checkpoint") != std::string::npos);
  CHECK(logs.find("resumed at epoch 2") != std::string::npos);
  // Epochs 1 and 2 from the failed run, 3 to 5 from the restarted one, the result at the target.
  const auto detail = cluster.cli({"trial", "describe", trial["id"].dump(), "--json"}).json();
  std::map<std::uint64_t, double> accuracy;
  for (const auto& m : detail["metrics"]) accuracy[m["batches"].get<std::uint64_t>()] = m["metrics"]["accuracy"];
  CHECK(accuracy == std::map<std::uint64_t, double>{{1, 0.1}, {2, 0.2}, {3, 0.3}, {4, 0.4}, {5, 0.5}, {10, 0.9}});
}

TEST_CASE("The checkpoint GC keeps a script trial's configured number of checkpoints") {
  TempDir dir;
  const auto project = dir.path() / "project";
  const auto storage = dir.path() / "checkpoints";
  fs::create_directories(storage);
  write_file(project / "train.py", kEpochScript);
  write_file(project / "distributed.yaml",
             script_config("/usr/bin/python3 train.py",
                           "checkpoint_storage: {type: shared_fs, host_path: " + storage.string() +
                               ", save_trial_latest: 2, save_trial_best: 0, save_experiment_best: 0}\n"));
  Cluster cluster(dir.path() / "data", 1);

  auto created = create_and_follow(cluster, project, 240);
  INFO(created.out << created.err);
  REQUIRE(created.exit_code == 0);
  const auto id = created.json()["id"].dump();
  // Epochs 1-5 and the exit: six saved, the two latest kept, the others' files gone too.
  const auto all = checkpoints(cluster, id);
  CHECK(all.size() == 6);
  std::set<std::string> kept;
  std::set<std::uint64_t> kept_at;
  for (const auto& c : active_checkpoints(cluster, id)) {
    kept.insert(c["uuid"].get<std::string>());
    kept_at.insert(c["batches"].get<std::uint64_t>());
  }
  CHECK(kept_at == std::set<std::uint64_t>{5, 6});
  CHECK(folder_names(storage) == kept);  // no staging folder is left either
}
