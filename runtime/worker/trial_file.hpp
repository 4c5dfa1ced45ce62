#pragma once
// The trial file: what an agent tells a rank worker it starts, beside the
// environment. The agent writes it into the worker's folder (the variable
// VOLADOR_TRIAL_FILE names it); the worker reads it at start. Both sides are
// here, so the two cannot drift apart.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/wire/messages.hpp"

namespace volador::worker {

inline constexpr const char* kTrialFileName = "volador-trial.json";

// Writes the part of `spec` a worker reads (ids, rank and place, entrypoint,
// hyperparameters, seed, batch size, data, restore path, kill grace, and the
// first workload when the launch carries one) to `dir`/kTrialFileName;
// a file already there (a reused folder's) is rewritten in place. Error io when it cannot be written.
Status write_trial_file(const wire::LaunchSpec& spec, const std::filesystem::path& dir);

// What a worker reads from the trial file: the launch's fields, its
// hyperparameters and data section as parsed JSON values (the spec's
// hparams_json and data_json stay empty: the worker needs the values, and
// their text would be parsed twice).
struct TrialFile {
  wire::LaunchSpec spec;
  nlohmann::json hparams;
  nlohmann::json data;
};

// Reads what write_trial_file wrote; the spec's other fields stay at their
// defaults. Errors: not_found (unreadable), corruption (not a JSON object,
// or a field missing or of the wrong type), naming the file.
Result<TrialFile> read_trial_file(const std::filesystem::path& path);

}  // namespace volador::worker
