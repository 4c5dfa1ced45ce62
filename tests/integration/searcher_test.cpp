// End to end: the example config of every searcher
// (examples/native_mlp/searchers/*.yaml) runs unchanged on one master and
// agent with the native example, produces the trials and lengths its
// searcher should, and `volador preview-search` plans what the run did (or,
// where a goal or early stopping may end it sooner, the whole budget).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "tests/integration/cluster_fixture.hpp"

using namespace volador::testing;
namespace fs = std::filesystem;

namespace {

const fs::path kExampleDir = fs::path(VOLADOR_SOURCE_DIR) / "examples/native_mlp";

fs::path example_config(const std::string& searcher) { return kExampleDir / "searchers" / (searcher + ".yaml"); }

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// `volador preview-search CONFIG [--json]` (no master involved).
CommandResult preview(const fs::path& config, bool json) {
  std::vector<std::string> argv{binary("volador").string(), "preview-search", config.string()};
  if (json) argv.emplace_back("--json");
  auto result = run_command(argv);
  INFO(config << ": " << result.err);
  REQUIRE(result.exit_code == 0);
  return result;
}

// Follows CONFIG (with the native example as project) to its end; the
// experiment, checked COMPLETED with every trial COMPLETED (stopped early or not).
nlohmann::json run_to_completion(const Cluster& cluster, const fs::path& config, const std::string& searcher) {
  auto created = create_and_follow(cluster, config, kExampleDir);
  INFO(config << ": " << created.err);
  REQUIRE(created.exit_code == 0);
  auto experiment = created.json();
  CHECK(experiment["state"] == "COMPLETED");
  CHECK(experiment["searcher"] == searcher);
  for (const auto& trial : experiment["trials"]) CHECK(trial["state"] == "COMPLETED");
  return experiment;
}

std::vector<std::uint64_t> batches_trained(const nlohmann::json& experiment) {
  std::vector<std::uint64_t> out;
  for (const auto& trial : experiment["trials"]) out.push_back(trial["batches_trained"].get<std::uint64_t>());
  return out;
}

std::uint64_t sum(const std::vector<std::uint64_t>& values) {
  std::uint64_t total = 0;
  for (auto v : values) total += v;
  return total;
}

// The lengths at which a trial reported validation metrics.
std::set<std::uint64_t> validated_at(const Cluster& cluster, const nlohmann::json& trial) {
  std::set<std::uint64_t> out;
  const auto described = cluster.cli({"trial", "describe", trial["id"].dump(), "--json"}).json();
  for (const auto& m : described["metrics"])
    if (m["kind"] == "VALIDATION") out.insert(m["batches"].get<std::uint64_t>());
  return out;
}

// For searchers whose schedule does not depend on the metrics: the preview's
// trials and lengths are the run's.
void check_preview_matches(const nlohmann::json& plan, const nlohmann::json& experiment) {
  const auto lengths = batches_trained(experiment);
  CHECK(plan["trials"] == lengths.size());
  CHECK(plan["total_batches"] == sum(lengths));
  std::map<std::uint64_t, std::uint64_t> run_rows, plan_rows;
  for (auto b : lengths) ++run_rows[b];
  for (const auto& row : plan["by_length"]) plan_rows[row["batches"].get<std::uint64_t>()] = row["trials"].get<std::uint64_t>();
  CHECK(plan_rows == run_rows);
}

}  // namespace

TEST_CASE("Every searcher's example config runs on one cluster with the trials and lengths its searcher plans") {
  TempDir dir;
  Cluster cluster(dir.path() / "data", 2);

  {  // single: one trial with the constants, trained to max_length (2 epochs of 62 batches, 125)
    INFO("single");
    const auto experiment = run_to_completion(cluster, example_config("single"), "single");
    REQUIRE(experiment["trials"].size() == 1);
    CHECK(experiment["trials"][0]["batches_trained"] == 125);
    CHECK(experiment["trials"][0]["hparams"] ==
          nlohmann::json({{"global_batch_size", 32}, {"learning_rate", 0.03}, {"hidden_units", 32}, {"momentum", 0.9}}));
    CHECK(experiment["best"]["metric"].get<double>() > 0.5);  // chance is 0.1
    check_preview_matches(preview(example_config("single"), true).json(), experiment);
  }
  {  // grid: 3 learning rates x 2 widths, each trained to 1 epoch (62 batches)
    INFO("grid");
    const auto experiment = run_to_completion(cluster, example_config("grid"), "grid");
    REQUIRE(experiment["trials"].size() == 6);
    std::set<std::pair<double, int>> points;
    std::set<double> rates;
    for (const auto& t : experiment["trials"]) {
      CHECK(t["batches_trained"] == 62);
      points.emplace(t["hparams"]["learning_rate"].get<double>(), t["hparams"]["hidden_units"].get<int>());
      rates.insert(t["hparams"]["learning_rate"].get<double>());
    }
    CHECK(points.size() == 6);  // every grid point once
    CHECK(rates.size() == 3);
    CHECK(*rates.begin() == Approx(std::pow(10.0, -2.5)));
    CHECK(*rates.rbegin() == Approx(0.1));
    check_preview_matches(preview(example_config("grid"), true).json(), experiment);
  }
  {  // random: max_trials samples, each trained to max_length
    INFO("random");
    const auto experiment = run_to_completion(cluster, example_config("random"), "random");
    REQUIRE(experiment["trials"].size() == 4);
    for (auto b : batches_trained(experiment)) CHECK(b == 125);
    check_preview_matches(preview(example_config("random"), true).json(), experiment);
  }
  {  // adaptive_asha: max_trials trials, each ending at a rung; some stopped before max_length
    INFO("adaptive_asha");
    const auto experiment = run_to_completion(cluster, example_config("adaptive_asha"), "adaptive_asha");
    const auto plan = preview(example_config("adaptive_asha"), true).json();
    // Which trials a rung stops depends on their metrics, so only the trial
    // count and the rungs must agree with the (random-metric) preview.
    CHECK(plan["trials"] == 8);
    std::set<std::uint64_t> rungs;
    std::uint64_t planned = 0;
    for (const auto& bracket : plan["brackets"]) {
      planned += bracket["trials"].get<std::uint64_t>();
      for (const auto& rung : bracket["rungs"]) rungs.insert(rung.get<std::uint64_t>());
    }
    CHECK(planned == 8);
    CHECK(rungs == std::set<std::uint64_t>{62, 250});
    REQUIRE(experiment["trials"].size() == 8);
    int stopped = 0;
    for (auto b : batches_trained(experiment)) {
      CHECK(rungs.contains(b));
      stopped += b < 250;
    }
    CHECK(stopped >= 1);
    CHECK(stopped < 8);
  }
  {  // tpe: max_trials trials (3 random, then 3 from the model), each trained to max_length
    INFO("tpe");
    const auto experiment = run_to_completion(cluster, example_config("tpe"), "tpe");
    REQUIRE(experiment["trials"].size() == 6);
    for (auto b : batches_trained(experiment)) CHECK(b == 125);
    CHECK(experiment["smaller_is_better"] == true);
    CHECK(experiment["best"]["metric"].get<double>() < 2.3);  // validation_loss; ln 10 is chance
    check_preview_matches(preview(example_config("tpe"), true).json(), experiment);
  }
  {  // bayesian with median stopping: validations on the 4-step ladder, stops from step 2 on
    INFO("bayesian");
    const auto experiment = run_to_completion(cluster, example_config("bayesian"), "bayesian");
    const auto plan = preview(example_config("bayesian"), true).json();
    const std::vector<std::uint64_t> ladder{63, 125, 188, 250};
    CHECK(plan["validations"] == nlohmann::json(ladder));
    // The goal and the stops depend on real metrics: the preview plans the
    // whole budget, every trial trained fully, and says what it left out.
    CHECK(plan["trials"] == 6);
    CHECK(plan["total_batches"] == 6 * 250);
    CHECK(plan["not_simulated"] == nlohmann::json({"searcher.goal", "searcher.early_stopping"}));
    const auto& trials = experiment["trials"];
    if (experiment["best"]["metric"].get<double>() < 0.9) {  // the goal, not reached: the whole budget
      REQUIRE(trials.size() == 6);
      int stopped = 0;
      for (const auto& t : trials) {
        const auto b = t["batches_trained"].get<std::uint64_t>();
        CHECK(std::find(ladder.begin(), ladder.end(), b) != ladder.end());
        CHECK(b >= 125);  // start_step 2: no stop at the first validation
        stopped += b < 250;
        for (auto v : validated_at(cluster, t)) CHECK(std::find(ladder.begin(), ladder.end(), v) != ladder.end());
      }
      CHECK(stopped >= 1);  // the third (random) trial, learning rate 10^-2.9, falls far behind
    } else {
      WARN("bayesian example reached its goal of 0.9 (best " << experiment["best"]["metric"] << ")");
      CHECK(trials.size() <= 6);
    }
  }
  {  // a goal every validation reaches, one trial at a time: the first validation ends the search
    INFO("goal");
    const auto config = dir.path() / "goal.yaml";
    auto text = read_text(example_config("bayesian"));
    text = std::regex_replace(text, std::regex("goal: 0\\.9"), "goal: 0.0");
    text = std::regex_replace(text, std::regex("max_concurrent_trials: 2"), "max_concurrent_trials: 1");
    write_file(config, text);
    const auto experiment = run_to_completion(cluster, config, "bayesian");
    REQUIRE(experiment["trials"].size() == 1);
    CHECK(experiment["trials"][0]["batches_trained"] == 63);  // stopped early at the first step of the ladder
    CHECK(validated_at(cluster, experiment["trials"][0]) == std::set<std::uint64_t>{63});
    // The preview leaves the goal out (its made-up metrics would reach it
    // or not by chance): it plans the whole budget, which the run stayed within.
    const auto plan = preview(config, true).json();
    CHECK(plan["trials"] == 6);
    CHECK(plan["trials"].get<std::size_t>() >= experiment["trials"].size());
    CHECK(plan["total_batches"].get<std::uint64_t>() >= sum(batches_trained(experiment)));
  }
  CHECK(cluster.cli({"experiment", "list", "--json"}).json().size() == 7);
  // The client finds the master through VOLADOR_MASTER as well as -m, and its certificate through VOLADOR_BUNDLE.
  auto listed = run_command({"/usr/bin/env", "VOLADOR_MASTER=" + cluster.master_address(),
                             "VOLADOR_BUNDLE=" + cluster.admin_bundle().string(), binary("volador").string(), "experiment",
                             "list", "--json"},
                            120, cluster.admin_environment());
  INFO(listed.err);
  REQUIRE(listed.exit_code == 0);
  CHECK(listed.json().size() == 7);
}

TEST_CASE("preview-search prints a plan for every searcher's example config") {
  const std::map<std::string, int> trials{{"single", 1}, {"grid", 6},  {"random", 4},
                                          {"adaptive_asha", 8}, {"tpe", 6}, {"pbt", 6}};
  for (const auto& [searcher, n] : trials) {
    const auto out = preview(example_config(searcher), false).out;
    INFO(searcher << ":\n" << out);
    CHECK(out.starts_with(searcher));
    CHECK(out.find(", max_length ") != std::string::npos);
    CHECK(out.find("\n" + std::to_string(n) + " trials, at most ") != std::string::npos);
  }
  CHECK(preview(example_config("adaptive_asha"), false).out.find("rungs at 62, 250") != std::string::npos);
  const auto pbt = preview(example_config("pbt"), false).out;
  CHECK(pbt.starts_with("pbt (population 4, 3 rounds, truncate_fraction 0.25), max_length 187 batches (2.99 epochs)"));
  CHECK(pbt.find("trials validate at 62, 125, 187 batches") != std::string::npos);
  CHECK(pbt.find("2 of the trials start from a better trial's checkpoint") != std::string::npos);
  const auto bayesian = preview(example_config("bayesian"), false).out;
  CHECK(bayesian.find("trials validate at 63, 125, 188, 250 batches") != std::string::npos);
  CHECK(bayesian.find("simulated as random search") != std::string::npos);
  CHECK(bayesian.find("\nnote: searcher.goal and searcher.early_stopping are not simulated (they depend on real "
                      "metrics): the real run may stop sooner\n") != std::string::npos);
  for (const auto& [searcher, n] : trials) CHECK(preview(example_config(searcher), false).out.find("note:") == std::string::npos);
}
