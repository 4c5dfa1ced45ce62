#include "http/ended_trial_curves.hpp"

#include "http/metric_series.hpp"

namespace volador::http {

Result<std::shared_ptr<const TrialCurve>> EndedTrialCurves::curve(const storage::Journal& journal,
                                                                  const TrialCurveKey& key, bool ended) {
  if (ended) {
    std::lock_guard lock(mutex_);
    if (auto kept = kept_.find(key); kept != kept_.end()) return kept->second;
  }
  auto reports = journal.metrics(key.trial_id);
  if (!reports) return fail(reports.error());
  auto curve = std::make_shared<const TrialCurve>(
      TrialCurve{metric_names(*reports, key.kind), metric_series(*reports, key.kind, key.metric, key.max_points)});
  if (ended) keep(key, curve);
  return curve;
}

void EndedTrialCurves::keep(const TrialCurveKey& key, std::shared_ptr<const TrialCurve> curve) {
  std::lock_guard lock(mutex_);
  if (kept_.contains(key)) return;
  if (kept_points_ + curve->points.size() > kMaxKeptPoints) {
    kept_.clear();
    kept_points_ = 0;
  }
  kept_points_ += curve->points.size();
  kept_.emplace(key, std::move(curve));
}

}  // namespace volador::http
