#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "runtime/search/preview.hpp"

using namespace volador;
using namespace volador::search;

namespace {

config::ExperimentConfig preview_config(std::string name, std::uint32_t max_trials) {
  config::ExperimentConfig config;
  config.global_batch_size = 32;
  config.records_per_epoch = 3200;  // 100 batches per epoch
  config.hyperparameters = {{"lr", {hparams::LogParam{10, -4, -1, {}}}}, {"global_batch_size", {hparams::ConstParam{32}}}};
  config.searcher.name = std::move(name);
  config.searcher.metric = "loss";
  config.searcher.max_length = {config::LengthUnit::epochs, 10};
  config.searcher.max_trials = max_trials;
  return config;
}

}  // namespace

TEST_CASE("preview: random search trains every trial to max_length", "[search][preview]") {
  const auto preview = preview_search(preview_config("random", 12), 3);
  REQUIRE(preview.has_value());
  CHECK(preview->searcher == "random");
  CHECK(preview->max_length_batches == 1000);
  CHECK(preview->trials == 12);
  REQUIRE(preview->by_length.size() == 1);
  CHECK(preview->by_length[0].batches == 1000);
  CHECK(preview->by_length[0].trials == 12);
  CHECK(preview->by_length[0].stopped_early == 0);
  CHECK(preview->total_batches == 12000);
  CHECK(preview->validations == std::vector<std::uint64_t>{1000});
  CHECK(preview->max_concurrent_trials == 12);
  CHECK(preview->brackets.empty());
}

TEST_CASE("preview: adaptive_asha shows its brackets and trains far less", "[search][preview]") {
  auto config = preview_config("adaptive_asha", 100);
  config.searcher.max_concurrent_trials = 8;
  const auto preview = preview_search(config, 1);
  REQUIRE(preview.has_value());
  CHECK(preview->trials == 100);
  REQUIRE(preview->brackets.size() == 3);
  CHECK(preview->brackets[0].rungs == std::vector<std::uint64_t>{15, 62, 250, 1000});
  std::set<std::uint64_t> rungs;
  for (const auto& b : preview->brackets) rungs.insert(b.rungs.begin(), b.rungs.end());
  std::uint64_t trials = 0, total = 0;
  for (const auto& row : preview->by_length) {
    CHECK(rungs.contains(row.batches));
    CHECK(row.stopped_early == (row.batches == 1000 ? 0 : row.trials));
    trials += row.trials;
    total += row.trials * row.batches;
  }
  CHECK(trials == 100);
  CHECK(total == preview->total_batches);
  CHECK(preview->total_batches < 100 * 1000 / 3);
  CHECK(preview->max_concurrent_trials == 8);
  const auto again = preview_search(config, 1);
  REQUIRE(again.has_value());
  CHECK(again->total_batches == preview->total_batches);
}

TEST_CASE("preview: tpe with early stopping validates on the ladder, and no trial is stopped (not simulated)",
          "[search][preview]") {
  auto config = preview_config("tpe", 40);
  config.searcher.max_concurrent_trials = 4;
  config.searcher.extra = {{"early_stopping", "median"}};
  const auto preview = preview_search(config, 5);
  REQUIRE(preview.has_value());
  CHECK(preview->searcher == "tpe");
  CHECK(preview->validations ==
        std::vector<std::uint64_t>{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000});
  CHECK(preview->trials == 40);
  REQUIRE(preview->by_length.size() == 1);
  CHECK(preview->by_length[0].batches == 1000);
  CHECK(preview->by_length[0].stopped_early == 0);
  CHECK(preview->total_batches == 40 * 1000);
  CHECK(preview->not_simulated == std::vector<std::string>{"searcher.early_stopping"});
}

TEST_CASE("preview: a goal the made-up metric reaches at once does not end the simulated search",
          "[search][preview]") {
  auto config = preview_config("random", 12);  // loss, smaller is better: every value in [0, 1) reaches 1
  config.searcher.extra = {{"goal", 1.0}};
  const auto preview = preview_search(config, 3);
  REQUIRE(preview.has_value());
  CHECK(preview->trials == 12);
  CHECK(preview->total_batches == 12000);
  CHECK(preview->not_simulated == std::vector<std::string>{"searcher.goal"});
  config.searcher.extra["early_stopping"] = "median";
  CHECK(preview_search(config, 3)->not_simulated ==
        std::vector<std::string>{"searcher.goal", "searcher.early_stopping"});
  CHECK(preview_search(preview_config("random", 12), 3)->not_simulated.empty());
}

TEST_CASE("preview: keys left out of the simulation are still checked", "[search][preview]") {
  auto config = preview_config("adaptive_asha", 10);
  config.searcher.extra = {{"early_stopping", "median"}};  // adaptive_asha stops trials itself
  CHECK_FALSE(preview_search(config, 1).has_value());
  config = preview_config("random", 10);
  config.searcher.extra = {{"goal", "high"}};
  CHECK_FALSE(preview_search(config, 1).has_value());
}

TEST_CASE("preview: a config the searchers refuse is an error", "[search][preview]") {
  auto config = preview_config("random", 0);
  CHECK_FALSE(preview_search(config, 1).has_value());
  config = preview_config("grid", 3);
  CHECK(preview_search(config, 1).error().message.find("lr") != std::string::npos);
}

TEST_CASE("preview: pbt validates at its round ends, replaces the worst each round from the best's checkpoints and counts only what each trial trained", "[search][preview][pbt]") {
  auto config = preview_config("pbt", 0);
  config.searcher.pbt = {.population_size = 4,
                         .num_rounds = 3,
                         .length_per_round = {config::LengthUnit::epochs, 1},
                         .truncate_fraction = 0.25,
                         .resample_probability = 0.2,
                         .perturb_factor = 0.2};
  config.searcher.max_length = {config::LengthUnit::epochs, 3};
  const auto preview = preview_search(config, 2);
  REQUIRE(preview.has_value());
  CHECK(preview->searcher == "pbt");
  CHECK(preview->max_length_batches == 300);
  CHECK(preview->validations == std::vector<std::uint64_t>{100, 200, 300});
  CHECK(preview->trials == 6);  // 4, then one more after each round but the last
  CHECK(preview->warm_started == 2);
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> rows;  // batches -> (trials, stopped early)
  for (const auto& row : preview->by_length) rows[row.batches] = {row.trials, row.stopped_early};
  CHECK(rows == std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>>{
                    {100, {1, 1}}, {200, {1, 1}}, {300, {4, 0}}});
  CHECK(preview->total_batches == 4 * 300);  // the population trains 3 rounds; copies go on from their parents
  CHECK(preview->max_concurrent_trials == 4);
  CHECK(preview_json(*preview, 2)["warm_started"] == 2);
}
