#pragma once
// The agent on each host: offers its slots to the master, launches one rank
// worker process per allocated slot in a fresh working folder holding the
// unpacked model definition, ships the worker's output to the trial, and
// reports the worker's exit.
//
// Messages:
//   (launch_atom, Bytes LaunchSpec, actor trial) -> bool   start a rank worker
//   (kill_atom, uint64 trial)                              kill that trial's workers
//   (flush_atom)                                           (to itself) ship buffered output
// To the trial: (log_atom, Bytes LogLines), (exited_atom, Bytes WorkerExit).
// When the master goes away the agent kills its workers and quits.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <vector>
#include <string>
#include <tuple>

#include <caf/actor.hpp>
#include <caf/stateful_actor.hpp>

#include "runtime/process/child_process.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::actors {

struct AgentOptions {
  std::string agent_id;
  std::uint32_t slots = 1;
  std::filesystem::path work_dir;        // trial working folders go under it
  std::filesystem::path worker_program;  // the volador-worker binary
  // The interpreter of Python trials' workers (`python -m volador.worker_main`);
  // it needs python3-torch. Used only by builds with Python support.
  std::filesystem::path python_program = "/usr/bin/python3";
};

// Output lines of one worker, filled by its reader thread and shipped to the
// trial in batches by the agent (one journal write per batch, not per line).
struct LineBuffer {
  std::mutex mutex;
  std::vector<wire::LogEntry> lines;
  // Everything buffered so far, leaving the buffer empty.
  std::vector<wire::LogEntry> take();
};

struct AgentState {
  struct Worker {
    caf::actor trial;
    std::shared_ptr<LineBuffer> output;
    std::unique_ptr<process::ChildProcess> process;
  };
  AgentOptions options;
  caf::actor master;
  // keyed by (trial id, run id, rank)
  std::map<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>, Worker> workers;
  static inline const char* name = "agent";
};

// Registers with `master` (the master's gateway) right away.
caf::behavior agent_actor(caf::stateful_actor<AgentState>* self, AgentOptions options, caf::actor master);

}  // namespace volador::actors
