#pragma once
// Every field path the config parser accepts, as data (for the test that
// holds each one to an effect or a refusal).

#include <string>
#include <vector>

namespace volador::config {

// The path of every key the parser accepts, leaves only, built from the same
// key lists the parser checks: "resources.slots_per_trial",
// "searcher.max_length.epochs", "hyperparameters.<name>.minval" (<name>: any
// hyperparameter), "bind_mounts[].host_path" ([]: any element of the list).
// Keys of the searchers and storage types are united (searcher.max_rungs
// stands for every searcher that knows it).
std::vector<std::string> accepted_field_paths();

}  // namespace volador::config
