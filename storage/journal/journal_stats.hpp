#pragma once
// What a journal has written since it was opened, for the master's /metrics:
// commits and how long each took (the synced write), and the records they
// carried that stand for finished workloads (metric reports by kind,
// checkpoints). Lock-free counters, read while commits go on.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace volador::storage {

class JournalBatch;

class JournalStats {
 public:
  // Upper bounds (seconds) of the commit-latency histogram's buckets.
  static constexpr std::array<double, 9> kLatencyBounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5};

  // One successful commit of `batch` that took `latency`.
  void record(const JournalBatch& batch, std::chrono::duration<double> latency);

  struct Snapshot {
    std::uint64_t commits = 0;
    double commit_seconds = 0;
    std::array<std::uint64_t, kLatencyBounds.size()> commits_within{};  // cumulative, per bound
    std::uint64_t training_reports = 0;
    std::uint64_t validation_reports = 0;
    std::uint64_t checkpoints = 0;
  };
  [[nodiscard]] Snapshot snapshot() const;

 private:
  std::atomic<std::uint64_t> commits_{0};
  std::atomic<std::uint64_t> commit_nanoseconds_{0};
  std::array<std::atomic<std::uint64_t>, kLatencyBounds.size()> commits_within_{};
  std::atomic<std::uint64_t> training_reports_{0};
  std::atomic<std::uint64_t> validation_reports_{0};
  std::atomic<std::uint64_t> checkpoints_{0};
};

}  // namespace volador::storage
