#pragma once
// Internal to volador_config: rules that tie several fields together, run
// after every section was read (positions come from Diagnostics::where()).

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/experiment_config.hpp"

namespace volador::config {

// - global_batch_size divides by resources.slots_per_trial;
// - records_per_epoch is present when any length is in epochs (unless an
//   unknown key was already reported as its misspelling);
// - a command entrypoint has none of the workload plan's fields, and only a
//   command entrypoint has metrics_collector;
// - workspace and project come together;
// - single needs constant hyperparameters, grid a count on every int,
//   double and log one;
// - pbt rounds train at least one batch, all of them at most 2^53 batches,
//   and not a command entrypoint.
void check_cross_field_rules(Diagnostics& diag, const ExperimentConfig& config);

}  // namespace volador::config
