#include "runtime/config/scalars.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <limits>

namespace volador::config {
namespace {

// `text` without its `_` separators (which may not come first).
std::optional<std::string> digits_without_separators(std::string_view text) {
  if (text.empty() || text[0] == '_') return std::nullopt;
  std::string out;
  std::copy_if(text.begin(), text.end(), std::back_inserter(out), [](char c) { return c != '_'; });
  return out;
}

std::pair<bool, std::string_view> split_sign(std::string_view text) {
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) return {text[0] == '-', text.substr(1)};
  return {false, text};
}

std::pair<int, std::string_view> split_base(std::string_view text) {
  if (text.starts_with("0x")) return {16, text.substr(2)};
  if (text.starts_with("0o")) return {8, text.substr(2)};
  return {10, text};
}

std::string json_quoted(std::string_view text) {
  constexpr std::size_t kShown = 60;
  std::string shown(text.substr(0, kShown));
  if (text.size() > kShown) shown += "...";
  return nlohmann::json(shown).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json plain_scalar_to_json(std::string_view text) {
  if (auto integer = parse_integer(text)) {
    if (!integer->negative) return integer->magnitude;
    if (auto value = to_int64(*integer)) return *value;
  }
  if (auto number = parse_number(text)) return *number;
  if (auto boolean = parse_bool(text)) return *boolean;
  return std::string(text);
}

}  // namespace

std::optional<Integer> parse_integer(std::string_view text) {
  auto [negative, unsigned_text] = split_sign(text);
  auto [base, digits_text] = split_base(unsigned_text);
  auto digits = digits_without_separators(digits_text);
  if (!digits) return std::nullopt;
  Integer out{negative, 0};
  const char* end = digits->data() + digits->size();
  auto [ptr, ec] = std::from_chars(digits->data(), end, out.magnitude, base);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return out;
}

std::optional<std::int64_t> to_int64(const Integer& integer) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (!integer.negative) {
    if (integer.magnitude > kMax) return std::nullopt;
    return static_cast<std::int64_t>(integer.magnitude);
  }
  if (integer.magnitude > kMax + 1) return std::nullopt;
  return integer.magnitude == 0 ? 0 : -static_cast<std::int64_t>(integer.magnitude - 1) - 1;
}

std::optional<double> parse_number(std::string_view text) {
  auto [negative, unsigned_text] = split_sign(text);
  auto digits = digits_without_separators(unsigned_text);
  // from_chars would also take "inf" and "nan", which are not numbers here.
  if (!digits || !(std::isdigit(static_cast<unsigned char>((*digits)[0])) || (*digits)[0] == '.')) {
    return std::nullopt;
  }
  double value = 0;
  const char* end = digits->data() + digits->size();
  auto [ptr, ec] = std::from_chars(digits->data(), end, value, std::chars_format::general);
  if (ec != std::errc{} || ptr != end) return std::nullopt;
  return negative ? -value : value;
}

std::optional<bool> parse_bool(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, bool>, 18> kWords{{
      {"true", true},   {"True", true},   {"TRUE", true},   {"false", false},
      {"False", false}, {"FALSE", false}, {"yes", true},    {"Yes", true},
      {"YES", true},    {"no", false},    {"No", false},    {"NO", false},
      {"on", true},     {"On", true},     {"ON", true},     {"off", false},
      {"Off", false},   {"OFF", false},
  }};
  for (const auto& [word, value] : kWords) {
    if (word == text) return value;
  }
  return std::nullopt;
}

bool is_plain_scalar(const YAML::Node& node) { return node.IsScalar() && node.Tag() == "?"; }

nlohmann::json to_json(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      if (is_plain_scalar(node)) return plain_scalar_to_json(node.Scalar());
      return node.Scalar();
    case YAML::NodeType::Sequence: {
      auto array = nlohmann::json::array();
      for (const auto& item : node) array.push_back(to_json(item));
      return array;
    }
    case YAML::NodeType::Map: {
      auto object = nlohmann::json::object();
      for (const auto& entry : node) {
        if (entry.first.IsScalar()) object.emplace(entry.first.Scalar(), to_json(entry.second));
      }
      return object;
    }
    default:
      return nullptr;
  }
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      if (!is_plain_scalar(node)) return "the quoted string " + json_quoted(node.Scalar());
      if (parse_number(node.Scalar()) || parse_bool(node.Scalar())) return node.Scalar();
      return json_quoted(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "null";
  }
}

}  // namespace volador::config
