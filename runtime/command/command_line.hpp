#pragma once
// A command entrypoint split into argv the way a POSIX shell splits words,
// without running a shell: no expansions and no operators.

#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.hpp"

namespace volador::command {

// Splits `command` into words. Blanks (space, tab) separate words; '...'
// keeps everything literally; "..." keeps everything but \ before $ ` " \ or
// a newline; an unquoted \ keeps the next character (\ + newline joins
// lines); quotes join with adjacent text ("a"'b'c is one word; '' is an
// empty word). $, `, *, ? and ~ are not expanded; a hyperparameter
// placeholder `${hparams.NAME}` (hparam_passing.hpp) is kept as it stands,
// quoted or not, for the worker to fill in.
// Errors (invalid_argument, naming the 1-based column): an unterminated
// quote, a trailing unquoted \, no words at all, and an unquoted shell
// operator (| & ; < > ( ) $ ` or a newline between words), which would need a
// shell: quote it, or run `sh -c '...'` explicitly.
[[nodiscard]] Result<std::vector<std::string>> split_command_line(std::string_view command);

}  // namespace volador::command
