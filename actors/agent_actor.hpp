#pragma once
// The agent on each host: offers its slots to the master, launches one rank
// worker per allocated slot in a fresh working folder holding the unpacked
// model definition, ships the worker's output to the trial, and reports the
// end of the rank.
//
// Warm workers: a command or native trial's worker gets a channel to its
// agent (runtime/worker/agent_channel.hpp). When its trial is done with it,
// it says so after its last output line; the agent ships that trial the rest
// of its output and a clean end of the rank, and keeps the worker idle (one
// per slot, IdleWorkers). The next launch on that slot with the same
// WorkerReuseKey goes to it (a fresh folder, the new trial's variables)
// instead of a new process; any other launch there, idleness for the
// timings' warm_worker_idle or the loss of the master ends it. A worker that crashes reports
// its real exit; one told to stop (kill) is never reused. Python trials run
// one process each.
//
// One rank process per slot: a trial gives its slots back as it tells its
// ranks to stop, so a launch can arrive while its slot's rank still finishes.
// It waits (SlotWaits) until that rank parks (a warm worker, which then takes
// it when it may) or exits; past the waiting launch's kill grace plus a
// margin, the rank is killed.
//
// Its messages: AgentActor (actors/interfaces.hpp). To the trial (TrialActor):
// (log_atom, Bytes LogLines), answered once journaled, and (exited_atom,
// Bytes WorkerExit) after the rank's last lines. At most a few of a rank's
// log messages are unanswered (LogWindow): the rest of its output waits in
// its bounded buffer, which drops lines with a marker when the master's
// disk falls behind.
//
// When the master goes away, an agent that knows the master's address keeps
// its workers running, buffering their output, and reconnects, to a restarted
// master or to the same one (back from a stall or a partition); it registers
// again listing them, so the master can adopt them (or kill those of runs
// that moved on). Workers still
// unclaimed after the master outage patience are killed, and an agent that
// cannot reach the master for the reconnect patience quits (both in its
// options' timings). An agent without the address (in the master's own
// process) kills its workers and quits with the master.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_response_promise.hpp>

#include "actors/idle_workers.hpp"
#include "actors/interfaces.hpp"
#include "actors/log_window.hpp"
#include "actors/output_route.hpp"
#include "actors/slot_waits.hpp"

#include "master/timings.hpp"
#include "runtime/net/endpoint.hpp"
#include "runtime/process/child_process.hpp"
#include "runtime/sandbox/container_runtime.hpp"
#include "runtime/sandbox/rank_cgroups.hpp"
#include "runtime/sandbox/work_folders.hpp"
#include "runtime/trial_output/worker_output.hpp"
#include "runtime/wire/codec.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

struct AgentOptions {
  std::string agent_id;
  std::vector<wire::SlotSpec> slots;     // what it offers; a rank on a GPU slot sees that GPU alone
  std::filesystem::path work_dir;        // trial working folders go under it
  std::filesystem::path worker_program;  // the volador-worker binary
  // The interpreter of Python trials' workers (`python -m volador.worker_main`);
  // it needs python3-torch. Used only by builds with Python support.
  std::filesystem::path python_program = "/usr/bin/python3";
  // Where to reconnect when the master goes away, and where its workers
  // reach the master; nullopt: quit with it (workers use the launch's address).
  std::optional<net::Endpoint> master_endpoint;
  // An identity folder of this cluster (tls/identity_files.hpp): its CA
  // certificate checks the identity the master issues each rank launch, which
  // the worker presents instead (tls/rank_identity_folders.hpp).
  std::filesystem::path worker_tls_dir;
  // The address its workers' data-plane listeners advertise to peers; empty:
  // the address of the route to the master.
  std::string advertise;
  // Its own waits, and its workers' (handed to each in its working folder).
  master::Timings timings;
  // The resource pool it joins (empty: the cluster's default for its slots) and its labels.
  std::string pool;
  std::map<std::string, std::string> labels;
  // Its ranks' memory and process limits, and how long a failed rank's folder stays (actors/agent_limits.hpp).
  sandbox::LimitOptions limits;
  sandbox::WorkFolderOptions work_folders;
  // Whether its ranks run in sandboxes (actors/worker_sandbox.hpp); false only
  // when the operator says so (volador-node --sandbox off).
  bool sandbox = true;
  // The container runtime its image ranks run with (actors/image_ranks.hpp); an empty runtime: it runs no images.
  sandbox::ContainerSetup containers;
};

// Log messages of one rank unanswered at most: enough to keep shipping while
// the trial journals the one before, few enough that a slow master disk
// queues little.
constexpr std::size_t kLogWindow = 2;

struct AgentState {
  struct Worker {
    std::uint64_t id = 0;  // the agent's number for the process, in the messages about it
    TrialActor trial;  // null while the master is away: output and exit wait for a trial to adopt it
    // The trial's output, filled by the worker's reader thread within its output
    // budget, shipped to the trial in batches (one journal write per batch, not per line).
    std::shared_ptr<trial_output::WorkerOutput> output;
    std::shared_ptr<OutputRoute> route;             // where the process's lines go
    std::unique_ptr<process::ChildProcess> process;  // null once a warm worker finished the trial
    // It ended: reported once its last lines are shipped, or to the trial that adopts it after the master was away.
    std::optional<wire::Bytes> exit_report;
    bool exit_carries_output = false;  // its launch's trial takes its last lines in the exit report (LaunchSpec)
    std::uint32_t slot = 0;                  // the agent's slot it runs on
    std::optional<WorkerReuseKey> reuse;     // a warm worker: the launches it may take next
    bool stopping = false;                   // told to stop: never reused
    std::optional<sandbox::PreparedFolder> folder;  // its rank's working folder, as the agent prepared it
  };
  // A warm worker between trials.
  struct IdleProcess {
    std::shared_ptr<OutputRoute> route;
    std::unique_ptr<process::ChildProcess> process;
  };
  AgentOptions options;
  caf::actor master;               // null while reconnecting
  std::uint32_t outages = 0;       // master losses so far; names the current one
  std::uint64_t last_worker_id = 0;
  std::map<RankKey, Worker> workers;
  LogWindow log_window{kLogWindow};  // their log messages unanswered by their trials
  IdleWorkers idle{0};  // its limit is the options' timings.warm_worker_idle
  std::map<std::uint64_t, IdleProcess> idle_processes;  // by worker id, as listed in `idle`
  std::map<std::uint64_t, std::unique_ptr<process::ChildProcess>> ending;  // ended idle workers, until they exit
  // A launch whose slot's rank still finishes (SlotWaits): answered once it starts.
  struct WaitingLaunch {
    wire::LaunchSpec spec;
    caf::actor trial;
    caf::typed_response_promise<std::string> reply;
  };
  SlotWaits slot_waits;
  std::map<SlotWaits::Ticket, WaitingLaunch> waiting_launches;
  sandbox::RankCgroups cgroups;  // each worker process's cgroup, with its trial's limits
  sandbox::WorkFolders work_folders;  // failed ranks' folders, until their time is up; idle workers' clean ones
  // Set once the agent ended: its master finder (reconnect) stops looking.
  std::shared_ptr<std::atomic<bool>> ended = std::make_shared<std::atomic<bool>>(false);
  // What the master last heard of the work disk (registration, WorkDiskReport): whether it refused trials, and when.
  struct WorkDiskReported {
    bool refusing = false;
    std::int64_t at_ms = 0;
  } work_disk_reported;
  static inline const char* name = "agent";
};

// Registers with `master` (the master's gateway) right away.
AgentActor::behavior_type agent_actor(AgentActor::stateful_pointer<AgentState> self, AgentOptions options,
                                      caf::actor master);

}  // namespace volador::actors
