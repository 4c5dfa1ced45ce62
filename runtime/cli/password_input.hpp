#pragma once
// How the CLI reads a password: from the terminal without echo, or the
// first line of standard input (--password-stdin, for scripts).

#include <string>

#include "runtime/core/error.hpp"

namespace volador::cli {

// With `from_stdin`, the first line of stdin (without its line ending);
// else asks `prompt` on the controlling terminal with echo off. Errors: no
// terminal to ask on (use --password-stdin), or an empty password.
Result<std::string> read_password(bool from_stdin, const std::string& prompt);

}  // namespace volador::cli
