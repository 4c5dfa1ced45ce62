#include "runtime/core/duration.hpp"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>

namespace volador {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kLongest = std::chrono::hours(24 * 365);

std::string_view trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

std::optional<milliseconds> unit_of(std::string_view unit) {
  if (unit == "ms") return milliseconds(1);
  if (unit == "s") return std::chrono::seconds(1);
  if (unit == "min") return std::chrono::minutes(1);
  if (unit == "h") return std::chrono::hours(1);
  return std::nullopt;
}

}  // namespace

Result<milliseconds> parse_duration(std::string_view text) {
  std::uint64_t count = 0;
  const auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  const auto unit = unit_of(trim(std::string_view(rest, text.data() + text.size() - rest)));
  if (rest == text.data() || (error != std::errc{} && error != std::errc::result_out_of_range) || !unit)
    return fail(Error::invalid_argument("'" + std::string(text) +
                                        "' is not a duration: a whole number and a unit (ms, s, min, h), e.g. 500ms"));
  if (error == std::errc::result_out_of_range || count > static_cast<std::uint64_t>(kLongest / *unit))
    return fail(Error::invalid_argument("'" + std::string(text) + "' is over a year"));
  if (count == 0) return fail(Error::invalid_argument("must be more than 0"));
  return *unit * static_cast<milliseconds::rep>(count);
}

}  // namespace volador
