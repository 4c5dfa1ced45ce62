#include "runtime/core/metrics.hpp"

namespace volador {

void MetricAverager::add(const MetricMap& batch_metrics) {
  for (const auto& [name, value] : batch_metrics) {
    auto& [sum, count] = sums_[name];
    sum += value;
    ++count;
  }
}

void MetricAverager::merge(const MetricAverager& other) {
  for (const auto& [name, entry] : other.sums_) {
    auto& [sum, count] = sums_[name];
    sum += entry.first;
    count += entry.second;
  }
}

MetricMap MetricAverager::mean() const {
  MetricMap out;
  for (const auto& [name, entry] : sums_) out[name] = entry.first / static_cast<double>(entry.second);
  return out;
}

}  // namespace volador
