#include <catch2/catch.hpp>

#include <random>
#include <regex>

#include "runtime/command/katib_scanner.hpp"
#include "runtime/command/metric_pattern.hpp"

using namespace volador::command;
using Metrics = std::vector<Metric>;

namespace {

Metrics katib(std::string_view line) { return MetricPattern::katib().find_metrics(line); }

MetricPattern custom(std::string_view format) {
  auto pattern = MetricPattern::from_format(format);
  if (!pattern) FAIL("rejected " << format << ": " << pattern.error().message);
  return *pattern;
}

std::string format_error(std::string_view format) {
  auto pattern = MetricPattern::from_format(format);
  if (pattern) FAIL("accepted " << format);
  return pattern.error().message;
}

// A random line over characters that matter to the Katib pattern.
std::string random_line(std::mt19937& rng) {
  static constexpr std::string_view kAlphabet = "ab9_|-=  .+-eE\t:x0";
  std::uniform_int_distribution<std::size_t> length(0, 24);
  std::uniform_int_distribution<std::size_t> pick(0, kAlphabet.size() - 1);
  std::string line(length(rng), ' ');
  for (auto& c : line) c = kAlphabet[pick(rng)];
  return line;
}

}  // namespace

TEST_CASE("the Katib pattern finds every name=value on a line") {
  CHECK(katib("epoch 3: loss=0.25 accuracy=0.91") == Metrics{{"loss", 0.25}, {"accuracy", 0.91}});
  CHECK(katib("loss = 1.5, acc=2") == Metrics{{"loss", 1.5}, {"acc", 2}});
  CHECK(katib("no metrics here: 3 epochs") == Metrics{});
}

TEST_CASE("the Katib pattern reads signs and scientific notation") {
  CHECK(katib("lr=1e-3 g=-2.5E+2 d=+.5 n=-.25e1") ==
        Metrics{{"lr", 1e-3}, {"g", -250}, {"d", 0.5}, {"n", -2.5}});
}

TEST_CASE("the Katib pattern ignores names without a number") {
  CHECK(katib("loss= acc=0.5") == Metrics{{"acc", 0.5}});
  CHECK(katib("name=abc x=- y=e5 z=1") == Metrics{{"z", 1}});
  CHECK(katib("huge=1e999 ok=1") == Metrics{{"ok", 1}});
}

TEST_CASE("the Katib pattern takes dashes and pipes in names") {
  CHECK(katib("val-loss=0.1 train|acc=0.9") == Metrics{{"val-loss", 0.1}, {"train|acc", 0.9}});
}

TEST_CASE("the Katib pattern resumes after each value as std::regex does") {
  CHECK(katib("a=12b=3") == Metrics{{"a", 12}, {"b", 3}});
  CHECK(katib("a=1.x=2 c=1e5d=4") == Metrics{{"a", 1}, {"x", 2}, {"c", 1e5}, {"d", 4}});
}

TEST_CASE("the Katib scanner finds exactly the matches of std::regex") {
  const std::regex regex{std::string(kKatibMetricPattern)};
  std::mt19937 rng(7);
  for (int i = 0; i < 3000; ++i) {
    const std::string line = random_line(rng);
    std::vector<std::pair<std::string, std::string>> expected, actual;
    for (std::sregex_iterator it(line.begin(), line.end(), regex), end; it != end; ++it) {
      expected.emplace_back((*it)[1].str(), (*it)[2].str());
    }
    for (const auto& match : find_katib_matches(line)) actual.emplace_back(match.name, match.value);
    CAPTURE(line);
    REQUIRE(actual == expected);
  }
}

TEST_CASE("the Katib pattern scans a very long line quickly") {
  std::string line(1 << 20, 'a');
  line += " loss=0.5";
  CHECK(katib(line) == Metrics{{"loss", 0.5}});
}

TEST_CASE("an empty format is the Katib pattern") {
  CHECK(custom("").find_metrics("loss=0.5") == Metrics{{"loss", 0.5}});
}

TEST_CASE("a custom pattern takes group 1 as the name and group 2 as the value") {
  const auto pattern = custom(R"(([a-z_]+):\s+([-+.\deE]+))");
  CHECK(pattern.find_metrics("step 3 - loss: 0.25 - accuracy: 0.91 - lr: +1e-3") ==
        Metrics{{"loss", 0.25}, {"accuracy", 0.91}, {"lr", 1e-3}});
  CHECK(pattern.find_metrics("loss=0.25") == Metrics{});
  CHECK(pattern.find_metrics("loss: 1.2.3") == Metrics{});
}

TEST_CASE("a custom pattern skips lines longer than the limit") {
  const auto pattern = custom(R"((\w+)=(\d+))");
  std::string line = "a=1 " + std::string(kMaxCustomPatternLineBytes, ' ');
  CHECK(pattern.find_metrics(line) == Metrics{});
  line.resize(kMaxCustomPatternLineBytes);
  CHECK(pattern.find_metrics(line) == Metrics{{"a", 1}});
}

TEST_CASE("a custom pattern needs two capture groups") {
  CHECK(format_error(R"((\w+)=\d+)") ==
        "expected a regular expression with at least 2 capture groups (1: the metric's name, 2: its value), got 1");
  CHECK(custom(R"((\w+)=((\d+)))").find_metrics("a=7") == Metrics{{"a", 7}});
}

TEST_CASE("a malformed custom pattern is an error saying why") {
  CHECK(format_error(R"((\w+)=(\d+)") == "invalid regular expression: an unmatched ( or ), or an unsupported (?...) group");
  CHECK(format_error(R"((?P<name>\w+)=(\d+))") ==
        "invalid regular expression: an unmatched ( or ), or an unsupported (?...) group");
  CHECK(format_error("([z-a]+)=(1)") == "invalid regular expression: an invalid character range such as [z-a]");
  CHECK(format_error("(a)(b)\\") == "invalid regular expression: an invalid escape or a trailing backslash");
  CHECK(format_error("((a{1000}){1000})(b)").starts_with("invalid regular expression: too many states"));
}

TEST_CASE("metric values are finite numbers with an optional sign") {
  CHECK(parse_metric_value("+1.5") == 1.5);
  CHECK(parse_metric_value("-2e3") == -2000);
  CHECK(parse_metric_value(".5") == 0.5);
  for (const auto* bad : {"", "+", "-", "+-1", "1.5x", "inf", "nan", "1e999", " 1"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_metric_value(bad));
  }
}
