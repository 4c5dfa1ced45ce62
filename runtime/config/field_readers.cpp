#include "runtime/config/field_readers.hpp"

#include <algorithm>

#include "runtime/config/did_you_mean.hpp"
#include "runtime/core/duration.hpp"
#include "runtime/config/scalars.hpp"

namespace volador::config {
namespace {

std::string expected(std::string_view what, const YAML::Node& got) {
  return "expected " + std::string(what) + ", got " + describe(got);
}

std::string unsigned_kind(std::uint64_t min, std::uint64_t max, std::uint64_t type_max) {
  if (max != type_max) {
    return "an integer between " + std::to_string(min) + " and " + std::to_string(max);
  }
  if (min == 0) return "a non-negative integer";
  if (min == 1) return "a positive integer";
  return "an integer of at least " + std::to_string(min);
}

std::optional<Integer> plain_integer(const YAML::Node& node) {
  return is_plain_scalar(node) ? parse_integer(node.Scalar()) : std::nullopt;
}

}  // namespace

std::optional<std::string> read_string(Diagnostics& diag, const YAML::Node& node,
                                       const std::string& field) {
  if (node.IsScalar()) return node.Scalar();
  diag.report(node, field, expected("a string", node));
  return std::nullopt;
}

std::optional<std::string> read_nonempty_string(Diagnostics& diag, const YAML::Node& node,
                                                const std::string& field) {
  auto text = read_string(diag, node, field);
  if (text && text->empty()) {
    diag.report(node, field, "expected a non-empty string, got \"\"");
    return std::nullopt;
  }
  return text;
}

std::optional<std::string> read_absolute_path(Diagnostics& diag, const YAML::Node& node,
                                              const std::string& field) {
  auto path = read_nonempty_string(diag, node, field);
  if (!path || path->starts_with('/')) return path;
  diag.report(node, field, expected("an absolute path", node));
  return std::nullopt;
}

std::optional<bool> read_bool(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  if (is_plain_scalar(node)) {
    if (auto value = parse_bool(node.Scalar())) return value;
  }
  diag.report(node, field, expected("true or false", node));
  return std::nullopt;
}

std::optional<std::int64_t> read_exact_int(Diagnostics& diag, const YAML::Node& node,
                                           const std::string& field) {
  if (auto integer = plain_integer(node); integer && integer->magnitude <= kMaxExactInteger) return to_int64(*integer);
  const std::string bound = std::to_string(kMaxExactInteger);
  diag.report(node, field,
              expected("an integer between -" + bound + " and " + bound + " (2^53, beyond which doubles skip integers)",
                       node));
  return std::nullopt;
}

std::optional<std::chrono::milliseconds> read_duration(Diagnostics& diag, const YAML::Node& node,
                                                       const std::string& field) {
  if (node.IsScalar()) {
    auto duration = parse_duration(node.Scalar());
    if (duration) return *duration;
    diag.report(node, field, duration.error().message);
  } else {
    diag.report(node, field, "expected a duration such as 30s, 500ms or 2min, got " + describe(node));
  }
  return std::nullopt;
}

std::optional<double> read_number(Diagnostics& diag, const YAML::Node& node,
                                  const std::string& field) {
  if (is_plain_scalar(node)) {
    if (auto value = parse_number(node.Scalar())) return value;
  }
  diag.report(node, field, expected("a number", node));
  return std::nullopt;
}

std::optional<nlohmann::json> read_json(Diagnostics&, const YAML::Node& node, const std::string&) {
  return to_json(node);
}

bool expect_list(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  if (node.IsSequence()) return true;
  diag.report(node, field, expected("a list", node));
  return false;
}

std::optional<std::uint64_t> read_unsigned(Diagnostics& diag, const YAML::Node& node,
                                           const std::string& field, std::uint64_t min,
                                           std::uint64_t max, std::uint64_t type_max) {
  auto integer = plain_integer(node);
  const bool in_range = integer && (!integer->negative || integer->magnitude == 0) &&
                        integer->magnitude >= min && integer->magnitude <= max;
  if (in_range) return integer->magnitude;
  std::string message = expected(unsigned_kind(min, max, type_max), node);
  if (integer && !integer->negative && integer->magnitude > max && max == type_max) {
    message += " (the largest allowed is " + std::to_string(max) + ")";
  }
  diag.report(node, field, std::move(message));
  return std::nullopt;
}

std::optional<std::string> ReadChoice::operator()(Diagnostics& diag, const YAML::Node& node,
                                                  const std::string& field) const {
  auto text = read_string(diag, node, field);
  if (!text || std::ranges::find(choices, *text) != choices.end()) return text;
  std::string message = "expected one of";
  for (std::string_view choice : choices) message += " " + std::string(choice) + ",";
  message.back() = ';';
  message += " got " + describe(node);
  if (auto suggestion = did_you_mean(*text, choices)) {
    message += "; did you mean \"" + std::string(*suggestion) + "\"?";
  }
  diag.report(node, field, std::move(message));
  return std::nullopt;
}

}  // namespace volador::config
