#include "http/prometheus_text.hpp"

#include <cmath>

#include <fmt/format.h>

namespace volador::http {
namespace {

std::string escaped(const std::string& text, bool quote) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && quote) out += "\\\"";
    else out += c;
  }
  return out;
}

std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  return fmt::format("{}", value);
}

}  // namespace

std::string exposition(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const auto& family : families) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", family.name, escaped(family.help, false), family.name, family.type);
    for (const auto& sample : family.samples) {
      out += family.name + sample.suffix;
      if (!sample.labels.empty()) {
        std::string labels;
        for (const auto& [name, value] : sample.labels)
          labels += fmt::format("{}{}=\"{}\"", labels.empty() ? "" : ",", name, escaped(value, true));
        out += "{" + labels + "}";
      }
      out += " " + number(sample.value) + "\n";
    }
  }
  return out;
}

}  // namespace volador::http
