#include "storage/checkpoints/gc_policy.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

namespace volador::checkpoints {
namespace {

using Ranked = std::vector<const GcCandidate*>;

// Orders measured checkpoints best first.
struct BetterFirst {
  bool smaller_is_better = true;
  bool operator()(const GcCandidate* a, const GcCandidate* b) const { return ranks_better(*a, *b, smaller_is_better); }
};

bool later_first(const GcCandidate* a, const GcCandidate* b) {
  if (a->batches != b->batches) return a->batches > b->batches;
  return a->uuid < b->uuid;
}

// Adds the first `count` of `ranked`, ordered by `order`, to `keep`.
template <class Order>
void keep_first(Ranked ranked, std::uint32_t count, Order order, std::set<const GcCandidate*>& keep) {
  const auto n = std::min<std::size_t>(count, ranked.size());
  std::ranges::partial_sort(ranked, ranked.begin() + static_cast<std::ptrdiff_t>(n), order);
  keep.insert(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(n));
}

Ranked measured_only(const Ranked& all) {
  Ranked out;
  std::ranges::copy_if(all, std::back_inserter(out), [](const GcCandidate* c) { return is_measured(*c); });
  return out;
}

}  // namespace

bool is_measured(const GcCandidate& c) { return c.metric && std::isfinite(*c.metric); }

bool ranks_better(const GcCandidate& a, const GcCandidate& b, bool smaller_is_better) {
  const double sign = smaller_is_better ? 1.0 : -1.0;
  return std::tuple(sign * *a.metric, a.batches, a.trial_id, std::string_view(a.uuid)) <
         std::tuple(sign * *b.metric, b.batches, b.trial_id, std::string_view(b.uuid));
}

GcPolicy GcPolicy::of(const config::ExperimentConfig& config) {
  const config::CheckpointStorage storage = config.checkpoint_storage.value_or(config::CheckpointStorage{});
  return {.save_experiment_best = storage.save_experiment_best,
          .save_trial_best = storage.save_trial_best,
          .save_trial_latest = storage.save_trial_latest,
          .smaller_is_better = config.searcher.smaller_is_better};
}

std::set<std::string> checkpoints_to_delete(std::span<const GcCandidate> checkpoints, const GcPolicy& policy) {
  const BetterFirst better{policy.smaller_is_better};
  std::set<const GcCandidate*> keep;
  std::map<std::uint64_t, Ranked> by_trial;
  Ranked all;
  for (const GcCandidate& c : checkpoints) {
    all.push_back(&c);
    by_trial[c.trial_id].push_back(&c);
    if (c.in_use) keep.insert(&c);
  }
  keep_first(measured_only(all), policy.save_experiment_best, better, keep);
  for (const auto& [trial_id, trial] : by_trial) {
    keep_first(measured_only(trial), policy.save_trial_best, better, keep);
    keep_first(trial, policy.save_trial_latest, later_first, keep);
  }
  std::set<std::string_view> kept;  // by uuid, so a repeated uuid is kept if any copy is
  for (const GcCandidate* c : keep) kept.insert(c->uuid);
  std::set<std::string> doomed;
  for (const GcCandidate* c : all) {
    if (!kept.contains(c->uuid)) doomed.insert(c->uuid);
  }
  return doomed;
}

}  // namespace volador::checkpoints
