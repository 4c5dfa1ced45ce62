#pragma once
// Trial API modules Volador does not offer (determined.keras, DeepSpeed),
// found in the entrypoint module's source before anything is uploaded, so a
// Keras or DeepSpeed trial is refused at submission rather than when it runs.

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/command/entrypoint.hpp"

namespace volador::cli {

// One line per import of an unavailable trial API in `entrypoint`'s module
// under `project` ("FILE:LINE: imports X: what to do instead"); empty when
// there is none or the module file is not found (the trial then says so itself).
std::vector<std::string> unsupported_trial_imports(const std::filesystem::path& project,
                                                   const command::PythonTrialEntrypoint& entrypoint);

}  // namespace volador::cli
