#include "actors/metric_outbox.hpp"

#include <algorithm>
#include <limits>

namespace volador::actors {
namespace {

// About what `report` adds to an encoded batch: the struct, and each metric's
// entry with its name (Cap'n Proto pads text to words).
std::size_t approximate_bytes(const wire::MetricReport& report) {
  std::size_t bytes = 56;
  for (const auto& [name, value] : report.metrics) bytes += 24 + name.size();
  return bytes;
}

}  // namespace

MetricOutbox::MetricOutbox(std::uint32_t run_id, std::uint32_t rank, OutboxLimits limits)
    : run_id_(run_id), rank_(rank), limits_(limits) {}

bool MetricOutbox::add(wire::MetricReport report) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !must_wait(); });
  if (closed_) return false;
  report.run_id = run_id_;
  report.rank = rank_;
  const bool was_full = holds_full_batch();
  held_bytes_ += approximate_bytes(report);
  held_.push_back(std::move(report));
  return held_.size() == 1 || (!was_full && holds_full_batch());
}

std::vector<OutgoingBatch> MetricOutbox::take_ready(bool partial) {
  std::vector<OutgoingBatch> ready;
  {
    std::lock_guard lock(mutex_);
    if (closed_) return {};
    while (!window_full() && (holds_full_batch() || (partial && !held_.empty()))) seal_batch();
    ready = take_unsent();
  }
  changed_.notify_all();  // held points went into batches
  return ready;
}

std::vector<OutgoingBatch> MetricOutbox::take_unacknowledged() {
  std::vector<OutgoingBatch> all;
  {
    std::lock_guard lock(mutex_);
    linked_ = true;
    if (closed_) return {};
    for (auto& sealed : sealed_) sealed.sent = false;
    while (!window_full() && holds_full_batch()) seal_batch();
    all = take_unsent();
  }
  changed_.notify_all();
  return all;
}

void MetricOutbox::acknowledge(std::uint64_t seq) {
  {
    std::lock_guard lock(mutex_);
    while (!sealed_.empty() && sealed_.front().batch.seq <= seq) sealed_.pop_front();
  }
  changed_.notify_all();
}

bool MetricOutbox::settled(std::uint64_t seq) const {
  std::lock_guard lock(mutex_);
  return sealed_.empty() || sealed_.front().batch.seq > seq;
}

bool MetricOutbox::holds_points() const {
  std::lock_guard lock(mutex_);
  return !closed_ && !held_.empty();
}

bool MetricOutbox::full() const {
  std::lock_guard lock(mutex_);
  return must_wait();
}

void MetricOutbox::link_lost() {
  {
    std::lock_guard lock(mutex_);
    linked_ = false;
  }
  changed_.notify_all();
}

void MetricOutbox::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
    held_.clear();
    held_bytes_ = 0;
    sealed_.clear();
  }
  changed_.notify_all();
}

MetricOutbox::Drained MetricOutbox::wait_until_drained() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return closed_ || !linked_ || (held_.empty() && sealed_.empty()); });
  if (closed_) return Drained::closed;
  return linked_ ? Drained::all : Drained::link_lost;
}

bool MetricOutbox::holds_full_batch() const {
  return held_.size() >= limits_.batch_points || held_bytes_ >= limits_.batch_bytes;
}

std::optional<wire::MetricReports> MetricOutbox::take_final() {
  std::optional<wire::MetricReports> last;
  {
    std::lock_guard lock(mutex_);
    if (closed_ || held_.empty()) return std::nullopt;
    last = next_batch(held_.size(), std::numeric_limits<std::size_t>::max());
  }
  changed_.notify_all();  // held points left
  return last;
}

// Moves the oldest held points, up to `max_points` or until `max_bytes` are
// reached, into the next numbered batch.
wire::MetricReports MetricOutbox::next_batch(std::size_t max_points, std::size_t max_bytes) {
  wire::MetricReports batch{.run_id = run_id_, .rank = rank_, .seq = next_seq_++, .reports = {}};
  std::size_t bytes = 0;
  while (!held_.empty() && batch.reports.size() < max_points && bytes < max_bytes) {
    bytes += approximate_bytes(held_.front());
    batch.reports.push_back(std::move(held_.front()));
    held_.pop_front();
  }
  held_bytes_ -= std::min(held_bytes_, bytes);
  return batch;
}

// Moves the oldest held points, a batch's worth at most, into a new batch to send.
void MetricOutbox::seal_batch() {
  auto batch = next_batch(limits_.batch_points, limits_.batch_bytes);
  sealed_.push_back({{batch.seq, wire::encode(batch)}, false});
}

std::vector<OutgoingBatch> MetricOutbox::take_unsent() {
  std::vector<OutgoingBatch> unsent;
  for (auto& sealed : sealed_)
    if (!std::exchange(sealed.sent, true)) unsent.push_back(sealed.batch);
  return unsent;
}

}  // namespace volador::actors
