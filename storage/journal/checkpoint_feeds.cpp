#include "storage/journal/checkpoint_feeds.hpp"

namespace volador::storage {

std::vector<CheckpointRecord> CheckpointFeed::take() {
  std::lock_guard lock(mutex_);
  return std::exchange(records_, {});
}

void CheckpointFeed::push(const CheckpointRecord& record) {
  {
    std::lock_guard lock(mutex_);
    records_.push_back(record);
  }
  if (on_push_) on_push_();
}

std::shared_ptr<CheckpointFeed> CheckpointFeeds::follow(std::uint64_t experiment_id, std::function<void()> on_push) {
  auto feed = std::make_shared<CheckpointFeed>(std::move(on_push));
  std::lock_guard lock(mutex_);
  std::erase_if(feeds_, [](const auto& entry) { return entry.second.expired(); });  // of experiments that ended
  feeds_.emplace(experiment_id, feed);
  return feed;
}

void CheckpointFeeds::publish(const CheckpointRecord& record) {
  std::lock_guard lock(mutex_);
  auto [it, last] = feeds_.equal_range(record.experiment_id);
  while (it != last) {
    if (auto feed = it->second.lock()) {
      feed->push(record);
      ++it;
    } else {
      it = feeds_.erase(it);
    }
  }
}

}  // namespace volador::storage
