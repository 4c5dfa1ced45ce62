#pragma once
// A command entrypoint (`python3 train.py --epochs 3`, `./run.sh`) on one
// rank. The worker joins the trial like any rank; for each `run` workload it
// starts the command in the working folder with the trial's hyperparameters
// (as --name=value arguments after the user's own, as VOLADOR_HPARAMS and as
// the JSON file VOLADOR_HPARAMS_FILE), the config's data section (as
// VOLADOR_DATA and VOLADOR_DATA_FILE) and, with several ranks, the
// torch.distributed / TI-ONE variables; passes its output through to the
// worker's stdout/stderr (the agent logs them); reports each metric line
// (reporting API first, then the experiment's stdout pattern) to the trial
// from rank 0; gives the command its checkpoint folders
// (command_checkpoint.hpp), and on rank 0 captures the checkpoint folder when
// the command calls volador.reporting.checkpoint() and when it exits cleanly,
// into the staging folder its `run` workload names, and reports each capture
// to the trial; and answers when the command exits: an error naming the exit
// code or signal when it failed (or a capture that failed). A stop from the trial, or SIGTERM from the
// agent, ends every process the command started, however it detached (the
// worker is their subreaper): SIGTERM, then SIGKILL after the trial's
// resources.kill_grace_period. A command that exits while processes it
// left hold its output open is answered once the output is quiet (a
// bounded time, process/child_process.hpp), and those processes are ended.

#include <chrono>
#include <string>
#include <vector>

#include "runtime/worker/command_scratch.hpp"
#include "runtime/worker/trial_join.hpp"
#include "runtime/worker/worker_launch.hpp"

namespace volador::worker {

// How a command rank's trial ended for it: the trial was done with it, or
// stopped it while its command ran (kill, pause).
enum class CommandEnd { done, stopped };

// Once per worker process, before its first command: makes it the
// subreaper of its commands' trees and, on SIGTERM, ends every process they
// started (SIGKILL after `kill_grace`) and exits.
void prepare_command_worker(std::chrono::milliseconds kill_grace);

// Serves workloads with `argv` as the command until the trial is done with
// this rank or stops it (success) or the master is lost (error). With several
// ranks, rank 0 first picks MASTER_PORT and tells the others over the data
// plane. Nothing the command started outlives the call.
Result<CommandEnd> serve_command(const WorkerLaunch& launch, JoinedTrial& joined, const std::vector<std::string>& argv);

}  // namespace volador::worker
