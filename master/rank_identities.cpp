#include "master/rank_identities.hpp"

#include <algorithm>

namespace volador::master {

RankIdentities::RankIdentities(Issue issue, std::chrono::milliseconds validity, Clock clock, std::size_t capacity)
    : issue_(std::move(issue)), renew_after_ms_(validity.count() / 2), clock_(std::move(clock)), capacity_(capacity) {}

Result<tls::Identity> RankIdentities::for_launch(const std::string& agent_id, const tls::RankName& rank) {
  const auto now = clock_();
  const Key key{rank.experiment_id, agent_id};
  std::lock_guard lock(mutex_);
  if (auto it = issued_.find(key); it != issued_.end() && now - it->second.issued_at_ms < renew_after_ms_)
    return it->second.identity;
  auto identity = issue_(rank);  // under the lock: concurrent launches of a pair get one identity
  if (!identity) return identity;
  if (!issued_.contains(key) && issued_.size() >= capacity_) drop_oldest();
  issued_.insert_or_assign(key, Issued{*identity, now});
  return identity;
}

void RankIdentities::drop_oldest() {
  auto oldest = std::ranges::min_element(issued_, {}, [](const auto& entry) { return entry.second.issued_at_ms; });
  if (oldest != issued_.end()) issued_.erase(oldest);
}

}  // namespace volador::master
