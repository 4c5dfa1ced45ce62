#pragma once
// What an experiment's `entrypoint` names: a Python trial class, a native
// trial built into the worker, or a command ("plain script").

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::command {

// `model_def:MyTrial`, `pkg.model_def:MyTrial`, `model_def.py:MyTrial`: a
// PyTorchTrial subclass.
struct PythonTrialEntrypoint {
  std::string module;      // dotted Python module name, e.g. "model_def"
  std::string class_name;  // e.g. "MyTrial"
};

// `native:<name>`: a trial from the worker's TrialRegistry.
struct NativeTrialEntrypoint {
  std::string name;
};

// Anything else, e.g. `python3 train.py --epochs 3` or `./run.sh`.
struct CommandEntrypoint {
  std::vector<std::string> argv;  // never empty
};

using Entrypoint = std::variant<PythonTrialEntrypoint, NativeTrialEntrypoint, CommandEntrypoint>;

// Classifies `text` (surrounding blanks ignored), checking in this order:
// `native:` and a name; one word of the form <module>:<Class> where both
// sides are Python identifiers (the module may be dotted and may end in
// `.py`, which is dropped); else a command,
// split by split_command_line(). Errors (invalid_argument): `native:` with
// no name, and the command errors of split_command_line(); the caller names
// the field.
[[nodiscard]] Result<Entrypoint> classify_entrypoint(std::string_view text);

}  // namespace volador::command
