// GroupCommitter: what is queued while a write is under way goes out in the
// next write, in order; completions run after their write; a batch failing
// alone fails alone; nothing queued is lost at destruction.
#include <catch2/catch.hpp>

#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "storage/journal/group_commit.hpp"
#include "storage/journal/journal.hpp"

using namespace volador;
using namespace volador::storage;

namespace {

// A batch of `operations` trial records, the first with id `id`.
JournalBatch batch_of(std::uint64_t id, std::size_t operations = 1) {
  JournalBatch batch;
  for (std::size_t i = 0; i < operations; ++i) {
    TrialRecord record;
    record.id = id + i;
    batch.put_trial(record);
  }
  return batch;
}

std::shared_ptr<const JournalBatch> shared_batch_of(std::uint64_t id, std::size_t operations = 1) {
  return std::make_shared<const JournalBatch>(batch_of(id, operations));
}

std::uint64_t first_id(const JournalBatch& batch) {
  return std::get<TrialRecord>(batch.operations().front()).id;
}

// A store stand-in that keeps every write's batches (by first id); a write
// holding a batch whose first id is `failing` fails whole. The first write
// can be held until released, so that batches queue up behind it.
struct RecordingWrites {
  std::mutex mutex;
  std::vector<std::vector<std::uint64_t>> writes;
  std::uint64_t failing = 0;
  std::promise<void> first_started;
  std::shared_future<void> release_first;
  bool first = true;

  Status operator()(std::span<const JournalBatch* const> batches) {
    bool hold = false;
    {
      std::lock_guard lock(mutex);
      for (const auto* batch : batches)
        if (first_id(*batch) == failing) return fail(Error::invalid_argument("batch " + std::to_string(failing)));
      std::vector<std::uint64_t> ids;
      for (const auto* batch : batches) ids.push_back(first_id(*batch));
      writes.push_back(std::move(ids));
      hold = std::exchange(first, false) && release_first.valid();
    }
    if (hold) {
      first_started.set_value();
      release_first.wait();
    }
    return {};
  }
  std::vector<std::vector<std::uint64_t>> written() {
    std::lock_guard lock(mutex);
    return writes;
  }
};

GroupCommitter::Write writing_to(RecordingWrites& writes) {
  return [&writes](std::span<const JournalBatch* const> batches) { return writes(batches); };
}

}  // namespace

TEST_CASE("Batches queued while a write is under way go out together in the next write in order") {
  RecordingWrites writes;
  std::promise<void> release;
  writes.release_first = release.get_future().share();
  std::vector<std::uint64_t> completed;
  std::mutex completed_mutex;
  auto note = [&](std::uint64_t id) {
    return [&, id](const Status& status) {
      CHECK(status);
      std::lock_guard lock(completed_mutex);
      completed.push_back(id);
    };
  };
  {
    GroupCommitter committer(writing_to(writes));
    committer.submit(shared_batch_of(1), note(1));
    writes.first_started.get_future().wait();  // the writer holds batch 1's write
    for (std::uint64_t id : {2, 3, 4}) committer.submit(shared_batch_of(id), note(id));
    release.set_value();
    CHECK(committer.commit(batch_of(5)));
    CHECK(committer.counts().batches == 5);
  }
  const auto written = writes.written();
  REQUIRE(written.size() >= 2);
  CHECK(written[0] == std::vector<std::uint64_t>{1});
  CHECK(written[1].front() == 2);
  std::vector<std::uint64_t> all;
  for (const auto& write : written) all.insert(all.end(), write.begin(), write.end());
  CHECK(all == std::vector<std::uint64_t>{1, 2, 3, 4, 5});
  CHECK(completed == std::vector<std::uint64_t>{1, 2, 3, 4});
}

TEST_CASE("A batch runs its completion only after the write that carried it") {
  RecordingWrites writes;
  GroupCommitter committer(writing_to(writes));
  std::promise<bool> seen;
  committer.submit(shared_batch_of(7), [&](const Status& status) {
    const auto written = writes.written();
    seen.set_value(status && !written.empty() && written.back().back() == 7);
  });
  CHECK(seen.get_future().get());
}

TEST_CASE("A batch whose write fails by itself fails alone and the others of its group are written") {
  RecordingWrites writes;
  writes.failing = 2;
  std::promise<void> release;
  writes.release_first = release.get_future().share();
  std::vector<std::pair<std::uint64_t, bool>> outcomes;
  std::mutex outcomes_mutex;
  {
    GroupCommitter committer(writing_to(writes));
    auto note = [&](std::uint64_t id) {
      return [&, id](const Status& status) {
        std::lock_guard lock(outcomes_mutex);
        outcomes.emplace_back(id, static_cast<bool>(status));
      };
    };
    committer.submit(shared_batch_of(10), note(10));
    writes.first_started.get_future().wait();
    for (std::uint64_t id : {1, 2, 3}) committer.submit(shared_batch_of(id), note(id));
    release.set_value();
  }  // the destructor writes what is queued
  CHECK(outcomes == std::vector<std::pair<std::uint64_t, bool>>{{10, true}, {1, true}, {2, false}, {3, true}});
  const auto written = writes.written();
  CHECK(written == std::vector<std::vector<std::uint64_t>>{{10}, {1}, {3}});
}

TEST_CASE("A write carries at most the group's operation bound unless one batch alone is larger") {
  RecordingWrites writes;
  std::promise<void> release;
  writes.release_first = release.get_future().share();
  {
    GroupCommitter committer(writing_to(writes), 4);
    committer.submit(shared_batch_of(1), [](const Status&) {});
    writes.first_started.get_future().wait();
    committer.submit(shared_batch_of(10, 3), [](const Status&) {});
    committer.submit(shared_batch_of(20, 2), [](const Status&) {});
    committer.submit(shared_batch_of(30, 6), [](const Status&) {});
    committer.submit(shared_batch_of(40, 1), [](const Status&) {});
    release.set_value();
  }
  CHECK(writes.written() == std::vector<std::vector<std::uint64_t>>{{1}, {10}, {20}, {30}, {40}});
}

TEST_CASE("Commits from many threads are all written and share writes") {
  RecordingWrites writes;
  constexpr int kThreads = 4, kEach = 200;
  std::size_t failures = 0;
  {
    GroupCommitter committer(writing_to(writes));
    std::vector<std::future<std::size_t>> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.push_back(std::async(std::launch::async, [&committer, t] {
        std::size_t failed = 0;
        for (int i = 0; i < kEach; ++i) failed += committer.commit(batch_of(1000 * (t + 1) + i)) ? 0 : 1;
        return failed;
      }));
    for (auto& thread : threads) failures += thread.get();
    CHECK(committer.counts().batches == kThreads * kEach);
    CHECK(committer.counts().writes == writes.written().size());
  }
  CHECK(failures == 0);
  std::size_t batches = 0;
  for (const auto& write : writes.written()) batches += write.size();
  CHECK(batches == kThreads * kEach);
}
