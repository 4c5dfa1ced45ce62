#pragma once
// Prometheus' text exposition format (version 0.0.4): metric families with
// HELP and TYPE lines and labelled samples. Pure.

#include <map>
#include <string>
#include <vector>

namespace volador::http {

using Labels = std::map<std::string, std::string>;

struct Sample {
  Labels labels;
  double value = 0;
  std::string suffix;  // appended to the family's name: "_sum", "_count", "_bucket"
};

struct MetricFamily {
  std::string name;  // [a-zA-Z_:][a-zA-Z0-9_:]*
  std::string help;
  std::string type;  // counter, gauge, histogram
  std::vector<Sample> samples;
};

// The families as the text format writes them; label values escaped.
std::string exposition(const std::vector<MetricFamily>& families);

}  // namespace volador::http
