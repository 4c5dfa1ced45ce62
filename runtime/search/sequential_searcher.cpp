#include "runtime/search/sequential_searcher.hpp"

#include <algorithm>
#include <utility>

#include "runtime/search/state_codec.hpp"

namespace volador::search {

std::vector<std::uint64_t> validation_ladder(std::uint64_t max_length, std::uint32_t num_steps) {
  std::vector<std::uint64_t> ladder;
  for (std::uint32_t k = 1; k <= num_steps; ++k) {
    // ceil(max_length * k / num_steps) without overflow: q * k + ceil(r * k / num_steps).
    const std::uint64_t q = max_length / num_steps, r = max_length % num_steps;
    const std::uint64_t point = q * k + (r * k + num_steps - 1) / num_steps;
    if (ladder.empty() || ladder.back() != point) ladder.push_back(point);
  }
  return ladder;
}

SequentialSearcher::SequentialSearcher(std::string kind, const BaseSettings& base, const SequentialSettings& settings,
                                       std::unique_ptr<Suggester> suggester)
    : SearcherBase(std::move(kind), base),
      ladder_(validation_ladder(settings.max_length_batches,
                                settings.early_stopping ? settings.early_stopping->num_steps : 1)),
      suggester_(std::move(suggester)) {
  if (const auto& es = settings.early_stopping) {
    const std::size_t start = std::min<std::size_t>(es->start_step, ladder_.size()) - 1;
    rule_.emplace(es->min_trials, ladder_[start]);
  }
}

SearcherBase::Verdict SequentialSearcher::judge(RequestId id, double loss, std::uint64_t batches) {
  last_loss_[id] = loss;
  const bool stop = rule_ && rule_->report(id, batches, loss);
  if (batches >= ladder_.back()) return {Verdict::Kind::finish};
  if (stop) return {Verdict::Kind::stop};
  return {Verdict::Kind::train, *std::ranges::upper_bound(ladder_, batches)};
}

void SequentialSearcher::trial_ended(RequestId id, Ending ending) {
  const auto last = last_loss_.find(id);
  const bool measured = last != last_loss_.end();
  if (ending == Ending::invalid && rule_) rule_->forget(id);
  if (!measured && (ending == Ending::finished || ending == Ending::stopped)) ending = Ending::failed;
  suggester_->observe(id, {ending, measured ? last->second : 0.0});
  if (measured) last_loss_.erase(last);
}

bool SequentialSearcher::replaces(ExitReason reason) const {
  return reason == ExitReason::invalid_hparams && suggester_->replaces_invalid();
}

nlohmann::json SequentialSearcher::save_method() const {
  nlohmann::json last = nlohmann::json::array();
  for (const auto& [id, loss] : last_loss_) last.push_back({id, number_to_json(loss)});
  return {{"suggester", suggester_->save()}, {"rule", rule_ ? rule_->save() : nullptr}, {"last_loss", last}};
}

Status SequentialSearcher::load_method(const nlohmann::json& state) {
  std::map<RequestId, double> last;
  std::optional<MedianStoppingRule> rule = rule_;
  try {
    for (const auto& entry : state.at("last_loss")) last[entry.at(0).get<RequestId>()] = number_from_json(entry.at(1));
    if (rule)
      if (auto status = rule->load(state.at("rule")); !status) return status;
    if (auto status = suggester_->load(state.at("suggester")); !status) return status;
  } catch (const nlohmann::json::exception& e) {
    return fail(Error::corruption(std::string("searcher state does not decode: ") + e.what()));
  }
  last_loss_ = std::move(last);
  rule_ = std::move(rule);
  return {};
}

}  // namespace volador::search
