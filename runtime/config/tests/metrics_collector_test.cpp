// The `metrics_collector:` section: the stdout metric pattern of command entrypoints.
#include <catch2/catch.hpp>

#include "runtime/config/tests/config_test_support.hpp"

using namespace volador::config;
using namespace volador::config::testing;

TEST_CASE("without metrics_collector the format is empty, meaning Katib's default", "[config][metrics]") {
  CHECK(parse_ok(with_command("")).metrics_collector.format.empty());
  CHECK(parse_ok(with_command("metrics_collector: {}\n")).metrics_collector.format.empty());
}

TEST_CASE("a custom metrics format with two capture groups is kept as written", "[config][metrics]") {
  const auto config = parse_ok(with_command("metrics_collector:\n  format: '([a-z_]+):\\s+([-+.\\deE]+)'\n"));
  CHECK(config.metrics_collector.format == R"(([a-z_]+):\s+([-+.\deE]+))");
}

TEST_CASE("bad metrics formats are located errors saying why", "[config][metrics]") {
  check_bad_cases({
      {with_command("metrics_collector: {format: '(\\w+)=\\d+'}\n"),
       "distributed.yaml:10:29: metrics_collector.format: expected a regular expression with at least 2 capture "
       "groups (1: the metric's name, 2: its value), got 1"},
      {with_command("metrics_collector:\n  format: '(\\w+)=(\\d+'\n"),
       "distributed.yaml:11:11: metrics_collector.format: invalid regular expression: an unmatched ( or ), or an "
       "unsupported (?...) group"},
      {with_command("metrics_collector: {format: '([z-a])(b)'}\n"),
       "distributed.yaml:10:29: metrics_collector.format: invalid regular expression: an invalid character range "
       "such as [z-a]"},
      {with_command("metrics_collector: {format: ''}\n"),
       "distributed.yaml:10:29: metrics_collector.format: expected a non-empty string, got \"\""},
      {with_command("metrics_collector: {format: [a]}\n"),
       "distributed.yaml:10:29: metrics_collector.format: expected a string, got a list"},
      {with_command("metrics_collector: {pattern: 'x'}\n"),
       "distributed.yaml:10:21: metrics_collector.pattern: unknown field"},
      {with_command("metrics_collector: '(a)(b)'\n"),
       "distributed.yaml:10:20: metrics_collector: expected a map, got the quoted string \"(a)(b)\""},
      {with_command("metric_collector: {}\n"),
       "distributed.yaml:10:1: metric_collector: unknown field; did you mean \"metrics_collector\"?"},
  });
}

TEST_CASE("metrics_collector is refused for a trial class which reports its metrics through the trial API",
          "[config][metrics]") {
  const std::string why = ": metrics_collector: applies only to a command entrypoint, whose metrics are read from its "
                          "output; a Python or native trial reports its metrics through the trial API: remove it";
  check_bad_cases({
      {with("metrics_collector: {format: '(\\w+)=(\\d+)'}\n"), "distributed.yaml:10:20" + why},
      {with("metrics_collector: {}\n"), "distributed.yaml:10:20" + why},
      {"name: t\nentrypoint: native:mlp\nhyperparameters: {global_batch_size: 8}\n"
       "searcher: {name: single, metric: m, max_length: {batches: 1}}\nmetrics_collector: {}\n",
       "distributed.yaml:5:20" + why},
  });
}
