#pragma once
// Trial API modules Volador does not offer (determined.keras, DeepSpeed),
// found in the entrypoint module's source in the uploaded project, so the
// master refuses a Keras or DeepSpeed trial at submission, whichever client
// sent it, rather than when it runs.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/command/entrypoint.hpp"
#include "runtime/core/error.hpp"

namespace volador::master {

// One line per import of an unavailable trial API in `entrypoint`'s module
// (a/b.py, else a/b/__init__.py) in the project `archive` ("FILE:LINE:
// imports X: what to do instead"); empty when there is none or the module
// file is not in the archive (the trial then says so itself). Errors of
// archives::read_archive_file.
Result<std::vector<std::string>> unsupported_trial_imports(std::string_view archive,
                                                           const command::PythonTrialEntrypoint& entrypoint);

}  // namespace volador::master
