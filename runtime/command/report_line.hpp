#pragma once
// Lines written by the Python reporting API (python/volador/reporting.py):
// a fixed prefix, then one JSON object, e.g.
//   [volador-report] {"kind": "intermediate", "value": 0.91, "step": 3}
//   [volador-report] {"kind": "loss", "value": 0.25}
//   [volador-report] {"kind": "final", "value": 0.93}
//   [volador-report] {"kind": "metrics", "metrics": {"loss": 0.25, "acc": 0.91}, "step": 3}
//   [volador-report] {"kind": "checkpoint", "folder": "snapshot-x1y2"}
// "step" is optional (a non-negative integer), and so is a checkpoint's
// "folder" (a snapshot's name, one path segment); other keys are ignored.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/core/error.hpp"
#include "runtime/core/metrics.hpp"

namespace volador::command {

inline constexpr std::string_view kReportPrefix = "[volador-report] ";

enum class ReportKind {
  intermediate,  // report_intermediate_result: the searcher's metric so far
  loss,          // report_loss
  final_result,  // report_final_result ("final" on the line)
  metrics,       // report_metrics: several named metrics
  checkpoint,    // checkpoint(): save the checkpoint folder (or its snapshot) as the trial's checkpoint
};

struct Report {
  ReportKind kind = ReportKind::intermediate;
  double value = 0;                   // intermediate, loss, final_result; finite
  MetricMap metrics;                  // metrics only: non-empty, names non-empty, values finite
  std::optional<std::uint64_t> step;  // absent when the script gave none
  std::string folder;                 // checkpoint only: the snapshot's name; empty: the checkpoint folder itself
};

// nullopt when `line` does not start with kReportPrefix (scan it with a
// MetricPattern instead); the report when it does and decodes. Errors
// (invalid_argument, saying what is wrong): the prefix followed by anything
// but a valid report, such as bad JSON, an unknown kind, a missing or
// non-finite value, a step that is not a non-negative integer, or a
// checkpoint folder that is not a plain name.
[[nodiscard]] Result<std::optional<Report>> parse_report_line(std::string_view line);

// "intermediate", "loss", "final", "metrics" or "checkpoint", as on the line.
[[nodiscard]] std::string_view to_string(ReportKind kind);

}  // namespace volador::command
