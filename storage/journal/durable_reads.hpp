#pragma once
// Reads that answer from what the journal has written, without waiting for
// the batches queued before them (see GroupCommitter::wait_for_queued).
//
// A read normally waits for every batch queued before it, so that an actor
// reading right after its own queued write sees it. A client's query needs
// no such wait: what it can ask about, it learned from written records (the
// read model follows the writes, and acknowledgements come after them), and
// the writes land in queue order. Waiting there would put every query, and
// the authentication of every request, behind a trial's flood of queued
// metric batches.

namespace volador::storage {

// While one lives, the journal's reads on this thread do not wait for queued
// batches. Scopes nest; each belongs to the thread that made it.
class DurableReads {
 public:
  DurableReads();
  ~DurableReads();
  DurableReads(const DurableReads&) = delete;
  DurableReads& operator=(const DurableReads&) = delete;

  // Whether a DurableReads lives on this thread.
  [[nodiscard]] static bool active();

 private:
  bool was_active_;
};

}  // namespace volador::storage
