#pragma once
// Which warm rank worker may take which launch (the agent's reuse policy,
// pure: the agent passes the time). A worker that finished its trial waits
// idle for its next one: at most one per slot, and only for a launch with
// the same WorkerReuseKey; any other launch on its slot, or idleness for the
// idle limit, ends it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/wire/messages.hpp"

namespace volador::actors {

// What a worker carries from one trial to the next, so what two launches
// must share for one worker to run both: the experiment (its model
// definition, environment variables and startup hook, which ran once, when
// the worker started), the slot (its device binding), the entrypoint (command
// or native trial), the master's address (its connection) and its sandbox.
struct WorkerReuseKey {
  std::uint64_t experiment_id = 0;
  std::uint32_t slot = 0;
  std::string entrypoint;
  std::vector<std::string> environment_variables;
  std::string master;
  std::string sandbox;  // what decides its sandbox (worker_sandbox.hpp's sandbox_key), fixed when it started
  auto operator<=>(const WorkerReuseKey&) const = default;
};

// The key of `spec`'s launch, with the master's address as its worker reaches it.
WorkerReuseKey reuse_key(const wire::LaunchSpec& spec, const std::string& master);

class IdleWorkers {
 public:
  using WorkerId = std::uint64_t;

  // Workers idle for `idle_limit_ms` are ended.
  explicit IdleWorkers(std::int64_t idle_limit_ms) : idle_limit_ms_(idle_limit_ms) {}

  // `worker` finished its trial at `now_ms` and waits for a launch with
  // `key`. Returns the worker idle on that slot until now, to be ended.
  std::optional<WorkerId> park(WorkerId worker, WorkerReuseKey key, std::int64_t now_ms);

  struct Claim {
    std::optional<WorkerId> reuse;  // the idle worker that takes the launch
    std::optional<WorkerId> end;    // the idle worker of the slot that cannot: end it
  };
  // A launch with `key`: the idle worker of its slot, removed, takes it if
  // its key is the same, else is to be ended.
  Claim claim(const WorkerReuseKey& key);

  // Removes `worker` (its process ended); false when it was not idle.
  bool forget(WorkerId worker);
  // The workers idle for the idle limit or longer at `now_ms`, removed: end them.
  std::vector<WorkerId> expire(std::int64_t now_ms);
  // Every idle worker, removed (the agent lost the master): end them.
  std::vector<WorkerId> take_all();
  [[nodiscard]] std::size_t size() const { return by_slot_.size(); }

 private:
  struct Idle {
    WorkerId worker;
    WorkerReuseKey key;
    std::int64_t since_ms;
  };
  std::int64_t idle_limit_ms_;
  std::map<std::uint32_t, Idle> by_slot_;
};

}  // namespace volador::actors
