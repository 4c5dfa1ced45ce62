#pragma once
// Internal to volador_config: what a YAML scalar means. Only plain (unquoted,
// untagged) scalars are numbers or booleans; quoted ones are always strings.
//   integers: [-+]?digits with `_` separators after the first digit
//             (YAML 1.1: `50_000`), 0x hex, 0o octal;
//   numbers:  integers, decimals and exponents (`1e-4`, `.5`, `2.`);
//             no inf/nan;
//   booleans: true/false, yes/no, on/off, each lower, Capitalised or UPPER
//             (yaml-cpp's set without its one-letter y/n, so that a value
//             such as `n` stays a string).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

namespace volador::config {

struct Integer {
  bool negative = false;
  std::uint64_t magnitude = 0;
};

std::optional<Integer> parse_integer(std::string_view text);
// The integer as int64, when it fits.
std::optional<std::int64_t> to_int64(const Integer& integer);
std::optional<double> parse_number(std::string_view text);
std::optional<bool> parse_bool(std::string_view text);

// A scalar node written without quotes or tag.
bool is_plain_scalar(const YAML::Node& node);

// Free-form YAML as JSON: maps -> objects (scalar keys, first occurrence
// wins), lists -> arrays, null -> null, plain scalars -> integer, number,
// boolean or string by the rules above, other scalars -> string.
nlohmann::json to_json(const YAML::Node& node);

// How a value reads in an error message: `"ten"`, `-3`, `1.5`, `true`,
// `the quoted string "64"`, `a map`, `a list`, `null`.
std::string describe(const YAML::Node& node);

}  // namespace volador::config
