#pragma once
// Metrics as reported by trial code: name -> value, averaged by the system.

#include <map>
#include <string>

namespace volador {

using MetricMap = std::map<std::string, double>;

// Running weighted mean of metric maps, e.g. over the batches of a workload
// (weight 1 each) or over validation batches (weight = records). A metric
// absent from some batches is averaged over the batches that reported it.
class MetricAverager {
 public:
  struct Entry {
    double sum = 0;     // of value * weight
    double weight = 0;
  };

  void add(const MetricMap& batch_metrics, double weight = 1);
  [[nodiscard]] MetricMap mean() const;
  [[nodiscard]] bool empty() const { return sums_.empty(); }
  [[nodiscard]] const std::map<std::string, Entry>& sums() const { return sums_; }

 private:
  std::map<std::string, Entry> sums_;
};

}  // namespace volador
