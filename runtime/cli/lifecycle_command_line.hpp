#pragma once
// Internal to the CLI's command line (command_line.cpp): the verbs of an
// experiment's lifecycle after its submission (experiment delete, fork,
// continue, download-model-def, set description / labels; checkpoint delete) and of
// the model registry (model create, register, list, describe, download),
// added to the parser with their arguments bound to `in`.

#include <CLI/CLI.hpp>

#include "runtime/cli/command_line.hpp"

namespace volador::cli {

// `experiment` and `checkpoint`: those verbs' parents, already added to `app`.
void add_lifecycle_verbs(CLI::App& app, CLI::App& experiment, CLI::App& checkpoint, Invocation& in);

}  // namespace volador::cli
