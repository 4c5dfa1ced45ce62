// End to end: command entrypoints (plain scripts) on a master and an agent in
// separate processes: hyperparameters in, metrics out (stdout lines and the
// reporting API), failures, 2-slot torch.distributed, refused searchers.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <regex>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kExamples = fs::path(VOLADOR_SOURCE_DIR) / "examples";
constexpr const char* kPython = "/usr/bin/python3";

// A config for ENTRYPOINT, a single trial unless SEARCHER says otherwise
// (callers append other top-level keys).
std::string command_config(const std::string& entrypoint, const std::string& hyperparameters = "",
                           const std::string& searcher = "single", const std::string& searcher_keys = "") {
  return "name: command\n"
         "entrypoint: " + entrypoint + "\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n" + hyperparameters +
         "searcher:\n"
         "  name: " + searcher + "\n" + searcher_keys +
         "  metric: accuracy\n"
         "  smaller_is_better: false\n"
         "  max_length: {batches: 10}\n"
         "max_restarts: 0\n";
}

// True when kPython imports `modules`; else false, after a WARN that the test is skipped and which Debian
// `packages` to install.
bool python_imports(const std::string& modules, const std::string& packages) {
  if (run_command({kPython, "-c", "import " + modules}, 120).exit_code == 0) return true;
  WARN("skipped: " << kPython << " cannot import " << modules << " (apt-get install " << packages << ")");
  return false;
}

void copy_example(const std::string& name, const fs::path& project) {
  fs::create_directories(project);
  for (const auto* file : {"train.py"}) fs::copy_file(kExamples / name / file, project / file);
}


nlohmann::json trial_detail(const Cluster& cluster, const nlohmann::json& trial) {
  auto described = cluster.cli({"trial", "describe", trial["id"].dump(), "--json"});
  REQUIRE(described.exit_code == 0);
  return described.json();
}

std::string trial_logs(const Cluster& cluster, const nlohmann::json& trial) {
  return cluster.cli({"trial", "logs", "--all", trial["id"].dump()}).out;
}

// A single-trial experiment followed to its end: the experiment, its trial and the trial's log.
struct OneTrialRun {
  nlohmann::json experiment;
  nlohmann::json trial;
  std::string logs;
};

OneTrialRun follow_one_trial(const Cluster& cluster, const fs::path& project) {
  auto experiment = create_and_follow(cluster, project, 240).json();
  REQUIRE(experiment["trials"].size() == 1);
  auto trial = experiment["trials"][0];
  auto logs = trial_logs(cluster, trial);
  return {std::move(experiment), std::move(trial), std::move(logs)};
}

}  // namespace

TEST_CASE("A plain script's stdout metrics are journaled, its trials complete and the best one is chosen") {
  if (!python_imports("numpy, sklearn", "python3-sklearn")) return;
  TempDir dir;
  const auto project = dir.path() / "project";
  copy_example("stdout_script", project);
  write_file(project / "distributed.yaml",
             command_config("/usr/bin/python3 train.py --epochs 3",
                            "  lr: {type: log, base: 10, minval: -1, maxval: -0.5}\n"
                            "  hidden: {type: int, minval: 24, maxval: 48}\n",
                            "random", "  max_trials: 2\n  max_concurrent_trials: 2\n") +
                 "experiment_seed: 4\n");
  Cluster cluster(dir.path() / "data", 2);

  auto created = create_and_follow(cluster, project, 240);
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  const auto experiment = created.json();
  CHECK(experiment["state"] == "COMPLETED");
  REQUIRE(experiment["trials"].size() == 2);
  CHECK(experiment["best"]["metric"].get<double>() > 0.5);  // chance is 0.1
  bool best_found = false;
  for (const auto& trial : experiment["trials"]) {
    CHECK(trial["state"] == "COMPLETED");
    CHECK(trial["batches_trained"] == 10);  // the searcher's target
    const auto detail = trial_detail(cluster, trial);
    std::vector<std::uint64_t> at;
    for (const auto& m : detail["metrics"]) {
      CHECK(m["kind"] == "VALIDATION");
      CHECK(m["metrics"].contains("accuracy"));
      CHECK(m["metrics"].contains("loss"));
      at.push_back(m["batches"].get<std::uint64_t>());
    }
    CHECK(at == std::vector<std::uint64_t>{1, 2, 3, 10});  // one per printed line, then the result at the target
    const auto last = detail["metrics"].back()["metrics"];
    CHECK(last["epoch"] == 3);
    if (trial["id"] == experiment["best"]["trial_id"]) {
      best_found = true;
      CHECK(trial["best_validation"] == experiment["best"]["metric"]);
    }
    auto logs = trial_logs(cluster, trial);
    CHECK(logs.find("epoch=3 accuracy=") != std::string::npos);  // the script's own output is kept
  }
  CHECK(best_found);
}

TEST_CASE("Hyperparameters and the data section reach a command in its arguments, environment and files, a custom stdout pattern is used") {
  TempDir dir;
  const auto project = dir.path() / "project";
  // ./run.sh passes its arguments on, as a wrapper script would.
  write_file(project / "run.sh", "#!/bin/sh\nexec /usr/bin/python3 check.py \"$@\"\n");
  fs::permissions(project / "run.sh", fs::perms::owner_all | fs::perms::group_read | fs::perms::others_read);
  write_file(project / "check.py", R"(import json, os, sys
args = sys.argv[1:]
expected_args = ["--user", "two words", "--global_batch_size=32", "--lr=0.05", "--optimizer=sgd"]
env = json.loads(os.environ["VOLADOR_HPARAMS"])
with open(os.environ["VOLADOR_HPARAMS_FILE"]) as f:
    from_file = json.load(f)
expected = {"global_batch_size": 32, "lr": 0.05, "optimizer": "sgd"}
from volador.reporting import get_data
data = json.loads(os.environ["VOLADOR_DATA"])
with open(os.environ["VOLADOR_DATA_FILE"]) as f:
    data_from_file = json.load(f)
expected_data = {"url": "https://example.com/mnist", "shards": {"train": 4}}
problems = []
if args != expected_args: problems.append(f"args {args}")
if env != expected: problems.append(f"env {env}")
if from_file != expected: problems.append(f"file {from_file}")
if data != expected_data: problems.append(f"data {data}")
if data_from_file != expected_data: problems.append(f"data file {data_from_file}")
if get_data("shards.train") != 4: problems.append(f"get_data {get_data()}")
if problems:
    print("wrong hyperparameters or data:", problems, file=sys.stderr)
    sys.exit(3)
print("all hyperparameters arrived")
print("accuracy:   1.0 and loss:  0.5")
)");
  write_file(project / "distributed.yaml",
             command_config("./run.sh --user 'two words'", "  lr: 0.05\n  optimizer: sgd\n") +
                 "metrics_collector:\n  format: '([a-z_]+):\\s+([-+.\\deE]+)'\n"
                 "data: {url: 'https://example.com/mnist', shards: {train: 4}}\n");
  Cluster cluster(dir.path() / "data", 1);

  const auto [experiment, trial, logs] = follow_one_trial(cluster, project);
  INFO(logs);
  REQUIRE(experiment["state"] == "COMPLETED");
  CHECK(trial["best_validation"] == 1.0);
  const auto detail = trial_detail(cluster, trial);
  REQUIRE(detail["metrics"].size() == 2);  // the line, then the result at the target
  CHECK(detail["metrics"][0]["metrics"] == nlohmann::json{{"accuracy", 1.0}, {"loss", 0.5}});
  CHECK(detail["metrics"][1]["batches"] == 10);
}

// An unmodified argparse script knows only its own options: with no
// global_batch_size declared none is appended, and with placeholders the
// user places every value and nothing is appended (issue 14, item 2).
TEST_CASE("An unmodified argparse script with two hyperparameters runs with appended arguments or with placeholders") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 1);
  const std::string hyperparameters = "hyperparameters:\n  lr: 0.05\n  hidden: 16\n";
  const std::string rest = "searcher: {name: single, metric: accuracy, smaller_is_better: false, "
                           "max_length: {batches: 10}}\nmax_restarts: 0\n";
  const std::vector<std::pair<std::string, std::string>> styles{
      {"/usr/bin/python3 train.py", "--lr --hidden"},
      {"/usr/bin/python3 train.py --learning-rate ${hparams.lr} --width=${hparams.hidden}", "--learning-rate --width"}};
  for (const auto& [entrypoint, options] : styles) {
    INFO(entrypoint);
    const auto project = dir.path() / ("project-" + std::to_string(options.size()));
    const auto lr_option = options.substr(0, options.find(' '));
    const auto width_option = options.substr(options.find(' ') + 1);
    write_file(project / "train.py", "import argparse\n"
                                     "parser = argparse.ArgumentParser()\n"
                                     "parser.add_argument('" + lr_option + "', type=float, required=True)\n"
                                     "parser.add_argument('" + width_option + "', type=int, required=True)\n"
                                     "args = vars(parser.parse_args())\n"
                                     "lr, width = list(args.values())\n"
                                     "print(f'accuracy={lr * width}')\n");
    write_file(project / "distributed.yaml", "name: argparse\nentrypoint: " + entrypoint + "\n" + hyperparameters + rest);
    const auto [experiment, trial, logs] = follow_one_trial(cluster, project);
    INFO(logs);
    CHECK(experiment["state"] == "COMPLETED");
    CHECK(trial["best_validation"] == 0.8);
  }
}

TEST_CASE("A script reporting through volador.reporting has its intermediate, loss and final results journaled") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "train.py", R"(from volador.reporting import get_parameter, report_final_result, report_intermediate_result, report_loss
lr = get_parameter("lr")
for step in range(1, 4):
    report_loss(1.0 / step, step=step)
    report_intermediate_result(0.5 + 0.1 * step * lr * 10, step=step)
report_final_result(0.95)
)");
  write_file(project / "distributed.yaml", command_config("/usr/bin/python3 train.py", "  lr: 0.1\n"));
  Cluster cluster(dir.path() / "data", 1);

  const auto [experiment, trial, logs] = follow_one_trial(cluster, project);
  INFO(logs);
  REQUIRE(experiment["state"] == "COMPLETED");
  CHECK(experiment["best"]["metric"] == 0.95);
  const auto detail = trial_detail(cluster, trial);
  std::map<std::pair<std::string, std::uint64_t>, nlohmann::json> points;
  for (const auto& m : detail["metrics"]) points[{m["kind"], m["batches"]}] = m["metrics"];
  CHECK(points.size() == 7);  // a loss and an intermediate result at steps 1-3, the final one at the target
  CHECK(points[{"TRAINING", 1}] == nlohmann::json{{"loss", 1.0}});
  CHECK(points[{"TRAINING", 3}]["loss"].get<double>() == Approx(1.0 / 3));
  CHECK(points[{"VALIDATION", 3}]["accuracy"].get<double>() == Approx(0.8));
  CHECK(points[{"VALIDATION", 10}] == nlohmann::json{{"accuracy", 0.95}});
}

TEST_CASE("A torch.distributed DDP script runs on 2 slots with the distributed environment") {
  if (!python_imports("torch, sklearn", "python3-torch python3-sklearn")) return;
  TempDir dir;
  const auto project = dir.path() / "project";
  copy_example("ddp_script", project);
  write_file(project / "distributed.yaml",
             command_config("/usr/bin/python3 train.py", "  epochs: 3\n  lr: 0.05\n  hidden: 64\n") +
                 "resources: {slots_per_trial: 2}\n");
  Cluster cluster(dir.path() / "data", 2);

  const auto [experiment, trial, logs] = follow_one_trial(cluster, project);
  INFO(logs);
  REQUIRE(experiment["state"] == "COMPLETED");
  CHECK(experiment["best"]["metric"].get<double>() > 0.5);  // chance is 0.1
  CHECK(logs.find("rank 0 of 2 (local rank 0, node 0 of 1, chief 127.0.0.1)") != std::string::npos);
  CHECK(logs.find("rank 1 of 2 (local rank 1, node 0 of 1, chief 127.0.0.1)") != std::string::npos);
  const auto detail = trial_detail(cluster, trial);
  std::size_t validations = 0;
  for (const auto& m : detail["metrics"]) validations += m["kind"] == "VALIDATION";
  CHECK(validations == 4);  // epochs 1-3 from rank 0 only, then the final result at the target
}

TEST_CASE("A command whose last report lands on the target has its result journaled once") {
  TempDir dir;
  const auto project = dir.path() / "project";
  // max_length is 10 batches: the tenth line is step 10, the target itself.
  write_file(project / "report.sh", "for i in 1 2 3 4 5 6 7 8 9; do echo accuracy=0.$i; done; echo accuracy=0.95\n");
  write_file(project / "distributed.yaml", command_config("sh report.sh"));
  Cluster cluster(dir.path() / "data", 1);
  auto created = create_and_follow(cluster, project);
  REQUIRE(created.exit_code == 0);
  const auto detail = trial_detail(cluster, created.json()["trials"][0]);
  std::vector<std::uint64_t> at;
  for (const auto& m : detail["metrics"]) at.push_back(m["batches"].get<std::uint64_t>());
  CHECK(at == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});  // not 10 twice
  CHECK(detail["metrics"].back()["metrics"]["accuracy"] == 0.95);
}

TEST_CASE("A failing command fails its trial with the exit code, and its stderr is in the trial's log") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "fail.py", "import sys\nprint('accuracy=0.2')\nprint('boom: the data is missing', file=sys.stderr)\nsys.exit(3)\n");
  write_file(project / "distributed.yaml",
             std::regex_replace(command_config("/usr/bin/python3 fail.py"), std::regex("max_restarts: 0"),
                                "max_restarts: 1"));
  Cluster cluster(dir.path() / "data", 1);

  auto created = create_and_follow(cluster, project, 240);
  CHECK(created.exit_code == 2);
  const auto experiment = created.json();
  CHECK(experiment["state"] == "ERROR");
  REQUIRE(experiment["trials"].size() == 1);
  const auto& trial = experiment["trials"][0];
  CHECK(trial["state"] == "ERROR");
  CHECK(trial["restarts"] == 1);
  const auto error = trial["error"].get<std::string>();
  CHECK(error.find("the command exited with code 3: boom: the data is missing") != std::string::npos);
  CHECK(error.find("max_restarts reached") != std::string::npos);
  const auto logs = trial_logs(cluster, trial);
  CHECK(logs.find("boom: the data is missing") != std::string::npos);
  CHECK(logs.find("restarting (restart 1 of 1) from the beginning") != std::string::npos);
  // The second run's reports replaced the first one's.
  const auto detail = trial_detail(cluster, trial);
  CHECK(detail["metrics"].size() == 1);
}


TEST_CASE("Pausing a command trial stops its command, activating runs it again from the start") {
  TempDir dir;
  const auto project = dir.path() / "project";
  // Slow until the file `go` exists in the project's parent folder, so the pause lands mid-run.
  write_file(project / "slow.py", "import os, sys, time\n"
                                  "go = sys.argv[1]\n"
                                  "for step in range(1, 6):\n"
                                  "    print(f'accuracy={step / 10}', flush=True)\n"
                                  "    while step == 1 and not os.path.exists(go): time.sleep(0.05)\n");
  const auto signals = dir.path() / "signals";  // mounted into the trial's sandbox at the same path
  fs::create_directories(signals);
  const auto go = signals / "go";
  write_file(project / "distributed.yaml", command_config("/usr/bin/python3 slow.py " + go.string()) +
                                               "bind_mounts: [{host_path: " + signals.string() +
                                               ", container_path: " + signals.string() + "}]\n");
  Cluster cluster(dir.path() / "data", 1);
  auto created = cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string(), "--json"});
  REQUIRE(created.exit_code == 0);
  const auto id = created.json()["id"].dump();
  auto describe = [&] { return cluster.cli({"experiment", "describe", id, "--json"}).json(); };
  auto metrics = [&] { return trial_detail(cluster, describe()["trials"][0])["metrics"]; };
  REQUIRE(eventually([&] { return metrics().size() == 1; }));  // step 1 printed, the command waits

  REQUIRE(cluster.cli({"experiment", "pause", id}).exit_code == 0);
  REQUIRE(eventually([&] { return describe()["trials"][0]["state"] == "PAUSED"; }));
  CHECK(eventually([&] { return processes_under(dir.path() / "data/agent-work") == 0; }, 10));

  write_file(go, "");
  REQUIRE(cluster.cli({"experiment", "activate", id}).exit_code == 0);
  REQUIRE(eventually([&] { return describe()["state"] == "COMPLETED"; }, 60));
  const auto trial = describe()["trials"][0];
  CHECK(trial["restarts"] == 0);
  CHECK(trial["best_validation"] == 0.5);
  CHECK(metrics().size() == 6);  // the second run's steps 1-5 (replacing the first run's), then the target
  CHECK(trial_logs(cluster, trial).find("stopped by the trial; ending the command") != std::string::npos);
}

TEST_CASE("A command with a searcher that stops trials at rungs is refused, saying why") {
  TempDir dir;
  const auto project = dir.path() / "project";
  write_file(project / "distributed.yaml",
             command_config("python3 train.py --epochs 3", "", "adaptive_asha", "  max_trials: 4\n"));
  Cluster cluster(dir.path() / "data", 1);
  auto created = cluster.cli({"experiment", "create", (project / "distributed.yaml").string(), project.string()});
  CHECK(created.exit_code == 1);
  CHECK(created.err.find("adaptive_asha cannot run the command 'python3 train.py --epochs 3': a command runs to "
                         "completion by itself and cannot stop at a rung and resume later") != std::string::npos);
  CHECK(created.err.find("use single, grid, random, tpe or bayesian, with median early stopping") != std::string::npos);
  CHECK(cluster.cli({"experiment", "list", "--json"}).json().empty());
}
