// End to end: Python trials (`entrypoint: model_def:Class`) on a master and an
// agent in separate processes; the agent runs `python3 -m volador.worker_main`
// workers that join through the native module. Built only with Python support.
#include <catch2/catch.hpp>

#include <map>
#include <string_view>
#include <utility>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador;
using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kExampleDir = fs::path(VOLADOR_SOURCE_DIR) / "examples/mnist_pytorch";

// The MNIST example, shortened: small filters, no dropout (so 1 and 2 ranks
// compute the same gradients), 3 epochs of the digits' 1437 training images.
std::string mnist_config(const std::string& extra = "", int max_restarts = 0) {
  return "name: mnist-integration\n"
         "entrypoint: model_def:MNistTrial\n"
         "hyperparameters:\n"
         "  global_batch_size: 32\n"
         "  learning_rate: 1.0\n"
         "  n_filters1: 8\n"
         "  n_filters2: 16\n"
         "  dropout1: 0.0\n"
         "  dropout2: 0.0\n"
         "records_per_epoch: 1437\n"
         "scheduling_unit: 20\n"
         "min_validation_period: {epochs: 1}\n"
         "max_restarts: " + std::to_string(max_restarts) + "\n"
         "searcher:\n"
         "  name: single\n"
         "  metric: validation_loss\n"
         "  smaller_is_better: true\n"
         "  max_length: {epochs: 3}\n"
         "experiment_seed: 5\n" +
         extra;
}

// A project folder holding the example's code and `config`.
fs::path mnist_project(const TempDir& dir, const std::string& config) {
  const auto project = dir.path() / "project";
  fs::create_directories(project);
  for (const auto* file : {"model_def.py", "data.py", "layers.py"})
    fs::copy_file(kExampleDir / file, project / file, fs::copy_options::overwrite_existing);
  write_file(project / "distributed.yaml", config);
  return project;
}


struct FinishedTrial {
  std::vector<nlohmann::json> trainings;
  std::vector<nlohmann::json> validations;
  std::string log;
};

FinishedTrial metrics_of(const Cluster& cluster, const std::string& trial_id) {
  auto described = cluster.cli({"trial", "describe", trial_id, "--json"});
  REQUIRE(described.exit_code == 0);
  const auto detail = described.json();  // kept: a range-for over a temporary's member would dangle
  FinishedTrial out;
  for (const auto& m : detail["metrics"]) (m["kind"] == "VALIDATION" ? out.validations : out.trainings).push_back(m);
  return out;
}

FinishedTrial run_mnist(const Cluster& cluster, const TempDir& dir, int slots) {
  const auto project =
      mnist_project(dir, mnist_config("resources: {slots_per_trial: " + std::to_string(slots) + "}\n"));
  auto created = create_and_follow(cluster, project, 90);
  const auto trial_id = created.json()["trials"][0]["id"].dump();
  auto log = cluster.cli({"trial", "logs", "--all", trial_id}).out;
  INFO(slots << " slots; stderr:\n" << created.err << "\nlog:\n" << log);
  REQUIRE(created.exit_code == 0);
  CHECK(created.json()["state"] == "COMPLETED");
  auto finished = metrics_of(cluster, trial_id);
  finished.log = std::move(log);
  return finished;
}

// Submits PROJECT (with its distributed.yaml) without following; the experiment id.


}  // namespace

TEST_CASE("The MNIST PyTorchTrial example trains on 1 slot, and on 2 slots reports the metrics of 1 slot") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 2);

  const auto single = run_mnist(cluster, dir, 1);
  INFO("1-slot log:\n" << single.log);
  REQUIRE(single.validations.size() == 4);  // one per epoch of 44 batches, and at the end
  CHECK(single.validations.back()["batches"] == 134);  // 3 epochs of 1437 records in batches of 32
  CHECK(single.validations.back()["metrics"]["accuracy"].get<double>() > 0.8);  // chance is 0.1

  const auto parallel = run_mnist(cluster, dir, 2);
  INFO("2-slot log:\n" << parallel.log);
  // Same records, same averaged gradients: the first 20 batches' loss agrees
  // to float precision; later the two runs drift apart only as rounding
  // differences (one 32-record mean against two 16-record means) compound.
  REQUIRE(parallel.trainings.size() == single.trainings.size());
  CHECK(parallel.trainings[0]["metrics"]["loss"].get<double>() ==
        Approx(single.trainings[0]["metrics"]["loss"].get<double>()).epsilon(1e-4));
  REQUIRE(parallel.validations.size() == single.validations.size());
  for (std::size_t v = 0; v < single.validations.size(); ++v) {
    const auto& one = single.validations[v];
    const auto& two = parallel.validations[v];
    CHECK(two["batches"] == one["batches"]);
    CHECK(two["metrics"]["accuracy"].get<double>() == Approx(one["metrics"]["accuracy"].get<double>()).margin(0.02));
    CHECK(two["metrics"]["validation_loss"].get<double>() ==
          Approx(one["metrics"]["validation_loss"].get<double>()).epsilon(0.1));
  }
  CHECK(parallel.log.find("rank 1 of 2") != std::string::npos);
}

TEST_CASE("A model_def.py that raises on import ends its trial in ERROR with the traceback in the trial log") {
  TempDir dir;
  const auto project = mnist_project(dir, mnist_config());
  write_file(project / "model_def.py", "import os\n\ndef broken():\n    raise ValueError('model_def is broken on purpose')\n\nbroken()\n");
  Cluster cluster(dir.path() / "data", 1);

  auto created = create_and_follow(cluster, project, 90);
  INFO(created.err);
  CHECK(created.exit_code == 2);
  auto experiment = created.json();
  CHECK(experiment["state"] == "ERROR");
  REQUIRE(experiment["trials"].size() == 1);
  CHECK(experiment["trials"][0]["state"] == "ERROR");
  auto logs = cluster.cli({"trial", "logs", "--all", experiment["trials"][0]["id"].dump()});
  INFO(logs.out);
  CHECK(logs.out.find("Traceback (most recent call last)") != std::string::npos);
  CHECK(logs.out.find("ValueError: model_def is broken on purpose") != std::string::npos);
  CHECK(logs.out.find("model_def.py") != std::string::npos);
}

TEST_CASE("A paused-and-activated and a SIGKILLed-and-restarted Python trial report exactly the metrics of an uninterrupted one") {
  TempDir dir;
  const auto marker = dir.path() / "killed-once";
  // Validated and checkpointed after each epoch (44, 88, 132 batches) and at
  // the end (134); half the filters and one thread per trial, as three
  // trials share the cores.
  auto config = [](int max_restarts, const std::string& extra) {
    auto text = mnist_config("min_checkpoint_period: {epochs: 1}\n" + extra, max_restarts);
    for (const auto& [from, to] : {std::pair{"n_filters1: 8", "n_filters1: 4"}, {"n_filters2: 16", "n_filters2: 8"}}) {
      const auto at = text.find(from);
      REQUIRE(at != std::string::npos);
      text.replace(at, std::string_view(from).size(), to);
    }
    return text;
  };
  const auto base = config(0, "environment: {environment_variables: [OMP_NUM_THREADS=1]}\n");
  const auto project = mnist_project(dir, base);
  // The first run of the killed trial is SIGKILLed 0.2 s after its first
  // checkpoint is committed, so early in the second epoch; later runs live.
  write_file(project / "startup-hook.sh", kill_once_hook("true", 0.2));
  Cluster cluster(dir.path() / "data", 3);
  auto describe = [&](const std::string& id) { return describe_experiment(cluster, id); };
  auto first_trial = [&](const std::string& id) { return describe(id)["trials"][0]; };
  // Follows the experiment's trial's log (through pauses and restarts) until
  // the trial ends: one client polling once a second rather than many.
  auto finish = [&](const std::string& id) {
    REQUIRE(eventually([&] { return !describe(id)["trials"].empty(); }));
    auto log = cluster.cli({"trial", "logs", "--all", first_trial(id)["id"].dump(), "--follow"}, 180).out;
    CHECK(eventually([&] { return describe(id)["state"] == "COMPLETED"; }));
    return std::pair{first_trial(id), log};
  };

  // All three at once (3 slots): the reference, the one paused, the one killed.
  const auto reference = submit(cluster, project, base);
  const auto paused = submit(cluster, project, base);
  const auto killed =
      submit(cluster, project, config(1, kill_once_config(marker, dir.path() / "kill-checkpoints", "OMP_NUM_THREADS=1")));

  // Pause once the first checkpoint is there, then activate.
  REQUIRE(eventually([&] { return !checkpoints(cluster, paused).empty(); }, 90));
  REQUIRE(cluster.cli({"experiment", "pause", paused}).exit_code == 0);
  REQUIRE(eventually([&] { return first_trial(paused)["state"] == "PAUSED"; }, 60));
  const auto batches_at_pause = first_trial(paused)["batches_trained"].get<int>();
  CHECK(batches_at_pause >= 44);
  CHECK(batches_at_pause < 134);
  REQUIRE(cluster.cli({"experiment", "activate", paused}).exit_code == 0);

  const auto [reference_trial, reference_log] = finish(reference);
  const auto expected = metric_history(cluster, reference_trial["id"].dump());
  INFO("reference log:\n" << reference_log);
  // Training reports every 20 batches and at each validation (0-19, 20-39,
  // 40-43, 44-63, ..., 132-133), validations after 44, 88, 132 and 134.
  REQUIRE(expected.size() == 14);
  CHECK(expected.at({"VALIDATION", 134})["accuracy"].get<double>() > 0.8);

  {
    const auto [trial, log] = finish(paused);
    INFO("paused after " << batches_at_pause << " batches; log:\n" << log);
    CHECK(log.find("volador: resumed from checkpoint") != std::string::npos);
    CHECK(metric_history(cluster, trial["id"].dump()) == expected);
  }
  {
    const auto [trial, log] = finish(killed);
    INFO("killed trial's log:\n" << log);
    CHECK(trial["restarts"] == 1);
    CHECK(log.find("killed by signal 9; restarting (restart 1 of 1) from") != std::string::npos);
    CHECK(log.find("volador: resumed from checkpoint") != std::string::npos);  // not from scratch
    CHECK(metric_history(cluster, trial["id"].dump()) == expected);
  }
}
