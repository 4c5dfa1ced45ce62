#pragma once
// What the rank actor tells the thread that runs the trial code: a queue any
// thread may push to and that thread waits on. The thread takes the events
// it waits for and drops the others (a wake-up nobody waits for any more).

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <type_traits>
#include <variant>

#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

// The trial answered the hello with the rank's group.
struct GroupReceived {
  wire::RankGroup group;
};
// The trial sent a workload.
struct WorkloadReceived {
  wire::WorkloadRequest request;
};
// The trial sent the launch's workload, which the thread runs already from
// the launch: its answer goes to that request. Not a workload to run.
struct LaunchWorkloadSent {};
// The trial is done with this rank.
struct StopReceived {};
// The connection to the master is gone (the pending workload, if any, with it).
struct MasterLost {
  std::string reason;
};
// A restarted master's trial took this rank back.
struct Rejoined {};
// The hello or a rejoin was refused or could not be answered.
struct ReportRefused {
  Error error;
};
// Someone called the session's waker.
struct Woken {};

using RankEvent =
    std::variant<GroupReceived, WorkloadReceived, LaunchWorkloadSent, StopReceived, MasterLost, Rejoined, ReportRefused,
                 Woken>;

class RankInbox {
 public:
  void push(RankEvent event) {
    {
      std::lock_guard lock(mutex_);
      events_.push_back(std::move(event));
    }
    ready_.notify_all();
  }

  // Blocks until an event of one of `Wanted` arrives; earlier events of other
  // kinds are dropped.
  template <class... Wanted>
  std::variant<Wanted...> wait_for() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ready_.wait(lock, [&] { return !events_.empty(); });
      auto event = std::move(events_.front());
      events_.pop_front();
      std::optional<std::variant<Wanted...>> wanted;
      std::visit(
          [&](auto& e) {
            if constexpr ((std::is_same_v<std::decay_t<decltype(e)>, Wanted> || ...)) wanted.emplace(std::move(e));
          },
          event);
      if (wanted) return std::move(*wanted);
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<RankEvent> events_;
};

}  // namespace volador::actors
