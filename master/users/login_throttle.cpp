#include "master/users/login_throttle.hpp"

#include <algorithm>

namespace volador::master {

std::optional<std::int64_t> LoginThrottle::retry_at(std::string_view key, std::int64_t now_ms) const {
  const auto found = failures_.find(key);
  if (found == failures_.end() || found->second.retry_at_ms <= now_ms) return std::nullopt;
  return found->second.retry_at_ms;
}

void LoginThrottle::failed(const std::string& key, std::int64_t now_ms) {
  if (failures_.size() >= policy_.max_keys && !failures_.contains(key)) forget_expired(now_ms);
  Failures& entry = failures_[key];
  ++entry.count;
  if (entry.count < policy_.free_failures) return;
  const std::uint32_t doublings = std::min<std::uint32_t>(entry.count - policy_.free_failures, 30);
  const std::int64_t delay = std::min(policy_.first_delay_ms << doublings, policy_.max_delay_ms);
  entry.retry_at_ms = now_ms + delay;
}

void LoginThrottle::succeeded(std::string_view key) {
  if (const auto found = failures_.find(key); found != failures_.end()) failures_.erase(found);
}

void LoginThrottle::forget_expired(std::int64_t now_ms) {
  std::erase_if(failures_, [&](const auto& entry) { return entry.second.retry_at_ms <= now_ms; });
}

}  // namespace volador::master
