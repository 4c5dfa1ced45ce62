// Each validation rule, as a table of bad documents and the one error each
// must give (kBase's lines 1-9 are valid; appended lines start at 10).
#include <catch2/catch.hpp>

#include "runtime/config/tests/config_test_support.hpp"

using namespace volador::config;
using namespace volador::config::testing;

namespace {

const std::string kNoName =
    "entrypoint: e\n"
    "hyperparameters: {global_batch_size: 8}\n"
    "searcher: {name: single, metric: m, max_length: {batches: 1}}\n";

// A searcher section (lines 4..) after a valid head with one int hyperparameter.
std::string searcher(const std::string& lines) {
  return "name: t\n"
         "entrypoint: e\n"
         "hyperparameters: {global_batch_size: 8, n: {type: int, minval: 1, maxval: 4, count: 2}}\n"
         "searcher:\n" + lines;
}

// A hyperparameters section (lines 3..) in an otherwise valid random search.
std::string hparams(const std::string& lines) {
  return "name: t\n"
         "entrypoint: e\n"
         "hyperparameters:\n" + lines +
         "searcher: {name: random, metric: m, max_trials: 2, max_length: {batches: 1}}\n";
}

}  // namespace

TEST_CASE("top-level fields", "[config][rules]") {
  check_bad_cases({
      {kNoName, "distributed.yaml: name: missing required field"},
      {"name: t\nhyperparameters: {global_batch_size: 8}\nsearcher: {name: single, metric: m, max_length: {batches: 1}}\n",
       "distributed.yaml: entrypoint: missing required field"},
      {"name: t\nentrypoint: e\nsearcher: {name: single, metric: m, max_length: {batches: 1}}\n",
       "distributed.yaml: hyperparameters: missing required field"},
      {"name: t\nentrypoint: e\nhyperparameters: {global_batch_size: 8}\n",
       "distributed.yaml: searcher: missing required field"},
      {kNoName + "nmae: t\n", "distributed.yaml:4:1: nmae: unknown field; did you mean \"name\"?"},
      {with("banana: 1\n"), "distributed.yaml:10:1: banana: unknown field"},
      {with("max_trials: 1\n"), "distributed.yaml:10:1: max_trials: unknown field; did you mean \"max_restarts\"?"},
      {kNoName + "name: ''\n", "distributed.yaml:4:7: name: expected a non-empty string, got \"\""},
      {kNoName + "name: [a]\n", "distributed.yaml:4:7: name: expected a string, got a list"},
      {with("description: {a: 1}\n"), "distributed.yaml:10:14: description: expected a string, got a map"},
      {with("labels: abc\n"), "distributed.yaml:10:9: labels: expected a list, got \"abc\""},
      {with("labels: [a, {b: 1}]\n"), "distributed.yaml:10:13: labels[1]: expected a string, got a map"},
      {with("data: 5\n"), "distributed.yaml:10:7: data: expected a map, got 5"},
      {with("records_per_epoch: 0\n"), "distributed.yaml:10:20: records_per_epoch: expected a positive integer, got 0"},
      {with("records_per_epoch: 1.5\n"), "distributed.yaml:10:20: records_per_epoch: expected a positive integer, got 1.5"},
      {with("scheduling_unit: -1\n"), "distributed.yaml:10:18: scheduling_unit: expected a positive integer, got -1"},
      {with("max_restarts: ten\n"), "distributed.yaml:10:15: max_restarts: expected a non-negative integer, got \"ten\""},
      {with("max_restarts: 4294967296\n"),
       "distributed.yaml:10:15: max_restarts: expected a non-negative integer, got 4294967296 (the largest allowed is 4294967295)"},
      {with("checkpoint_policy: bset\n"),
       "distributed.yaml:10:20: checkpoint_policy: expected one of best, all, none; got \"bset\"; did you mean \"best\"?"},
      {with("checkpoint_policy: None\n"),
       "distributed.yaml:10:20: checkpoint_policy: expected one of best, all, none; got \"None\"; did you mean \"none\"?"},
      {with("checkpoint_policy: periodic\n"),
       "distributed.yaml:10:20: checkpoint_policy: expected one of best, all, none; got \"periodic\""},
      {with("checkpoint_policy: [best]\n"), "distributed.yaml:10:20: checkpoint_policy: expected a string, got a list"},
      {with("checkpoint_polcy: all\n"),
       "distributed.yaml:10:1: checkpoint_polcy: unknown field; did you mean \"checkpoint_policy\"?"},
      {with("perform_initial_validation: maybe\n"),
       "distributed.yaml:10:29: perform_initial_validation: expected true or false, got \"maybe\""},
      {with("experiment_seed: 2147483648\n"),
       "distributed.yaml:10:18: experiment_seed: expected an integer between 0 and 2147483647, got 2147483648"},
      {with("experiment_seed: -1\n"),
       "distributed.yaml:10:18: experiment_seed: expected an integer between 0 and 2147483647, got -1"},
  });
}

TEST_CASE("lengths", "[config][rules]") {
  check_bad_cases({
      {with("min_validation_period: {batches: 10, epochs: 1}\n"),
       "distributed.yaml:10:24: min_validation_period: expected exactly one of batches, records, epochs; got 2"},
      {with("min_checkpoint_period: {epoch: 1}\n"),
       "distributed.yaml:10:25: min_checkpoint_period.epoch: unknown field; did you mean \"epochs\"?"},
      {with("min_checkpoint_period: {}\n"),
       "distributed.yaml:10:24: min_checkpoint_period: expected one of batches, records, epochs, e.g. {batches: 900}"},
      {with("min_validation_period: 100\n"), "distributed.yaml:10:24: min_validation_period: expected a map, got 100"},
      {with("min_validation_period: {batches: 0}\n"),
       "distributed.yaml:10:34: min_validation_period.batches: expected a positive integer, got 0"},
  });
  check_bad_cases({
      {with("min_checkpoint_period: {batches: 9007199254740993}\n"),
       "distributed.yaml:10:24: min_checkpoint_period: more than 9007199254740992 batches (2^53), the most a trial can "
       "train; expected a shorter length"},
      {with("records_per_epoch: 18446744073709551615\nmin_validation_period: {epochs: 9223372036854775807}\n"),
       "distributed.yaml:11:24: min_validation_period: more than 9007199254740992 batches (2^53), the most a trial can "
       "train; expected a shorter length"},
  });
  const ExperimentConfig config = parse_ok(with("records_per_epoch: 10\nmin_checkpoint_period: {records: 7}\n"));
  REQUIRE(config.min_checkpoint_period.has_value());
  CHECK(config.min_checkpoint_period->unit == LengthUnit::records);
}

TEST_CASE("searcher fields", "[config][rules]") {
  check_bad_cases({
      {searcher("  name: randon\n  metric: m\n  max_length: {batches: 1}\n"),
       "distributed.yaml:5:9: searcher.name: expected one of single, grid, random, adaptive_asha, adaptive, "
       "tpe, bayesian, pbt; got \"randon\"; did you mean \"random\"?"},
      {searcher("  metric: m\n  max_length: {batches: 1}\n"),
       "distributed.yaml:5:3: searcher.name: missing required field"},
      {searcher("  name: grid\n  max_length: {batches: 1}\n"),
       "distributed.yaml:5:3: searcher.metric: missing required field"},
      {searcher("  name: grid\n  metric: m\n"), "distributed.yaml:5:3: searcher.max_length: missing required field"},
      {searcher("  name: grid\n  metric: m\n  max_length: {batches: 0}\n"),
       "distributed.yaml:7:25: searcher.max_length.batches: expected a positive integer, got 0"},
      {searcher("  name: random\n  metric: m\n  max_length: {batches: 1}\n"),
       "distributed.yaml:5:3: searcher.max_trials: missing required field"},
      {searcher("  name: adaptive_asha\n  metric: m\n  max_length: {batches: 1}\n"),
       "distributed.yaml:5:3: searcher.max_trials: missing required field"},
      {searcher("  name: random\n  metric: m\n  max_trials: 0\n  max_length: {batches: 1}\n"),
       "distributed.yaml:7:15: searcher.max_trials: expected a positive integer, got 0"},
      {searcher("  name: grid\n  metric: m\n  max_length: {batches: 1}\n  max_trials: 3\n"),
       "distributed.yaml:8:3: searcher.max_trials: unknown field; did you mean \"max_failed_trials\"?"},
      {searcher("  name: grid\n  metric: m\n  max_length: {batches: 1}\n  mode: standard\n"),
       "distributed.yaml:8:3: searcher.mode: unknown field"},
      {with("  max_concurrent_trials: 2\n"), "distributed.yaml:10:3: searcher.max_concurrent_trials: unknown field"},
      {searcher("  name: random\n  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n  max_concurent_trials: 2\n"),
       "distributed.yaml:9:3: searcher.max_concurent_trials: unknown field; did you mean \"max_concurrent_trials\"?"},
      {searcher("  name: random\n  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n  max_concurrent_trials: -1\n"),
       "distributed.yaml:9:26: searcher.max_concurrent_trials: expected a non-negative integer, got -1"},
      {searcher("  name: grid\n  metric: m\n  max_length: {batches: 1}\n  smaller_is_better: 2\n"),
       "distributed.yaml:8:22: searcher.smaller_is_better: expected true or false, got 2"},
      {searcher("  name: adaptive\n  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n  mode: agressive\n"),
       "distributed.yaml:9:9: searcher.mode: expected one of aggressive, standard, conservative; got "
       "\"agressive\"; did you mean \"aggressive\"?"},
      {searcher("  name: adaptive_asha\n  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n  divisor: 1\n"),
       "distributed.yaml:9:12: searcher.divisor: expected an integer of at least 2, got 1"},
      {searcher("  name: adaptive_asha\n  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n  max_rungs: 0\n"),
       "distributed.yaml:9:14: searcher.max_rungs: expected a positive integer, got 0"},
      {searcher("  [a, b]\n"), "distributed.yaml:5:3: searcher: expected a map, got a list"},
  });
}

TEST_CASE("searcher names and the keys beyond the manual", "[config][rules]") {
  CHECK(parse_ok(searcher("  name: adaptive\n  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n"))
            .searcher.name == "adaptive_asha");
  const SearcherConfig tpe = parse_ok(searcher(
      "  name: tpe\n  metric: m\n  max_trials: 9\n  max_length: {batches: 1}\n"
      "  n_startup_trials: 5\n  gamma: 0.25\n  goal: 0.99\n  n_ei_candidates: 48\n  prior_weight: 2\n"
      "  multivariate: true\n  bandwidth_factor: 0.7\n")).searcher;
  CHECK(tpe.name == "tpe");
  CHECK(tpe.max_trials == 9);
  CHECK(tpe.extra == nlohmann::json{{"n_startup_trials", 5}, {"gamma", 0.25}, {"goal", 0.99},
                                    {"n_ei_candidates", 48}, {"prior_weight", 2.0}, {"multivariate", true},
                                    {"bandwidth_factor", 0.7}});
  const SearcherConfig random = parse_ok(searcher(
      "  name: random\n  metric: m\n  max_trials: 9\n  max_length: {batches: 1}\n"
      "  max_failed_trials: 3\n  early_stopping: {rule: median_stop, min_trials: 2, num_steps: 5}\n")).searcher;
  CHECK(random.extra == nlohmann::json{{"max_failed_trials", 3},
                                       {"early_stopping", {{"rule", "median"}, {"min_trials", 2}, {"num_steps", 5}}}});
  CHECK(parse_ok(searcher("  name: grid\n  metric: m\n  max_length: {batches: 1}\n  early_stopping: median\n"))
            .searcher.extra == nlohmann::json{{"early_stopping", "median"}});
  const SearcherConfig bayesian = parse_ok(searcher(
      "  name: bayesian\n  metric: m\n  max_trials: 9\n  max_length: {batches: 1}\n"
      "  n_initial_points: 4\n  xi: 0\n  n_candidates: 500\n")).searcher;
  CHECK(bayesian.extra == nlohmann::json{{"n_initial_points", 4}, {"xi", 0.0}, {"n_candidates", 500}});
}

TEST_CASE("bad keys of the searchers beyond the manual", "[config][rules]") {
  const std::string head = "  metric: m\n  max_trials: 2\n  max_length: {batches: 1}\n";
  check_bad_cases({
      {searcher("  name: tpe\n" + head + "  gamma: 0\n"),
       "distributed.yaml:9:10: searcher.gamma: expected a number in (0, 1], got 0"},
      {searcher("  name: tpe\n" + head + "  n_ei_candidate: 5\n"),
       "distributed.yaml:9:3: searcher.n_ei_candidate: unknown field; did you mean \"n_ei_candidates\"?"},
      {searcher("  name: tpe\n" + head + "  n_startup_trials: 0\n"),
       "distributed.yaml:9:21: searcher.n_startup_trials: expected a positive integer, got 0"},
      {searcher("  name: tpe\n" + head + "  prior_weight: -1\n"),
       "distributed.yaml:9:17: searcher.prior_weight: expected a number above 0, got -1"},
      {searcher("  name: tpe\n" + head + "  multivariate: joint\n"),
       "distributed.yaml:9:17: searcher.multivariate: expected true or false, got \"joint\""},
      {searcher("  name: tpe\n" + head + "  bandwidth_factor: 1.5\n"),
       "distributed.yaml:9:21: searcher.bandwidth_factor: expected a number in (0, 1], got 1.5"},
      {searcher("  name: bayesian\n" + head + "  multivariate: true\n"),
       "distributed.yaml:9:3: searcher.multivariate: unknown field"},
      {searcher("  name: bayesian\n" + head + "  xi: -0.1\n"),
       "distributed.yaml:9:7: searcher.xi: expected a number of at least 0, got -0.1"},
      {searcher("  name: bayesian\n" + head + "  gamma: 0.5\n"), "distributed.yaml:9:3: searcher.gamma: unknown field"},
      {searcher("  name: random\n" + head + "  n_candidates: 5\n"),
       "distributed.yaml:9:3: searcher.n_candidates: unknown field"},
      {searcher("  name: random\n" + head + "  goal: high\n"),
       "distributed.yaml:9:9: searcher.goal: expected a number, got \"high\""},
      {searcher("  name: random\n" + head + "  max_failed_trials: 0\n"),
       "distributed.yaml:9:22: searcher.max_failed_trials: expected a positive integer, got 0"},
      {searcher("  name: random\n" + head + "  early_stopping: hyperband\n"),
       "distributed.yaml:9:19: searcher.early_stopping: expected one of median, median_stop; got \"hyperband\""},
      {searcher("  name: random\n" + head + "  early_stopping: {min_trial: 2}\n"),
       "distributed.yaml:9:20: searcher.early_stopping.min_trial: unknown field; did you mean \"min_trials\"?"},
      {searcher("  name: random\n" + head + "  early_stopping: {start_step: 0}\n"),
       "distributed.yaml:9:32: searcher.early_stopping.start_step: expected a positive integer, got 0"},
      {searcher("  name: random\n" + head + "  early_stopping: [median]\n"),
       "distributed.yaml:9:19: searcher.early_stopping: expected a map, got a list"},
      {searcher("  name: adaptive_asha\n" + head + "  early_stopping: median\n"),
       "distributed.yaml:9:19: searcher.early_stopping: adaptive_asha stops trials itself; early_stopping is for "
       "grid, random, tpe and bayesian"},
      {searcher("  name: grid\n  metric: m\n  max_length: {batches: 1}\n  gamma: 1\n"),
       "distributed.yaml:8:3: searcher.gamma: unknown field"},
  });
}

TEST_CASE("hyperparameter entries", "[config][rules][hparams]") {
  check_bad_cases({
      {hparams("  global_batch_size: 0\n"),
       "distributed.yaml:4:22: hyperparameters.global_batch_size: expected a constant positive integer, got 0"},
      {hparams("  global_batch_size: \"64\"\n"),
       "distributed.yaml:4:22: hyperparameters.global_batch_size: expected a constant positive integer, got \"64\""},
      {hparams("  global_batch_size: {type: int, minval: 1, maxval: 8}\n"),
       "distributed.yaml:4:22: hyperparameters.global_batch_size: expected a constant positive integer, got a "
       "hyperparameter to search"},
      {hparams("  global_batch_size: 8\n  n: {type: integer, minval: 1, maxval: 2}\n"),
       "distributed.yaml:5:13: hyperparameters.n.type: expected one of const, int, double, log, categorical; got "
       "\"integer\"; did you mean \"int\"?"},
      {hparams("  global_batch_size: 8\n  n: {type: int, minval: 1}\n"),
       "distributed.yaml:5:6: hyperparameters.n.maxval: missing required field"},
      {hparams("  global_batch_size: 8\n  n: {type: int, minval: 3, maxval: 1}\n"),
       "distributed.yaml:5:37: hyperparameters.n.maxval: maxval must not be less than minval"},
      {hparams("  global_batch_size: 8\n  n: {type: int, minval: 0.5, maxval: 1}\n"),
       "distributed.yaml:5:26: hyperparameters.n.minval: expected an integer between -9007199254740992 and "
       "9007199254740992 (2^53, beyond which doubles skip integers), got 0.5"},
      // Beyond what a double holds exactly: tpe and bayesian model ints as doubles (the int64 range overflowed there).
      {hparams("  global_batch_size: 8\n  n: {type: int, minval: 0, maxval: 9223372036854775807}\n"),
       "distributed.yaml:5:37: hyperparameters.n.maxval: expected an integer between -9007199254740992 and "
       "9007199254740992 (2^53, beyond which doubles skip integers), got 9223372036854775807"},
      {hparams("  global_batch_size: 8\n  n: {type: int, minval: -9007199254740993, maxval: 0}\n"),
       "distributed.yaml:5:26: hyperparameters.n.minval: expected an integer between -9007199254740992 and "
       "9007199254740992 (2^53, beyond which doubles skip integers), got -9007199254740993"},
      {hparams("  global_batch_size: 18446744073709551615\n"),
       "distributed.yaml:4:22: hyperparameters.global_batch_size: expected an integer between 1 and 9007199254740992 "
       "(2^53), got 18446744073709551615"},
      {hparams("  global_batch_size: 9007199254740993\n"),
       "distributed.yaml:4:22: hyperparameters.global_batch_size: expected an integer between 1 and 9007199254740992 "
       "(2^53), got 9007199254740993"},
      {hparams("  global_batch_size: 8\n  n: {type: int, minval: 1, maxval: 2, step: 1}\n"),
       "distributed.yaml:5:40: hyperparameters.n.step: unknown field"},
      {hparams("  global_batch_size: 8\n  x: {type: double, minval: abc, maxval: 1}\n"),
       "distributed.yaml:5:29: hyperparameters.x.minval: expected a number, got \"abc\""},
      {hparams("  global_batch_size: 8\n  x: {type: double, minval: 0, maxval: 1, count: 0}\n"),
       "distributed.yaml:5:50: hyperparameters.x.count: expected a positive integer, got 0"},
      {hparams("  global_batch_size: 8\n  x: {type: log, minval: -3, maxval: 0}\n"),
       "distributed.yaml:5:6: hyperparameters.x.base: missing required field"},
      {hparams("  global_batch_size: 8\n  x: {type: log, base: 1, minval: -3, maxval: 0}\n"),
       "distributed.yaml:5:24: hyperparameters.x.base: expected a positive number other than 1, got 1"},
      {hparams("  global_batch_size: 8\n  x: {type: log, base: -2, minval: -3, maxval: 0}\n"),
       "distributed.yaml:5:24: hyperparameters.x.base: expected a positive number other than 1, got -2"},
      {hparams("  global_batch_size: 8\n  c: {type: categorical, vals: []}\n"),
       "distributed.yaml:5:32: hyperparameters.c.vals: expected a non-empty list of values, got an empty list"},
      {hparams("  global_batch_size: 8\n  c: {type: categorical, val: [a]}\n"),
       "distributed.yaml:5:26: hyperparameters.c.val: unknown field; did you mean \"vals\"?"},
      {hparams("  global_batch_size: 8\n  c: {type: const}\n"),
       "distributed.yaml:5:6: hyperparameters.c.val: missing required field"},
      {hparams("  global_batch_size: 8\n  opt:\n    lr: {type: int, maxval: 1, minval: 2}\n"),
       "distributed.yaml:6:29: hyperparameters.opt.lr.maxval: maxval must not be less than minval"},
      {"name: t\nentrypoint: e\nhyperparameters: [1]\nsearcher: {name: single, metric: m, max_length: {batches: 1}}\n",
       "distributed.yaml:3:18: hyperparameters: expected a map of hyperparameters, got a list"},
  });
}

TEST_CASE("the widest int range and global batch a double holds exactly are accepted", "[config][hparams]") {
  const ExperimentConfig config = parse_ok(hparams(
      "  global_batch_size: 9007199254740992\n"
      "  n: {type: int, minval: -9007199254740992, maxval: 9007199254740992}\n"));
  CHECK(config.global_batch_size == 9007199254740992u);
  const auto& n = std::get<volador::hparams::IntParam>(config.hyperparameters.at("n").param);
  CHECK(n.minval == -9007199254740992);
  CHECK(n.maxval == 9007199254740992);
}

TEST_CASE("hyperparameter types are read", "[config][hparams]") {
  using namespace volador::hparams;
  const ExperimentConfig config = parse_ok(hparams(
      "  global_batch_size: {type: const, val: 16}\n"
      "  n: {type: int, minval: -2, maxval: 5, count: 3}\n"
      "  x: {type: double, minval: 0, maxval: 0.5}\n"
      "  c: {type: categorical, vals: [SGD, 1, true, [1, 2], {a: b}, null]}\n"
      "  list: [1, 2]\n"
      "  optimizer_config:\n"
      "    optimizer: {type: categorical, vals: [Adam]}\n"
      "    nested: {deep: 1}\n"));
  CHECK(config.global_batch_size == 16);
  const auto& n = std::get<IntParam>(config.hyperparameters.at("n").param);
  CHECK(n.minval == -2);
  CHECK(n.maxval == 5);
  CHECK(n.count == 3u);
  const auto& x = std::get<DoubleParam>(config.hyperparameters.at("x").param);
  CHECK(x.maxval == 0.5);
  CHECK_FALSE(x.count.has_value());
  const auto& c = std::get<CategoricalParam>(config.hyperparameters.at("c").param);
  CHECK(c.vals == std::vector<Value>{"SGD", 1, true, {1, 2}, {{"a", "b"}}, nullptr});
  CHECK(std::get<ConstParam>(config.hyperparameters.at("list").param).val == Value{1, 2});
  const auto& nested = std::get<Space>(config.hyperparameters.at("optimizer_config").param);
  CHECK(std::holds_alternative<CategoricalParam>(nested.at("optimizer").param));
  CHECK(std::holds_alternative<Space>(nested.at("nested").param));
}

TEST_CASE("checkpoint storage", "[config][rules]") {
  check_bad_cases({
      {with("checkpoint_storage: {type: shared_fs}\n"),
       "distributed.yaml:10:21: checkpoint_storage.host_path: missing required field"},
      {with("checkpoint_storage: {host_path: ckpt}\n"),
       "distributed.yaml:10:33: checkpoint_storage.host_path: expected an absolute path, got \"ckpt\""},
      {with("checkpoint_storage: {type: nfs, host_path: /c}\n"),
       "distributed.yaml:10:28: checkpoint_storage.type: expected one of shared_fs, s3, gcs, azure; got \"nfs\""},
      {with("checkpoint_storage: {type: s3, bucket: b, access_key: a, secret_key: s, host_path: /c}\n"),
       "distributed.yaml:10:73: checkpoint_storage.host_path: unknown field"},
      {with("checkpoint_storage: {type: gcs}\n"), "distributed.yaml:10:21: checkpoint_storage.bucket: missing required field"},
      {with("checkpoint_storage: {type: azure, container: c, connection_string: x, account_url: y}\n"),
       "distributed.yaml:10:21: checkpoint_storage.connection_string: azure storage needs exactly one of "
       "connection_string and account_url"},
      {with("checkpoint_storage: {host_path: /c, save_trial_best: -1}\n"),
       "distributed.yaml:10:54: checkpoint_storage.save_trial_best: expected a non-negative integer, got -1"},
      {with("checkpoint_storage: /c\n"), "distributed.yaml:10:21: checkpoint_storage: expected a map, got \"/c\""},
  });
  CHECK(parse_errors(with("checkpoint_storage: {type: s3}\n")) ==
        std::vector<std::string>{"distributed.yaml:10:21: checkpoint_storage.bucket: missing required field",
                                 "distributed.yaml:10:21: checkpoint_storage.access_key: missing required field",
                                 "distributed.yaml:10:21: checkpoint_storage.secret_key: missing required field"});
}

TEST_CASE("resources and shm sizes", "[config][rules]") {
  check_bad_cases({
      {with("resources: {slots_per_trial: 0}\n"),
       "distributed.yaml:10:30: resources.slots_per_trial: expected a positive integer, got 0"},
      {with("resources: {gpus: 1}\n"), "distributed.yaml:10:13: resources.gpus: unknown field"},
      {with("resources: {slot_per_trial: 2}\n"),
       "distributed.yaml:10:13: resources.slot_per_trial: unknown field; did you mean \"slots_per_trial\"?"},
  });
  const std::vector<std::pair<std::string, std::uint64_t>> sizes{
      {"4294967296", 4294967296u}, {"1_000", 1000},          {"128M", 128u << 20},
      {"1.5G", 3u << 29},          {"4Gi", 4ull << 30},      {"512 MiB", 512u << 20},
      {"64k", 64u << 10},          {"2GB", 2ull << 30},      {"1t", 1ull << 40},
      {"100b", 100},
  };
  for (const auto& [text, bytes] : sizes) {
    CAPTURE(text);
    CHECK(parse_ok(with("resources: {shm_size: " + text + "}\n")).resources.shm_size == bytes);
  }
  for (std::string text : {"0", "-1G", "12X", "abc", "1.5.5G", "G", "1e3M", "0.1b", "99999999999P", "[1]"}) {
    CAPTURE(text);
    const auto errors = parse_errors(with("resources: {shm_size: " + text + "}\n"));
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith("distributed.yaml:10:23: resources.shm_size: expected a positive size "
                                            "in bytes such as 4294967296, 128M or 1.5G, got "));
  }
}

TEST_CASE("bind mounts", "[config][rules]") {
  check_bad_cases({
      {with("bind_mounts: {host_path: /a}\n"), "distributed.yaml:10:14: bind_mounts: expected a list, got a map"},
      {with("bind_mounts:\n  - host_path: /a\n"),
       "distributed.yaml:11:5: bind_mounts[0].container_path: missing required field"},
      {with("bind_mounts:\n  - {host_path: /a, container_path: /a}\n  - {host_path: a, container_path: /a}\n"),
       "distributed.yaml:12:17: bind_mounts[1].host_path: expected an absolute path, got \"a\""},
      {with("bind_mounts:\n  - {host_path: /a, container_path: /a, read_only: maybe}\n"),
       "distributed.yaml:11:52: bind_mounts[0].read_only: expected true or false, got \"maybe\""},
      {with("bind_mounts:\n  - {host_path: /a, container_path: /a, readonly: true}\n"),
       "distributed.yaml:11:41: bind_mounts[0].readonly: unknown field; did you mean \"read_only\"?"},
  });
}

TEST_CASE("environment", "[config][rules]") {
  check_bad_cases({
      {with("environment:\n  registrt_auth: {username: u, password: p, serveraddress: s}\n"),
       "distributed.yaml:11:3: environment.registrt_auth: unknown field; did you mean \"registry_auth\"?"},
      {with("environment:\n  registry_auth: {username: u, password: p}\n"),
       "distributed.yaml:11:18: environment.registry_auth.serveraddress: missing required field"},
      {with("environment:\n  environment_variables: [FOO]\n"),
       "distributed.yaml:11:27: environment.environment_variables[0]: expected NAME=VALUE, got \"FOO\""},
      {with("environment:\n  environment_variables: [A=1, 1A=b]\n"),
       "distributed.yaml:11:32: environment.environment_variables[1]: expected NAME=VALUE, got \"1A=b\""},
      {with("environment:\n  environment_variables: {A: 1}\n"),
       "distributed.yaml:11:26: environment.environment_variables: expected a list, got a map"},
      {with("environment:\n  force_pull_image: 3\n"),
       "distributed.yaml:11:21: environment.force_pull_image: expected true or false, got 3"},
      {with("environment:\n  image: ''\n"), "distributed.yaml:11:10: environment.image: expected a non-empty string, got \"\""},
  });
  CHECK(parse_ok(with("environment: {environment_variables: [A_1=x=y, _B=]}\n")).environment.environment_variables ==
        std::vector<std::string>{"A_1=x=y", "_B="});
}

TEST_CASE("experiment_seed may stand under environment, as the manual lists it, but in one place only", "[config][rules]") {
  CHECK(parse_ok(with("environment: {experiment_seed: 42}\n")).experiment_seed == 42u);
  CHECK(parse_ok(with("experiment_seed: 7\n")).experiment_seed == 7u);
  check_bad_cases({
      {with("experiment_seed: 7\nenvironment: {experiment_seed: 42}\n"),
       "distributed.yaml:11:32: environment.experiment_seed: experiment_seed is also set at the top level (line 10, "
       "column 18); keep one"},
      {with("environment: {experiment_seed: -1}\n"),
       "distributed.yaml:10:32: environment.experiment_seed: expected an integer between 0 and 2147483647, got -1"},
  });
}

TEST_CASE("The workload plan's fields are refused for a command, which cannot honour them", "[config][rules]") {
  const std::string command = "name: t\nentrypoint: python3 train.py\nhyperparameters: {global_batch_size: 8}\n"
                              "searcher: {name: single, metric: m, max_length: {batches: 1}}\n";
  const std::string why = ": has no effect on a command entrypoint, which runs to completion by itself, reports when it "
                          "likes and saves its checkpoint folder when it calls volador.reporting.checkpoint() and when "
                          "it exits; remove it (or write a Python or native trial)";
  check_bad_cases({
      {command + "scheduling_unit: 5\n", "distributed.yaml:5:18: scheduling_unit" + why},
      {command + "min_validation_period: {batches: 5}\n", "distributed.yaml:5:24: min_validation_period" + why},
      {command + "min_checkpoint_period: {batches: 5}\n", "distributed.yaml:5:24: min_checkpoint_period" + why},
      {command + "checkpoint_policy: all\n", "distributed.yaml:5:20: checkpoint_policy" + why},
      {command + "perform_initial_validation: true\n", "distributed.yaml:5:29: perform_initial_validation" + why},
  });
  CHECK(parse_ok(with("scheduling_unit: 5\n")).scheduling_unit == 5u);  // a trial class keeps them
}

TEST_CASE("cross-field rules", "[config][rules]") {
  check_bad_cases({
      {"name: t\nentrypoint: e\nhyperparameters: {global_batch_size: 100}\n"
       "searcher: {name: single, metric: m, max_length: {batches: 1}}\nresources: {slots_per_trial: 8}\n",
       "distributed.yaml:3:38: hyperparameters.global_batch_size: 100 does not divide by "
       "resources.slots_per_trial (8)"},
      {"name: t\nentrypoint: e\nhyperparameters: {global_batch_size: 8}\n"
       "searcher: {name: single, metric: m, max_length: {epochs: 1}}\n",
       "distributed.yaml:4:49: records_per_epoch: missing; required because searcher.max_length is in epochs"},
      {with("min_validation_period: {epochs: 1}\n"),
       "distributed.yaml:10:24: records_per_epoch: missing; required because min_validation_period is in epochs"},
      {with("min_checkpoint_period: {epochs: 1}\n"),
       "distributed.yaml:10:24: records_per_epoch: missing; required because min_checkpoint_period is in epochs"},
      {with("workspace: w\n"), "distributed.yaml:10:12: project: missing; workspace and project come together"},
      {with("project: p\n"), "distributed.yaml:10:10: workspace: missing; project and workspace come together"},
      {with("workspace: w\nprojet: p\n"), "distributed.yaml:11:1: projet: unknown field; did you mean \"project\"?"},
      {"name: t\nentrypoint: e\nhyperparameters:\n  global_batch_size: 8\n  opt:\n    lr: {type: double, minval: 0, maxval: 1}\n"
       "searcher: {name: single, metric: m, max_length: {batches: 1}}\n",
       "distributed.yaml:6:9: hyperparameters.opt.lr: the single searcher needs a constant here"},
      {"name: t\nentrypoint: e\nhyperparameters:\n  global_batch_size: 8\n  c: {type: categorical, vals: [1, 2]}\n"
       "  n: {type: int, minval: 1, maxval: 3}\n"
       "searcher: {name: grid, metric: m, max_length: {batches: 1}}\n",
       "distributed.yaml:6:6: hyperparameters.n: the grid searcher needs a count here"},
  });
  // Constants are fine for single, categorical ones and counted ranges for grid.
  parse_ok(with("records_per_epoch: 5\nmin_validation_period: {epochs: 1}\n"));
  parse_ok(with("workspace: w\nproject: p\n"));
  parse_ok("name: t\nentrypoint: e\nhyperparameters: {global_batch_size: 16, c: {type: categorical, vals: [1]}, "
           "l: {type: log, base: 2, minval: 0, maxval: 3, count: 4}}\n"
           "searcher: {name: grid, metric: m, max_length: {batches: 1}}\nresources: {slots_per_trial: 8}\n");
}

TEST_CASE("resources.kill_grace_period", "[config][rules]") {
  CHECK(parse_ok(with("resources: {slots_per_trial: 1}\n")).resources.kill_grace_period == std::chrono::seconds(10));
  const std::vector<std::pair<std::string, std::chrono::milliseconds>> durations{
      {"500ms", std::chrono::milliseconds(500)}, {"30s", std::chrono::seconds(30)}, {"2min", std::chrono::minutes(2)},
      {"1h", std::chrono::hours(1)}};
  for (const auto& [text, duration] : durations) {
    CAPTURE(text);
    CHECK(parse_ok(with("resources: {kill_grace_period: " + text + "}\n")).resources.kill_grace_period == duration);
  }
  check_bad_cases({
      {with("resources: {kill_grace_period: 10}\n"),
       "distributed.yaml:10:32: resources.kill_grace_period: '10' is not a duration: a whole number and a unit (ms, s, "
       "min, h), e.g. 500ms"},
      {with("resources: {kill_grace_period: 0s}\n"),
       "distributed.yaml:10:32: resources.kill_grace_period: must be more than 0"},
      {with("resources: {kill_grace_period: [1s]}\n"),
       "distributed.yaml:10:32: resources.kill_grace_period: expected a duration such as 30s, 500ms or 2min, got a list"},
  });
}

TEST_CASE("A command needs no global_batch_size and its hyperparameter placeholders must name hyperparameters", "[config][rules]") {
  const std::string head = "name: t\nentrypoint: python3 train.py --lr ${hparams.lr} --opt=${hparams.optimizer.name}\n";
  const std::string space = "hyperparameters:\n  lr: 0.1\n  optimizer: {name: sgd}\n";
  const std::string searcher = "searcher: {name: single, metric: m, max_length: {batches: 1}}\n";
  const auto config = parse_ok(head + space + searcher);
  CHECK(config.global_batch_size == 0u);
  check_bad_cases({
      {"name: t\nentrypoint: python3 train.py --lr ${hparams.lrr}\n" + space + searcher,
       "distributed.yaml:2:13: entrypoint: ${hparams.lrr} names no hyperparameter; defined: lr, optimizer.name"},
      {"name: t\nentrypoint: python3 train.py --opt ${hparams.optimizer}\n" + space + searcher,
       "distributed.yaml:2:13: entrypoint: ${hparams.optimizer} names no hyperparameter; defined: lr, optimizer.name"},
      {"name: t\nentrypoint: python3 train.py ${hparams.lr\n" + space + searcher,
       "distributed.yaml:2:13: entrypoint: '${hparams.lr' opens a placeholder without its closing }"},
      {head + space + "searcher: {name: single, metric: m, max_length: {records: 100}}\n",
       "distributed.yaml:6:49: hyperparameters.global_batch_size: missing; required because searcher.max_length is "
       "not in batches"},
      {"name: t\nentrypoint: model_def:MyTrial\nhyperparameters: {lr: 0.1}\n" + searcher,
       "distributed.yaml:3:18: hyperparameters.global_batch_size: missing required hyperparameter"},
  });
}
