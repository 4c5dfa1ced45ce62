// YAML-level behaviour: scalar forms, duplicate keys, hostile documents,
// syntax errors and documents that are not a config at all.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "runtime/config/tests/config_test_support.hpp"

using namespace volador::config;
using namespace volador::config::testing;

namespace {

// A 1 KB "billion laughs": lol9 stands for 10^9 strings once expanded.
std::string billion_laughs() {
  std::string yaml = "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*a" + std::to_string(i - 1);
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [" + prev;
    for (int j = 1; j < 10; ++j) yaml += ", " + prev;
    yaml += "]\n";
  }
  return yaml;
}

template <class F>
double milliseconds(F f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const nlohmann::json& constant(const ExperimentConfig& config, const std::string& name) {
  return std::get<volador::hparams::ConstParam>(config.hyperparameters.at(name).param).val;
}

}  // namespace

TEST_CASE("YAML 1.1 integer forms", "[config][yaml]") {
  const std::vector<std::pair<std::string, std::uint64_t>> cases{
      {"50_000", 50000}, {"1_281_167", 1281167}, {"+7", 7}, {"0x10", 16}, {"0o17", 15}, {"007", 7}};
  for (const auto& [text, value] : cases) {
    CAPTURE(text);
    CHECK(parse_ok(with("records_per_epoch: " + text + "\n")).records_per_epoch == value);
  }
  for (std::string text : {"_5", "5_000.0", "1e3", "0x", "ten", "'5'", "\"5\"", "5 000"}) {
    CAPTURE(text);
    CHECK(parse_errors(with("records_per_epoch: " + text + "\n")).size() == 1);
  }
}

TEST_CASE("booleans", "[config][yaml]") {
  const std::vector<std::pair<std::string, bool>> cases{
      {"true", true},  {"True", true},   {"TRUE", true}, {"yes", true},  {"Yes", true},  {"on", true},
      {"false", false}, {"False", false}, {"no", false},  {"NO", false}, {"off", false}, {"Off", false}};
  for (const auto& [text, value] : cases) {
    CAPTURE(text);
    CHECK(parse_ok(with("perform_initial_validation: " + text + "\n")).perform_initial_validation == value);
  }
  for (std::string text : {"y", "n", "1", "tRUE", "'true'"}) {
    CAPTURE(text);
    CHECK(parse_errors(with("perform_initial_validation: " + text + "\n")).size() == 1);
  }
}

TEST_CASE("free-form values become JSON", "[config][yaml]") {
  const ExperimentConfig config = parse_ok(with(
      "data:\n"
      "  int: 50_000\n"
      "  negative: -3\n"
      "  float: 1e-4\n"
      "  half: .5\n"
      "  bool: True\n"
      "  quoted: '12'\n"
      "  word: n\n"
      "  none: ~\n"
      "  empty:\n"
      "  inf: .inf\n"
      "  list: [1, a]\n"));
  CHECK(config.data == nlohmann::json{{"int", 50000},     {"negative", -3},   {"float", 1e-4},
                                      {"half", 0.5},      {"bool", true},     {"quoted", "12"},
                                      {"word", "n"},      {"none", nullptr},  {"empty", nullptr},
                                      {"inf", ".inf"},    {"list", {1, "a"}}});
  CHECK(config.data["int"].is_number_unsigned());
  CHECK(config.data["float"].is_number_float());
}

TEST_CASE("duplicate keys are refused with both positions", "[config][yaml]") {
  check_bad_cases({
      {with("name: u\n"), "distributed.yaml:10:1: name: duplicate key (first at 1:1)"},
      {"name: t\nentrypoint: e\nhyperparameters: {global_batch_size: 8}\n"
       "searcher:\n  name: single\n  metric: a\n  metric: b\n  max_length: {batches: 1}\n",
       "distributed.yaml:7:3: searcher.metric: duplicate key (first at 6:3)"},
      {with("data: {x: 1, x: 2}\n"), "distributed.yaml:10:14: data.x: duplicate key (first at 10:8)"},
      {with("bind_mounts:\n  - {host_path: /a, container_path: /a, host_path: /b}\n"),
       "distributed.yaml:11:41: bind_mounts[0].host_path: duplicate key (first at 11:6)"},
  });
}

TEST_CASE("a billion laughs is refused quickly", "[config][yaml][limits]") {
  const std::string yaml = billion_laughs();
  REQUIRE(yaml.size() < 1024);
  std::vector<std::string> errors;
  const double elapsed = milliseconds([&] { errors = parse_errors(with("data:\n" + billion_laughs())); });
  CHECK(errors == std::vector<std::string>{
                      "distributed.yaml: document too large: more than 100000 values once aliases are expanded"});
  CHECK(elapsed < 500);
}

TEST_CASE("self-referencing anchors are refused", "[config][yaml][limits]") {
  const auto errors = parse_errors(with("data: &loop {self: *loop}\n"));
  REQUIRE(errors.size() == 1);
  CHECK_THAT(errors[0], Catch::Contains("nested more than 64 levels deep"));
}

TEST_CASE("plain aliases are fine", "[config][yaml]") {
  const ExperimentConfig config = parse_ok(with("data: &d {x: 1}\nlabels: &l [a]\nenvironment: {image: &i img}\n"
                                                "description: *i\n"));
  CHECK(config.description == "img");
  CHECK(config.data == nlohmann::json{{"x", 1}});
}

TEST_CASE("documents that are too big or not UTF-8 are refused", "[config][yaml][limits]") {
  CHECK(parse_errors(with("description: " + std::string(std::size_t{1} << 20, 'x') + "\n")) ==
        std::vector<std::string>{"distributed.yaml: file too large: 1048734 bytes, the limit is 1048576"});
  CHECK(parse_errors(with("description: \xff\xfe\n")) ==
        std::vector<std::string>{"distributed.yaml: file is not valid UTF-8"});
  std::string deepest = "data";
  for (int i = 0; i < 64; ++i) deepest += "[0]";
  CHECK(parse_errors(with("data: " + std::string(100, '[') + std::string(100, ']') + "\n")) ==
        std::vector<std::string>{"distributed.yaml:10:71: " + deepest + ": nested more than 64 levels deep"});
  // yaml-cpp's own guard, deeper still, is reported in the same words.
  CHECK(parse_errors(std::string(1000, '[')) ==
        std::vector<std::string>{"distributed.yaml:1:1: nested more than 500 levels deep"});
}

TEST_CASE("syntax errors give yaml-cpp's position and message", "[config][yaml]") {
  check_bad_cases({
      {"name: t\nsearcher: [unclosed\n", "distributed.yaml:3:1: end of sequence flow not found"},
      {"name: t\n  bad: indent\n", "distributed.yaml:2:6: illegal map value"},
      {"name: *nowhere\n", "distributed.yaml:1:7: the referenced anchor is not defined"},
  });
}

TEST_CASE("documents that are not a config map", "[config][yaml]") {
  const std::string empty =
      "distributed.yaml: empty document; expected a map of fields (name, entrypoint, hyperparameters, searcher, ...)";
  check_bad_cases({
      {"", empty},
      {"# just a comment\n", empty},
      {"---\n...\n", empty},
      {"- name: t\n", "distributed.yaml:1:1: expected a map of fields at the top level, got a list"},
      {"hello\n", "distributed.yaml:1:1: expected a map of fields at the top level, got \"hello\""},
      {kBase + "---\n" + kBase, "distributed.yaml:11:1: expected one YAML document, found 2"},
      {with("[a]: 1\n"), "distributed.yaml:10:1: keys must be strings, got a list"},
  });
}

TEST_CASE("quoted numbers stay strings in free-form values", "[config][yaml]") {
  const ExperimentConfig config = parse_ok(
      "name: t\nentrypoint: e\nhyperparameters: {global_batch_size: 8, tag: \"1.0\", raw: !!str 5}\n"
      "searcher: {name: single, metric: m, max_length: {batches: 1}}\n");
  CHECK(constant(config, "tag") == "1.0");
  CHECK(constant(config, "raw") == "5");
}
