#include "storage/journal/journal_stats.hpp"

#include <variant>

#include "storage/journal/journal.hpp"

namespace volador::storage {

void JournalStats::record(const JournalBatch& batch, std::chrono::duration<double> latency) {
  constexpr auto relaxed = std::memory_order_relaxed;
  commits_.fetch_add(1, relaxed);
  commit_nanoseconds_.fetch_add(static_cast<std::uint64_t>(latency.count() * 1e9), relaxed);
  for (std::size_t i = 0; i < kLatencyBounds.size(); ++i)
    if (latency.count() <= kLatencyBounds[i]) commits_within_[i].fetch_add(1, relaxed);
  for (const auto& operation : batch.operations()) {
    if (const auto* report = std::get_if<MetricRecord>(&operation))
      (report->kind == MetricKind::training ? training_reports_ : validation_reports_).fetch_add(1, relaxed);
    else if (std::holds_alternative<CheckpointRecord>(operation))
      checkpoints_.fetch_add(1, relaxed);
  }
}

JournalStats::Snapshot JournalStats::snapshot() const {
  constexpr auto relaxed = std::memory_order_relaxed;
  Snapshot out{.commits = commits_.load(relaxed),
               .commit_seconds = static_cast<double>(commit_nanoseconds_.load(relaxed)) / 1e9,
               .commits_within = {},
               .training_reports = training_reports_.load(relaxed),
               .validation_reports = validation_reports_.load(relaxed),
               .checkpoints = checkpoints_.load(relaxed)};
  for (std::size_t i = 0; i < kLatencyBounds.size(); ++i) out.commits_within[i] = commits_within_[i].load(relaxed);
  return out;
}

}  // namespace volador::storage
