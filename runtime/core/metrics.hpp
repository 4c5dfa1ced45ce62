#pragma once
// Metrics as reported by trial code: name -> value, averaged by the system.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace volador {

using MetricMap = std::map<std::string, double>;

// Running mean of metric maps, e.g. over the batches of a workload. A metric
// absent from some batches is averaged over the batches that reported it.
class MetricAverager {
 public:
  void add(const MetricMap& batch_metrics);
  // Merge another averager's sums (e.g. from another rank).
  void merge(const MetricAverager& other);
  [[nodiscard]] MetricMap mean() const;
  [[nodiscard]] bool empty() const { return sums_.empty(); }

 private:
  std::map<std::string, std::pair<double, std::uint64_t>> sums_;  // sum, count
};

}  // namespace volador
