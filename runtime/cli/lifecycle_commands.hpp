#pragma once
// The `volador experiment` verbs of an experiment's lifecycle after its
// submission: delete, fork, download-model-def, set description / labels,
// and `checkpoint delete`. Each prints what was done and returns the exit
// status (0, or 1 with the reason on stderr), as the other verbs (commands.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/cli/master_client.hpp"

namespace volador::cli {

// Deletes ended experiment `id` (its records, logs and checkpoints; those of
// the model registry stay). Without `yes`, asks on stderr and reads the
// answer from stdin's first line (anything but y or yes keeps it).
int delete_experiment(MasterClient& client, std::uint64_t id, bool yes);

// A new experiment from experiment `id`'s stored project and config, with
// the YAML file `changes_path` (empty: none) merged over the config; the
// errors of the changes are printed as FILE:LINE:COL: field: message.
int fork_experiment(MasterClient& client, std::uint64_t id, const std::string& changes_path, bool json);

// A new experiment that trains more the trials of ended experiment `id`:
// each trial with a checkpoint resumes from its newest one, with its
// hyperparameters and seed, and trains to the (changed) searcher.max_length
// (master/experiment_continuation.hpp); the changes as fork's.
int continue_experiment(MasterClient& client, std::uint64_t id, const std::string& changes_path, bool json);

// Unpacks the project experiment `id` was submitted with into `dir`, which
// must be missing or empty.
int download_model_definition(MasterClient& client, std::uint64_t id, const std::string& dir);

// Replaces the experiment's description, or its labels (an empty list
// removes them all); `experiment list --label` sees the change at once.
int set_description(MasterClient& client, std::uint64_t id, const std::string& description);
int set_labels(MasterClient& client, std::uint64_t id, const std::vector<std::string>& labels);

// Deletes a checkpoint's files and marks it deleted (refused for a
// registered one and for a running trial's resume point).
int delete_checkpoint(MasterClient& client, const std::string& uuid);

}  // namespace volador::cli
