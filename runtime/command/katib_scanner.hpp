#pragma once
// Internal to volador_command: Katib's default metric pattern
//   ([\w|-]+)\s*=\s*([+-]?\d*(\.\d+)?([Ee][+-]?\d+)?)
// matched by hand in one pass. std::regex backtracks from every start
// position, which is quadratic in a long word and overflows the stack on a
// long enough line; this scanner finds exactly the matches std::regex
// (ECMAScript, "C" locale) finds, in time linear in the line.

#include <string_view>
#include <vector>

namespace volador::command {

// One match: group 1 and group 2, as views into the scanned line.
struct KatibMatch {
  std::string_view name;
  std::string_view value;  // may be empty or not a number ("-", "e5")
};

// Every non-overlapping match in `line`, left to right, as regex_iterator
// would find them.
[[nodiscard]] std::vector<KatibMatch> find_katib_matches(std::string_view line);

}  // namespace volador::command
