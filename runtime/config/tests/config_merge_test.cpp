#include <catch2/catch.hpp>

#include "runtime/config/config_merge.hpp"

using namespace volador;
using namespace volador::config;

namespace {

const char* kOriginal = R"(name: first
labels: [a, b]
entrypoint: native:mlp_classifier
hyperparameters:
  global_batch_size: 8
  lr: {type: double, minval: 0.1, maxval: 0.2}
searcher:
  name: random
  metric: accuracy
  smaller_is_better: false
  max_trials: 2
  max_length: {batches: 10}
)";

std::vector<std::string> error_lines(const std::variant<MergedConfig, std::vector<ConfigError>>& outcome) {
  std::vector<std::string> lines;
  for (const auto& e : std::get<std::vector<ConfigError>>(outcome)) lines.push_back(e.to_string());
  return lines;
}

}  // namespace

TEST_CASE("A fork's changes merge mappings key by key and replace other values whole") {
  auto outcome = merge_config_changes({kOriginal, "exp 1"}, {R"(name: second
labels: [c]
hyperparameters:
  lr: 0.05
searcher:
  max_trials: 5
)", "changes.yaml"});
  REQUIRE(std::holds_alternative<MergedConfig>(outcome));
  const auto& config = std::get<MergedConfig>(outcome).config;
  CHECK(config.name == "second");
  CHECK(config.labels == nlohmann::json::array({"c"}));
  CHECK(config.searcher.max_trials == 5);
  CHECK(config.searcher.name == "random");
  CHECK(config.searcher.metric == "accuracy");
  CHECK_FALSE(config.searcher.smaller_is_better);
  CHECK(config.hyperparameters.contains("global_batch_size"));
}

TEST_CASE("An empty changes file forks the config unchanged") {
  auto outcome = merge_config_changes({kOriginal, "exp 1"}, {"", "changes.yaml"});
  REQUIRE(std::holds_alternative<MergedConfig>(outcome));
  CHECK(std::get<MergedConfig>(outcome).config.name == "first");
}

TEST_CASE("A fork's errors name the changes file's line when it set the field, else the original's") {
  CHECK(error_lines(merge_config_changes({kOriginal, "exp 1"}, {"name: x\nsearcher:\n  max_trials: ten\n", "changes.yaml"})) ==
        std::vector<std::string>{"changes.yaml:3:15: searcher.max_trials: expected a positive integer, got \"ten\""});
  auto misspelled = error_lines(merge_config_changes({kOriginal, "exp 1"}, {"searcher:\n  max_trails: 3\n", "c.yaml"}));
  REQUIRE(misspelled.size() == 1);
  CHECK(misspelled[0].starts_with("c.yaml:2:15: searcher.max_trails: unknown field; did you mean \"max_trials\"?"));
  // Removing a required field is reported where the original had it.
  auto removed = error_lines(merge_config_changes({kOriginal, "exp 1"}, {"searcher:\n  metric: null\n", "c.yaml"}));
  REQUIRE_FALSE(removed.empty());
  CHECK(removed[0].starts_with("c.yaml:2:"));
}

TEST_CASE("A changes file that is not a YAML mapping is refused at its line") {
  auto syntax = error_lines(merge_config_changes({kOriginal, "exp 1"}, {"searcher: [\n", "c.yaml"}));
  REQUIRE(syntax.size() == 1);
  CHECK(syntax[0].starts_with("c.yaml:"));
  auto list = error_lines(merge_config_changes({kOriginal, "exp 1"}, {"- a\n- b\n", "c.yaml"}));
  REQUIRE(list.size() == 1);
  CHECK(list[0].starts_with("c.yaml"));
  auto duplicate = error_lines(merge_config_changes({kOriginal, "exp 1"}, {"name: a\nname: b\n", "c.yaml"}));
  REQUIRE(duplicate.size() == 1);
  CHECK(duplicate[0].starts_with("c.yaml:2:1: name: duplicate key"));
}
