#pragma once
// `volador preview-search CONFIG [--json]`: what the search in CONFIG would
// do (trials, training lengths, rungs, total training), simulated locally
// with search::preview_search(); no master involved. Prints to stdout and
// returns the exit status: 0, or 1 with the config's errors on stderr.

#include <string>

namespace volador::cli {

int preview_search(const std::string& config_path, bool json);

}  // namespace volador::cli
