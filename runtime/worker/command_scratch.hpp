#pragma once
// What a command rank's worker makes in the trial's working folder for every
// `run`, anew each time: the hyperparameters' and the data section's JSON
// files (rewritten) and the checkpoint folders (`current` emptied). An agent
// that reuses a warm worker's folder for its next trial leaves these names to
// the worker (sandbox::WorkFolderOptions::worker_scratch) when they hold
// nothing a trial could pass on.

#include <set>
#include <string>

namespace volador::worker {

// The files (in the working folder) the hyperparameters and the config's data section are written to.
inline constexpr const char* kHparamsFileName = "volador-hparams.json";
inline constexpr const char* kDataFileName = "volador-data.json";
// The folder of the command's checkpoint folders (command_checkpoint.hpp).
inline constexpr const char* kCheckpointFoldersName = ".volador-checkpoints";

// The top-level names above.
inline std::set<std::string> command_scratch_names() { return {kHparamsFileName, kDataFileName, kCheckpointFoldersName}; }

}  // namespace volador::worker
