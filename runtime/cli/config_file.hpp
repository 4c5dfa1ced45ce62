#pragma once
// Reading the experiment config a verb names (experiment create, preview-search).

#include <string>

#include "runtime/core/error.hpp"

namespace volador::cli {

// The text of config file `path`. not_found when it cannot be read;
// invalid_argument when it is a folder (naming the distributed.yaml expected in it).
Result<std::string> read_config_file(const std::string& path);

}  // namespace volador::cli
