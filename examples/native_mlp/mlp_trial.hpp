#pragma once
// Example native trial: a one-hidden-layer MLP (tanh, softmax cross-entropy,
// SGD with momentum) learning a synthetic classification task whose data are
// generated from `data.seed`. Registered as `native:mlp_classifier`.

#include "runtime/trial_api/trial_registry.hpp"

namespace volador::examples {

// Adds the example trials to `registry`.
void register_example_trials(trial_api::TrialRegistry& registry);

}  // namespace volador::examples
