#include "runtime/search/median_stopping.hpp"

#include <algorithm>
#include <limits>

#include "runtime/search/state_codec.hpp"

namespace volador::search {

MedianStoppingRule::MedianStoppingRule(std::uint32_t min_trials, std::uint64_t start_batches)
    : min_trials_(min_trials), start_batches_(start_batches) {}

std::optional<double> MedianStoppingRule::best_up_to(const Curve& curve, std::uint64_t batches) {
  if (curve.empty() || curve.back().batches < batches) return std::nullopt;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& p : curve) {
    if (p.batches > batches) break;
    best = std::min(best, p.loss);
  }
  return best;
}

bool MedianStoppingRule::report(RequestId id, std::uint64_t batches, double loss) {
  Curve& mine = curves_[id];
  mine.push_back({batches, loss});
  if (batches < start_batches_) return false;
  std::vector<double> others;
  for (const auto& [other, curve] : curves_)
    if (other != id)
      if (auto best = best_up_to(curve, batches)) others.push_back(*best);
  if (others.size() < min_trials_) return false;
  const auto mid = others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2);
  std::nth_element(others.begin(), mid, others.end());
  double median = *mid;
  if (others.size() % 2 == 0) median = (median + *std::max_element(others.begin(), mid)) / 2;
  return *best_up_to(mine, batches) > median;
}

nlohmann::json MedianStoppingRule::save() const {
  nlohmann::json curves = nlohmann::json::array();
  for (const auto& [id, curve] : curves_) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : curve) points.push_back({p.batches, number_to_json(p.loss)});
    curves.push_back({id, points});
  }
  return curves;
}

Status MedianStoppingRule::load(const nlohmann::json& state) {
  std::map<RequestId, Curve> curves;
  try {
    for (const auto& entry : state) {
      Curve& curve = curves[entry.at(0).get<RequestId>()];
      for (const auto& p : entry.at(1)) curve.push_back({p.at(0).get<std::uint64_t>(), number_from_json(p.at(1))});
    }
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("median stopping state does not decode: ") + e.what()));
  }
  curves_ = std::move(curves);
  return {};
}

}  // namespace volador::search
