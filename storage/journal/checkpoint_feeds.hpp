#pragma once
// The checkpoint records the journal is given, handed to whoever follows an
// experiment's (Journal::follow_checkpoints): the master's checkpoint GC
// keeps its index current with them instead of reading them back.
// Thread-safe: any thread may publish, follow or take.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "schemas/journal.records.hpp"

namespace volador::storage {

// One follower's records, in the order they were published, until taken.
class CheckpointFeed {
 public:
  // `on_push` (when set) is called after each record is pushed, on the pushing thread.
  explicit CheckpointFeed(std::function<void()> on_push = {}) : on_push_(std::move(on_push)) {}
  // The records published since the last take, oldest first.
  [[nodiscard]] std::vector<CheckpointRecord> take();
  void push(const CheckpointRecord& record);

 private:
  std::mutex mutex_;
  std::vector<CheckpointRecord> records_;
  const std::function<void()> on_push_;
};

class CheckpointFeeds {
 public:
  // A feed of every record of experiment `experiment_id` published from now
  // on, for as long as the caller holds it; `on_push` as CheckpointFeed's.
  [[nodiscard]] std::shared_ptr<CheckpointFeed> follow(std::uint64_t experiment_id, std::function<void()> on_push = {});
  // Hands `record` to each live feed of its experiment.
  void publish(const CheckpointRecord& record);

 private:
  std::mutex mutex_;
  // By experiment; a dropped one is pruned at the next follow, or publish for its experiment.
  std::multimap<std::uint64_t, std::weak_ptr<CheckpointFeed>> feeds_;
};

}  // namespace volador::storage
