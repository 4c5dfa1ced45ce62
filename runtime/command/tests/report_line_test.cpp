#include <catch2/catch.hpp>

#include "runtime/command/report_line.hpp"

using namespace volador::command;

namespace {

Report parse_ok(std::string_view line) {
  auto report = parse_report_line(line);
  if (!report) FAIL("unexpected error: " << report.error().message);
  if (!*report) FAIL("not a report line: " << line);
  return **report;
}

std::string parse_error(std::string_view line) {
  auto report = parse_report_line(line);
  if (report) FAIL("accepted: " << line);
  return report.error().message;
}

}  // namespace

TEST_CASE("lines without the prefix are not report lines") {
  for (const auto* line : {"loss=0.5", "", " [volador-report] {}", "[volador-report]{}"}) {
    CAPTURE(line);
    auto report = parse_report_line(line);
    REQUIRE(report);
    CHECK_FALSE(report->has_value());
  }
}

TEST_CASE("intermediate, loss and final reports carry a value and an optional step") {
  const Report intermediate = parse_ok(R"([volador-report] {"kind": "intermediate", "value": 0.91, "step": 3})");
  CHECK(intermediate.kind == ReportKind::intermediate);
  CHECK(intermediate.value == 0.91);
  CHECK(intermediate.step == 3u);

  const Report loss = parse_ok(R"([volador-report] {"kind": "loss", "value": -2})");
  CHECK(loss.kind == ReportKind::loss);
  CHECK(loss.value == -2);
  CHECK_FALSE(loss.step);

  const Report final_result = parse_ok("[volador-report] {\"kind\": \"final\", \"value\": 1e-3, \"step\": null}\r");
  CHECK(final_result.kind == ReportKind::final_result);
  CHECK(final_result.value == 1e-3);
  CHECK_FALSE(final_result.step);
}

TEST_CASE("a metrics report carries several named values") {
  const Report report =
      parse_ok(R"([volador-report] {"kind": "metrics", "metrics": {"loss": 0.25, "acc": 1}, "step": 0, "extra": 1})");
  CHECK(report.kind == ReportKind::metrics);
  CHECK(report.metrics == volador::MetricMap{{"loss", 0.25}, {"acc", 1}});
  CHECK(report.step == 0u);
}

TEST_CASE("a checkpoint report names its snapshot folder, or none") {
  const Report live = parse_ok(R"([volador-report] {"kind": "checkpoint"})");
  CHECK(live.kind == ReportKind::checkpoint);
  CHECK(live.folder.empty());
  const Report snapshot = parse_ok(R"([volador-report] {"kind": "checkpoint", "folder": "snapshot-a1"})");
  CHECK(snapshot.kind == ReportKind::checkpoint);
  CHECK(snapshot.folder == "snapshot-a1");
  for (const auto* folder : {R"("../x")", R"("a/b")", R"("..")", R"("")", "3"}) {
    CAPTURE(folder);
    CHECK(parse_error(std::string(R"([volador-report] {"kind": "checkpoint", "folder": )") + folder + "}")
              .starts_with("bad report line: \"folder\" must be a"));
  }
}

TEST_CASE("a prefixed line that is not a valid report is an error saying what is wrong") {
  CHECK(parse_error("[volador-report] {\"kind\": ") == "bad report line: expected one JSON object after the prefix");
  CHECK(parse_error("[volador-report] [1]") == "bad report line: expected one JSON object after the prefix");
  CHECK(parse_error(R"([volador-report] {"value": 1})") == "bad report line: no \"kind\" string");
  CHECK(parse_error(R"([volador-report] {"kind": "best", "value": 1})") ==
        "bad report line: unknown kind \"best\" (expected intermediate, loss, final, metrics or checkpoint)");
  CHECK(parse_error(R"([volador-report] {"kind": "loss"})") == "bad report line: no \"value\"");
  CHECK(parse_error(R"([volador-report] {"kind": "loss", "value": "0.5"})") ==
        "bad report line: \"value\" must be a finite number, got \"0.5\"");
  CHECK(parse_error(R"([volador-report] {"kind": "loss", "value": true})") ==
        "bad report line: \"value\" must be a finite number, got true");
  CHECK(parse_error(R"([volador-report] {"kind": "loss", "value": 1, "step": -1})") ==
        "bad report line: \"step\" must be a non-negative integer, got -1");
  CHECK(parse_error(R"([volador-report] {"kind": "loss", "value": 1, "step": 2.0})") ==
        "bad report line: \"step\" must be a non-negative integer, got 2.0");
  CHECK(parse_error(R"([volador-report] {"kind": "metrics", "metrics": {}})") ==
        "bad report line: \"metrics\" must be a non-empty object of name: number");
  CHECK(parse_error(R"([volador-report] {"kind": "metrics", "metrics": {"a": null}})") ==
        "bad report line: metric \"a\" must be a finite number, got null");
  CHECK(parse_error(R"([volador-report] {"kind": "metrics", "metrics": {"": 1}})") ==
        "bad report line: a metric name is empty");
}

TEST_CASE("report kinds print as on the line") {
  CHECK(to_string(ReportKind::final_result) == "final");
  CHECK(to_string(ReportKind::metrics) == "metrics");
  CHECK(to_string(ReportKind::checkpoint) == "checkpoint");
}
