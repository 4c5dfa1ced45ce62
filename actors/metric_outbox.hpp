#pragma once
// A command rank's metric reports on their way to its trial
// (schemas/control.capnp MetricReports). The thread that reads the command's
// output adds points; the rank actor seals them into numbered batches, sends
// them and hands back the trial's acknowledgements, which the trial gives once
// a batch is journaled. A batch is kept until acknowledged, so that after the
// link to the master dropped every unacknowledged one is sent again (the
// trial journals each sequence number once).
//
// When the trial asks for it (WorkloadRequest.reportsInAnswer), the points
// still held as the run ends go in its answer instead (take_final): the trial
// journals them with the run's end, and no batch waits for a write on its own.
//
// Back-pressure: at most `window` batches are unacknowledged; the reporting
// thread waits only while that many are out and a full batch more is held
// (the master is behind), never per point, never while the link is down (its
// thread rejoins the trial first) and never once the trial stopped the rank.
// Thread-safe: the reporting thread and the rank actor use it at once.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "runtime/wire/codec.hpp"

namespace volador::actors {

// A sealed batch: its number and the MetricReports encoded.
struct OutgoingBatch {
  std::uint64_t seq = 0;
  wire::Bytes bytes;
};

struct OutboxLimits {
  std::size_t batch_points = 1000;     // a batch is full at this many points
  std::size_t batch_bytes = 64 << 10;  // ... or at about this many bytes encoded
  // Batches sent and not yet acknowledged, at most (4 MiB, about 50,000
  // one-metric points): the trial acknowledges a batch once its synced write
  // is done, which takes up to a second on a busy disk, and a command printing
  // 50,000 points a second must not wait for that.
  std::size_t window = 64;
};

class MetricOutbox {
 public:
  // Batches of run `run_id`'s rank `rank`, numbered from 1.
  MetricOutbox(std::uint32_t run_id, std::uint32_t rank, OutboxLimits limits = {});

  // The reporting thread: queues `report` (its run and rank are the outbox's).
  // Waits while `window` batches are unacknowledged and a full batch more is
  // held, until an acknowledgement, the link's loss or close(). After close()
  // the report is dropped. True when the actor should look at the outbox:
  // its first point is held (start the flush timer) or a batch became full.
  bool add(wire::MetricReport report);

  // The actor: seals the points held into batches while the window has room
  // (the last, partial one only when `partial`) and returns the batches
  // sealed and not sent yet, in order, counting them as sent.
  std::vector<OutgoingBatch> take_ready(bool partial);
  // The actor, once the link to the trial is back: marks the outbox linked
  // again and returns every unacknowledged batch (sent before or not), in
  // order, as sent now.
  std::vector<OutgoingBatch> take_unacknowledged();
  // The reporting thread, as the run ends: seals every point held into one
  // last batch, numbered after every batch sealed before, which the answer to
  // the run carries (it is never sent on its own nor kept). nullopt when no
  // point is held or after close().
  std::optional<wire::MetricReports> take_final();
  // The trial journaled every batch numbered up to `seq`.
  void acknowledge(std::uint64_t seq);
  // Batch `seq` waits for no answer any more: the trial acknowledged it (or
  // a later one), or it stopped the rank (close()), after which a trial may
  // end without answering the batches it took.
  [[nodiscard]] bool settled(std::uint64_t seq) const;
  // Points wait to be sealed into a batch.
  [[nodiscard]] bool holds_points() const;
  // add() would wait now: `window` batches are unacknowledged and a full batch more is held.
  [[nodiscard]] bool full() const;

  // The actor: the link to the trial dropped. Nothing waits for the trial
  // until take_unacknowledged(); points are still kept.
  void link_lost();
  // The trial stopped this rank: points held and added later are dropped and
  // nothing waits any more.
  void close();

  enum class Drained { all, link_lost, closed };
  // The reporting thread: waits until every point added was acknowledged
  // (all), the link dropped (link_lost: rejoin, then wait again) or close().
  Drained wait_until_drained();

 private:
  struct Sealed {
    OutgoingBatch batch;
    bool sent = false;
  };
  [[nodiscard]] bool holds_full_batch() const;
  [[nodiscard]] bool window_full() const { return sealed_.size() >= limits_.window; }
  [[nodiscard]] bool must_wait() const { return !closed_ && linked_ && window_full() && holds_full_batch(); }
  [[nodiscard]] wire::MetricReports next_batch(std::size_t max_points, std::size_t max_bytes);
  void seal_batch();
  std::vector<OutgoingBatch> take_unsent();

  const std::uint32_t run_id_;
  const std::uint32_t rank_;
  const OutboxLimits limits_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<wire::MetricReport> held_;  // added, not sealed yet
  std::size_t held_bytes_ = 0;
  std::deque<Sealed> sealed_;  // unacknowledged, in order
  std::uint64_t next_seq_ = 1;
  bool linked_ = true;
  bool closed_ = false;
};

}  // namespace volador::actors
