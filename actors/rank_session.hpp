#pragma once
// The rank's side of the control plane, for the thread that runs the trial
// code (a native worker's main, or Python through the native module): report
// in to the trial, then take workloads one at a time and answer each.
// A blocking front to the rank actor (actors/rank_actor.hpp), which talks to
// the trial and watches the master: a lost master ends any wait at once.
// A command rank also reports its metrics to the trial while its `run`
// workload is pending. Not thread-safe: use it from one thread (waker()
// excepted).

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include "actors/master_link.hpp"
#include "master/timings.hpp"
#include "runtime/core/error.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

class RankSession {
 public:
  // Reports in to the trial through `link` with `hello` (saying it runs
  // chains); returns once every rank of the trial has reported in. A link
  // that drops meanwhile is made again and the hello repeated, while the master answers. Errors:
  // unavailable (master unreachable or gone), invalid_argument (refused:
  // stale run or bad token), each with the master's reason. `link` must
  // outlive the session; a warm worker joins one trial after another through it.
  // With `started` (a 1-rank trial's first workload, from its launch) it
  // returns at once, with an empty group: next_workload() returns `started`
  // first, the hello's answer is awaited while it runs (a refusal ends the
  // next wait with its error), and the trial takes the answer once it sent
  // the same request.
  static Result<std::unique_ptr<RankSession>> join(MasterLink& link, const wire::RankHello& hello,
                                                   std::optional<wire::WorkloadRequest> started = std::nullopt);
  // join() through a link of its own, made first (MasterLink::connect):
  // `tls_dir` holds the identity presented to the master (tls/identity_files.hpp);
  // `timings`, from its agent, bound the waits for the master and the trial.
  static Result<std::unique_ptr<RankSession>> connect(const net::Endpoint& master, const std::filesystem::path& tls_dir,
                                                      const wire::RankHello& hello, const master::Timings& timings);
  ~RankSession();

  // The trial's ranks as the trial sent them: what the data plane is built from.
  [[nodiscard]] const wire::RankGroup& group() const;

  // Blocks until the trial sends the next workload. A workload with a chain
  // (WorkloadRequest.then) is returned without it, and the chain's workloads
  // follow one by one without waiting, while each succeeds; the trial gets
  // their results in one answer. nullopt when the trial is
  // done with this rank. When the link to the master drops (a master restart,
  // a stall, a loaded host) it reconnects and rejoins the trial, which sends
  // the workload again if its answer was lost; unavailable when the master
  // stayed away for the outage patience or the trial gave the run up. The
  // previous workload must have been answered with complete(); sent again
  // (the trial lacked a report batch before its answer), it is answered again.
  Result<std::optional<wire::WorkloadRequest>> next_workload();

  // Answers the workload last returned by next_workload() (the last of a
  // chain, or one that failed, answers the whole chain). A `run` whose
  // request has reports_in_answer carries the reports not sent yet
  // (MetricOutbox::take_final).
  void complete(const wire::WorkloadResult& result);

  // Queues `report` for the trial that sent the workload being run; it goes
  // in a batch with others within a few tens of ms (actors/metric_outbox.hpp).
  // Blocks only while the trial is behind (a window of batches unacknowledged),
  // never while the link is down. Only while a workload is pending.
  void report(const wire::MetricReport& report);

  // Blocks until the trial journaled every report queued so far; call it
  // before complete(). Returns false at once for a workload whose answer
  // carries the reports (reports_in_answer: a master that asks for it). When
  // the link drops meanwhile it rejoins the trial (as wait_for_stop() does)
  // and the unacknowledged reports go again. true: the trial told this rank
  // to stop meanwhile (the reports are dropped); unavailable when the master
  // went away.
  Result<bool> flush_reports();

  // While a long workload runs (a command): blocks until the waker() is called
  // (returns false) or the trial tells this rank to stop (true). When the link
  // to the master drops it rejoins the trial, which sends the workload again,
  // and returns false: the run goes on. unavailable when the master went away
  // or the trial gave the run up. A wake() before the call is not lost.
  Result<bool> wait_for_stop();

  // A function any thread may call, also after the session is gone, that
  // makes the pending or next wait_for_stop() return.
  [[nodiscard]] std::function<void()> waker() const;

  RankSession(const RankSession&) = delete;
  RankSession& operator=(const RankSession&) = delete;

 private:
  struct Impl;
  explicit RankSession(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace volador::actors
