#pragma once
// The command line's tests: a parse of `volador ARGS...`, its invocation, or
// its one-line usage error.

#include <string>
#include <variant>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/cli/command_line.hpp"

namespace volador::cli::testing {

inline std::variant<Invocation, ParseExit> parse(std::vector<const char*> args) {
  args.insert(args.begin(), "volador");
  return parse_command_line(static_cast<int>(args.size()), args.data());
}

inline Invocation parsed(std::vector<const char*> args) {
  auto out = parse(args);
  if (auto* exit = std::get_if<ParseExit>(&out)) FAIL("refused: " << exit->err);
  return std::get<Invocation>(out);
}

// The one-line usage error (the parse must be refused with status 1).
inline std::string refused(std::vector<const char*> args) {
  auto out = parse(args);
  REQUIRE(std::holds_alternative<ParseExit>(out));
  const auto& exit = std::get<ParseExit>(out);
  CHECK(exit.status == 1);
  CHECK(exit.out.empty());
  REQUIRE(exit.err.ends_with("\n"));
  CHECK(exit.err.find('\n') == exit.err.size() - 1);  // one line
  return exit.err;
}

}  // namespace volador::cli::testing
