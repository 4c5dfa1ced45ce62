// The `pbt` searcher's fields (Determined's population-based training): what
// is read, and each refusal with its FILE:LINE:COL.
#include <catch2/catch.hpp>

#include "runtime/config/tests/config_test_support.hpp"

using namespace volador::config;
using namespace volador::config::testing;

namespace {

// A trial-class config with searcher lines (from line 6 on).
std::string pbt(const std::string& lines, const std::string& entrypoint = "model_def:T") {
  return "name: t\n"
         "entrypoint: " + entrypoint + "\n"
         "hyperparameters: {global_batch_size: 32, lr: {type: log, base: 10, minval: -4, maxval: -1}}\n"
         "records_per_epoch: 320\n"
         "searcher:\n"
         "  name: pbt\n" + lines;
}

const std::string kMetric = "  metric: loss\n";
const std::string kPopulation = "  population_size: 8\n  num_rounds: 3\n";
const std::string kRound = "  length_per_round: {epochs: 2}\n";
const std::string kReplace = "  replace_function: {truncate_fraction: 0.25}\n";
const std::string kExplore = "  explore_function: {resample_probability: 0.2, perturb_factor: 0.1}\n";

}  // namespace

TEST_CASE("pbt reads Determined's fields and trains num_rounds x length_per_round in all", "[config][pbt]") {
  const SearcherConfig s = parse_ok(pbt(kMetric + kPopulation + kRound + kReplace + kExplore)).searcher;
  CHECK(s.name == "pbt");
  CHECK(s.pbt.population_size == 8);
  CHECK(s.pbt.num_rounds == 3);
  CHECK(s.pbt.length_per_round.unit == LengthUnit::epochs);
  CHECK(s.pbt.length_per_round.value == 2);
  CHECK(s.pbt.truncate_fraction == 0.25);
  CHECK(s.pbt.resample_probability == 0.2);
  CHECK(s.pbt.perturb_factor == 0.1);
  CHECK(s.max_length.unit == LengthUnit::epochs);
  CHECK(s.max_length.value == 6);
  CHECK(s.smaller_is_better);
}

TEST_CASE("pbt's fields are required, in range, and refused where they would not take effect", "[config][pbt]") {
  check_bad_cases({
      {pbt(kMetric + "  population_size: 8\n" + kRound + kReplace + kExplore),
       "distributed.yaml:6:3: searcher.num_rounds: missing required field"},
      {pbt(kMetric + "  population_size: 0\n  num_rounds: 3\n" + kRound + kReplace + kExplore),
       "distributed.yaml:8:20: searcher.population_size: expected a positive integer, got 0"},
      {pbt(kMetric + kPopulation + kReplace + kExplore),
       "distributed.yaml:6:3: searcher.length_per_round: missing required field"},
      {pbt(kMetric + kPopulation + "  length_per_round: {epoch: 2}\n" + kReplace + kExplore),
       "distributed.yaml:10:22: searcher.length_per_round.epoch: unknown field; did you mean \"epochs\"?"},
      {pbt(kMetric + kPopulation + kRound + kExplore),
       "distributed.yaml:6:3: searcher.replace_function: missing required field"},
      {pbt(kMetric + kPopulation + kRound + "  replace_function: {truncate_fraction: 0.6}\n" + kExplore),
       "distributed.yaml:11:41: searcher.replace_function.truncate_fraction: expected a number in (0, 0.5], got 0.6"},
      {pbt(kMetric + kPopulation + kRound + "  replace_function: {truncate_fraction: 0}\n" + kExplore),
       "distributed.yaml:11:41: searcher.replace_function.truncate_fraction: expected a number in (0, 0.5], got 0"},
      {pbt(kMetric + kPopulation + kRound + "  replace_function: {truncation: 0.2}\n" + kExplore),
       "distributed.yaml:11:22: searcher.replace_function.truncation: unknown field; did you mean \"truncate_fraction\"?"},
      {pbt(kMetric + kPopulation + kRound + "  replace_function: 0.2\n" + kExplore),
       "distributed.yaml:11:21: searcher.replace_function: expected a map, got 0.2"},
      {pbt(kMetric + kPopulation + kRound + "  replace_function: {truncate_fraction: 0.1}\n" + kExplore),
       "distributed.yaml:11:41: searcher.replace_function.truncate_fraction: replaces floor(0.1 x population_size 8) = "
       "0 trials a round, so no trial would ever be exploited; expected at least 0.125 (1 / population_size)"},
      {pbt(kMetric + kPopulation + kRound + kReplace + "  explore_function: {perturb_factor: 0.1}\n"),
       "distributed.yaml:12:21: searcher.explore_function.resample_probability: missing required field"},
      {pbt(kMetric + kPopulation + kRound + kReplace +
           "  explore_function: {resample_probability: 1.5, perturb_factor: 0.1}\n"),
       "distributed.yaml:12:44: searcher.explore_function.resample_probability: expected a number in [0, 1], got 1.5"},
      {pbt(kMetric + kPopulation + kRound + kReplace +
           "  explore_function: {resample_probability: 0.2, perturb_factor: -0.1}\n"),
       "distributed.yaml:12:65: searcher.explore_function.perturb_factor: expected a number in [0, 1], got -0.1"},
      // Determined's pbt has no max_length (rounds make the length) nor the other searchers' keys.
      {pbt(kMetric + kPopulation + kRound + kReplace + kExplore + "  max_length: {batches: 10}\n"),
       "distributed.yaml:13:3: searcher.max_length: unknown field"},
      {pbt(kMetric + kPopulation + kRound + kReplace + kExplore + "  max_trials: 10\n"),
       "distributed.yaml:13:3: searcher.max_trials: unknown field"},
      {pbt(kMetric + kPopulation + "  length_per_round: {records: 16}\n" + kReplace + kExplore),
       "distributed.yaml:10:21: searcher.length_per_round: shorter than one batch of 32 records; expected at least "
       "one batch per round"},
      {pbt(kMetric + "  population_size: 8\n  num_rounds: 4294967295\n  length_per_round: {batches: 9007199254740992}\n" +
           kReplace + kExplore),
       "distributed.yaml:9:15: searcher.num_rounds: num_rounds x length_per_round is more than 9007199254740992 "
       "batches (2^53), the most a trial can train; expected fewer or shorter rounds"},
      {pbt(kMetric + kPopulation + kRound + kReplace + kExplore, "python3 train.py"),
       "distributed.yaml:6:9: searcher.name: pbt trains each trial round by round and starts new ones from others' "
       "checkpoints, which a command entrypoint cannot do (it runs to completion by itself); write a Python or native "
       "trial"},
  });
}

TEST_CASE("pbt's length_per_round in epochs needs records_per_epoch", "[config][pbt]") {
  std::string yaml = pbt(kMetric + kPopulation + kRound + kReplace + kExplore);
  yaml.erase(yaml.find("records_per_epoch: 320\n"), std::string("records_per_epoch: 320\n").size());
  CHECK(parse_errors(yaml) ==
        std::vector<std::string>{"distributed.yaml:9:21: records_per_epoch: missing; required because "
                                 "searcher.length_per_round is in epochs"});
}
