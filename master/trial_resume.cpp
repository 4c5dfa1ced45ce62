#include "master/trial_resume.hpp"

#include <algorithm>
#include <limits>

namespace volador::master {
namespace {

// Active checkpoints of the trial, newest (most batches) first.
Result<std::vector<storage::CheckpointRecord>> newest_first(const storage::Journal& journal, std::uint64_t trial_id) {
  auto all = journal.checkpoints_of_trial(trial_id);
  if (!all) return fail(all.error());
  std::vector<storage::CheckpointRecord> active;
  for (auto& c : *all)
    if (c.state == storage::CheckpointState::active) active.push_back(std::move(c));
  std::reverse(active.begin(), active.end());
  return active;
}

// The batch count of the trial's newest checkpoint at or before `batches`
// that the workload plan asked for (deleted ones count: the plan took them),
// -1 when none: where the plan's periodic checkpoint count last restarted.
Result<std::int64_t> last_scheduled_checkpoint(const storage::Journal& journal, std::uint64_t trial_id,
                                               std::uint64_t batches) {
  auto all = journal.checkpoints_of_trial(trial_id);
  if (!all) return fail(all.error());
  std::int64_t last = -1;
  for (const auto& c : *all)
    if (c.scheduled && c.batches <= batches) last = std::max(last, static_cast<std::int64_t>(c.batches));
  return last;
}

// Fills the point's progress at `batches` and the validations up to it (the
// last one is the newest at or before it).
Status rewind_point_to(ResumePoint& point, const storage::Journal& journal, std::uint64_t trial_id,
                       std::uint64_t batches) {
  auto& progress = point.progress;
  progress.batches_trained = batches;
  auto scheduled = last_scheduled_checkpoint(journal, trial_id, batches);
  if (!scheduled) return fail(scheduled.error());
  progress.last_checkpoint_at = *scheduled;
  auto metrics = journal.metrics(trial_id);
  if (!metrics) return fail(metrics.error());
  for (const auto& m : *metrics) {
    if (m.kind != storage::MetricKind::validation || m.batches > batches) continue;
    point.validations.push_back(m.metrics);
    if (static_cast<std::int64_t>(m.batches) >= progress.last_validation_at) {
      progress.last_validation_at = static_cast<std::int64_t>(m.batches);
      point.last_validation = m.metrics;
    }
  }
  return {};
}

// Checkpoint `uuid` of another trial that a trial starts from while it has
// none of its own (`experiment continue`); nullopt without one (`uuid`
// empty), or (`verify`) when it no longer verifies, said in `notes`.
Result<std::optional<storage::CheckpointRecord>> warm_start(const storage::Journal& journal,
                                                            const checkpoints::CheckpointStore* verify,
                                                            std::string_view uuid, std::vector<std::string>& notes) {
  if (uuid.empty()) return std::optional<storage::CheckpointRecord>();
  auto checkpoint = journal.checkpoint(uuid);
  if (!checkpoint && checkpoint.error().code != ErrorCode::not_found) return fail(checkpoint.error());
  Status usable = fail(Error::not_found("it was deleted"));
  if (checkpoint && checkpoint->state == storage::CheckpointState::active)
    usable = verify != nullptr ? verify->verify(checkpoint->uuid) : Status();
  if (usable) return std::optional(std::move(*checkpoint));
  notes.push_back("checkpoint " + std::string(uuid) + " this trial continues from is unusable (" +
                  usable.error().message + "); starting from the beginning");
  return std::optional<storage::CheckpointRecord>();
}

// Starts `point` from the trial's warm start when it found no checkpoint of its own.
Status take_warm_start(ResumePoint& point, const storage::Journal& journal, const checkpoints::CheckpointStore* verify,
                       std::string_view uuid, std::uint64_t batches) {
  if (point.checkpoint) return {};
  auto warm = warm_start(journal, verify, uuid, point.notes);
  if (!warm) return fail(warm.error());
  if (*warm && (*warm)->batches <= batches) point.checkpoint = std::move(**warm);
  return {};
}

}  // namespace

Result<ResumePoint> prepare_resume(storage::Journal& journal, checkpoints::CheckpointStore& store,
                                   std::uint64_t trial_id, std::string_view warm_start_uuid) {
  auto candidates = newest_first(journal, trial_id);
  if (!candidates) return fail(candidates.error());
  ResumePoint point;
  storage::JournalBatch batch;
  for (auto& candidate : *candidates) {
    auto verified = store.verify(candidate.uuid);
    if (verified) {
      point.checkpoint = std::move(candidate);
      break;
    }
    point.notes.push_back("checkpoint " + candidate.uuid + " after " + std::to_string(candidate.batches) +
                          " batches is unusable (" + verified.error().message + "); trying an older one");
    candidate.state = storage::CheckpointState::deleted;
    batch.put_checkpoint(candidate);
  }
  if (auto s = take_warm_start(point, journal, &store, warm_start_uuid, std::numeric_limits<std::uint64_t>::max()); !s) return fail(s.error());
  const std::uint64_t batches = point.checkpoint ? point.checkpoint->batches : 0;
  if (auto s = rewind_point_to(point, journal, trial_id, batches); !s) return fail(s.error());
  if (point.checkpoint && point.checkpoint->trial_id != trial_id)
    point.progress.last_checkpoint_at = static_cast<std::int64_t>(batches);  // the periodic count goes on from there
  // Reports up to the resume point stand (an initial validation at 0 too);
  // later ones will be reported again by the new run.
  batch.delete_metrics_after(trial_id, batches);
  if (auto s = journal.commit(batch); !s) return fail(s.error());
  return point;
}

Result<ResumePoint> standing_point(const storage::Journal& journal, std::uint64_t trial_id, std::uint64_t batches,
                                   std::string_view warm_start_uuid) {
  auto candidates = newest_first(journal, trial_id);
  if (!candidates) return fail(candidates.error());
  ResumePoint point;
  auto at_or_before = std::ranges::find_if(*candidates, [&](const auto& c) { return c.batches <= batches; });
  if (at_or_before != candidates->end()) point.checkpoint = std::move(*at_or_before);
  if (auto s = take_warm_start(point, journal, nullptr, warm_start_uuid, batches); !s) return fail(s.error());
  if (auto s = rewind_point_to(point, journal, trial_id, batches); !s) return fail(s.error());
  if (point.checkpoint && point.checkpoint->trial_id != trial_id)
    point.progress.last_checkpoint_at = static_cast<std::int64_t>(point.checkpoint->batches);
  return point;
}

Status warm_start_from(const storage::Journal& journal, std::uint64_t parent_id, storage::TrialRecord& trial) {
  auto checkpoints = newest_first(journal, parent_id);
  if (!checkpoints) return fail(checkpoints.error());
  if (checkpoints->empty())
    return fail(Error::not_found("trial " + std::to_string(parent_id) + " has no checkpoint to start from"));
  trial.warm_start = checkpoints->front().uuid;
  trial.warm_start_trial = parent_id;
  return {};
}

Result<std::vector<std::pair<std::uint64_t, double>>> unseen_validations(const storage::Journal& journal,
                                                                         std::uint64_t trial_id, const std::string& metric,
                                                                         std::uint64_t seen,
                                                                         std::optional<std::uint64_t> held_target) {
  auto metrics = journal.metrics(trial_id);
  auto checkpoints = newest_first(journal, trial_id);
  if (!metrics) return fail(metrics.error());
  if (!checkpoints) return fail(checkpoints.error());
  const bool held = held_target && std::ranges::none_of(*checkpoints, [&](const auto& c) { return c.batches == *held_target; });
  std::vector<std::pair<std::uint64_t, double>> out;
  for (const auto& m : *metrics) {
    auto it = m.metrics.find(metric);
    const bool unseen = m.kind == MetricKind::validation && m.batches > seen && it != m.metrics.end();
    if (unseen && !(held && m.batches == *held_target)) out.emplace_back(m.batches, it->second);
  }
  return out;
}

}  // namespace volador::master
