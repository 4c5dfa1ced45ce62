#include "runtime/core/metrics.hpp"

namespace volador {

void MetricAverager::add(const MetricMap& batch_metrics, double weight) {
  for (const auto& [name, value] : batch_metrics) {
    auto& entry = sums_[name];
    entry.sum += value * weight;
    entry.weight += weight;
  }
}

MetricMap MetricAverager::mean() const {
  MetricMap out;
  for (const auto& [name, entry] : sums_) out[name] = entry.sum / entry.weight;
  return out;
}

}  // namespace volador
