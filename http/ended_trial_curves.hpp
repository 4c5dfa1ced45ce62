#pragma once
// Ended trials' curves, read and downsampled once. The experiment page charts
// one metric of every trial: reading all their reports from the journal takes
// seconds for 1,000 trials x 1,000 reports. An ended trial's reports no
// longer change, so its downsampled curve is kept and reused, up to
// kMaxKeptPoints points in all (then the kept curves are dropped and kept
// anew). Thread-safe.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "http/downsample.hpp"
#include "storage/journal/journal.hpp"

namespace volador::http {

struct TrialCurve {
  std::set<std::string> names;      // the metrics the trial's reports of that kind carry
  std::vector<SeriesPoint> points;  // metric_series(...)
};

struct TrialCurveKey {
  std::uint64_t trial_id = 0;
  MetricKind kind = MetricKind::validation;
  std::string metric;
  std::size_t max_points = 0;
  auto operator<=>(const TrialCurveKey&) const = default;
};

class EndedTrialCurves {
 public:
  static constexpr std::size_t kMaxKeptPoints = 4'000'000;  // 64 MB of points

  // The trial's curve (metric_names and metric_series of its reports); kept
  // from an earlier call for the same key when that trial had `ended`.
  [[nodiscard]] Result<std::shared_ptr<const TrialCurve>> curve(const storage::Journal& journal,
                                                                const TrialCurveKey& key, bool ended);

 private:
  void keep(const TrialCurveKey& key, std::shared_ptr<const TrialCurve> curve);

  std::mutex mutex_;
  std::map<TrialCurveKey, std::shared_ptr<const TrialCurve>> kept_;
  std::size_t kept_points_ = 0;
};

}  // namespace volador::http
