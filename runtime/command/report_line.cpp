#include "runtime/command/report_line.hpp"

#include <array>
#include <cmath>
#include <utility>

#include <nlohmann/json.hpp>

namespace volador::command {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<std::string_view, ReportKind>, 5> kKinds{{
    {"intermediate", ReportKind::intermediate},
    {"loss", ReportKind::loss},
    {"final", ReportKind::final_result},
    {"metrics", ReportKind::metrics},
    {"checkpoint", ReportKind::checkpoint},
}};

Error bad_report(const std::string& why) { return Error::invalid_argument("bad report line: " + why); }

Result<ReportKind> read_kind(const json& object) {
  const auto it = object.find("kind");
  if (it == object.end() || !it->is_string()) return fail(bad_report("no \"kind\" string"));
  const auto& name = it->get_ref<const std::string&>();
  for (const auto& [text, kind] : kKinds) {
    if (name == text) return kind;
  }
  return fail(bad_report("unknown kind \"" + name + "\" (expected intermediate, loss, final, metrics or checkpoint)"));
}

Result<double> read_finite(const json& value, const std::string& what) {
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    return fail(bad_report(what + " must be a finite number, got " + value.dump()));
  }
  return value.get<double>();
}

Result<double> read_value(const json& object) {
  const auto it = object.find("value");
  if (it == object.end()) return fail(bad_report("no \"value\""));
  return read_finite(*it, "\"value\"");
}

Result<MetricMap> read_metrics(const json& object) {
  const auto it = object.find("metrics");
  if (it == object.end() || !it->is_object() || it->empty()) {
    return fail(bad_report("\"metrics\" must be a non-empty object of name: number"));
  }
  MetricMap metrics;
  for (const auto& [name, value] : it->items()) {
    if (name.empty()) return fail(bad_report("a metric name is empty"));
    auto number = read_finite(value, "metric \"" + name + "\"");
    if (!number) return fail(number.error());
    metrics[name] = *number;
  }
  return metrics;
}

Result<std::optional<std::uint64_t>> read_step(const json& object) {
  const auto it = object.find("step");
  if (it == object.end() || it->is_null()) return std::optional<std::uint64_t>();
  if (!it->is_number_unsigned()) {
    return fail(bad_report("\"step\" must be a non-negative integer, got " + it->dump()));
  }
  return std::optional<std::uint64_t>(it->get<std::uint64_t>());
}

// A checkpoint's snapshot: absent, or one path segment (a folder beside the others).
Result<std::string> read_folder(const json& object) {
  const auto it = object.find("folder");
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return fail(bad_report("\"folder\" must be a string, got " + it->dump()));
  const auto& name = it->get_ref<const std::string&>();
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos || name.find('\0') != std::string::npos)
    return fail(bad_report("\"folder\" must be a plain folder name, got " + it->dump()));
  return name;
}

Result<Report> read_report(const json& object) {
  auto kind = read_kind(object);
  if (!kind) return fail(kind.error());
  auto step = read_step(object);
  if (!step) return fail(step.error());
  Report report;
  report.kind = *kind;
  report.step = *step;
  if (*kind == ReportKind::checkpoint) {
    auto folder = read_folder(object);
    if (!folder) return fail(folder.error());
    report.folder = std::move(*folder);
  } else if (*kind == ReportKind::metrics) {
    auto metrics = read_metrics(object);
    if (!metrics) return fail(metrics.error());
    report.metrics = std::move(*metrics);
  } else {
    auto value = read_value(object);
    if (!value) return fail(value.error());
    report.value = *value;
  }
  return report;
}

}  // namespace

Result<std::optional<Report>> parse_report_line(std::string_view line) {
  if (!line.starts_with(kReportPrefix)) return std::optional<Report>();
  const json object = json::parse(line.substr(kReportPrefix.size()), nullptr, /*allow_exceptions=*/false);
  if (!object.is_object()) return fail(bad_report("expected one JSON object after the prefix"));
  auto report = read_report(object);
  if (!report) return fail(report.error());
  return std::optional<Report>(std::move(*report));
}

std::string_view to_string(ReportKind kind) {
  for (const auto& [text, known] : kKinds) {
    if (known == kind) return text;
  }
  return "unknown";
}

}  // namespace volador::command
