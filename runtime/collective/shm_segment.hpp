#pragma once
// The POSIX shared-memory segment of one group, mapped in this process.
// Rank 0 creates it, the others open it; the last rank to attach removes
// its name, so nothing is left in /dev/shm once the group has formed, and
// a rank that gives up while ranks are missing removes it too. The memory
// itself goes away with the last mapping, even when ranks are killed.
// Move-only; unmapped on destruction.

#include <cstddef>
#include <string>
#include <string_view>

#include "runtime/collective/deadline.hpp"
#include "runtime/collective/shm_layout.hpp"

namespace volador::collective {

class ShmSegment {
 public:
  // Joins the segment of `group_id` (unique per trial run: [A-Za-z0-9._-],
  // at most 200 characters) and waits until all ranks have attached. Errors:
  // invalid_argument (bad id), already_exists (rank 0 found a segment of that
  // name), unavailable (ranks missing at the deadline, or one gave up),
  // corruption (a segment with another layout), io.
  [[nodiscard]] static Result<ShmSegment> join(std::string_view group_id, int rank, const ShmGeometry& geometry,
                                               Deadline& deadline);

  ShmSegment(ShmSegment&& other) noexcept;
  ShmSegment& operator=(ShmSegment&& other) noexcept;
  ShmSegment(const ShmSegment&) = delete;
  ShmSegment& operator=(const ShmSegment&) = delete;
  ~ShmSegment();

  [[nodiscard]] ShmHeader& header() const { return *reinterpret_cast<ShmHeader*>(base_); }
  [[nodiscard]] ShmRankLine& line(int rank) const;
  [[nodiscard]] std::byte* slot(int rank, int buffer) const { return base_ + geometry_.slot_offset(rank, buffer); }
  [[nodiscard]] const ShmGeometry& geometry() const { return geometry_; }

 private:
  ShmSegment(std::byte* base, ShmGeometry geometry) : base_(base), geometry_(geometry) {}

  // Ranks that have not attached yet, "2, 3".
  [[nodiscard]] std::string missing_ranks() const;

  std::byte* base_ = nullptr;
  ShmGeometry geometry_;
};

// "/volador-<group_id>", the name under /dev/shm (or VOLADOR_SHM_DIR, see shm_segment.cpp).
[[nodiscard]] std::string shm_name(std::string_view group_id);
// Removes a group's segment name if it is still there: for an agent cleaning
// up after a trial whose ranks all died while forming their group.
[[nodiscard]] Status remove_shm_segment(std::string_view group_id);

}  // namespace volador::collective
