#pragma once
// Internal to volador_config: readers of single values. Each has the shape
//   (Diagnostics&, const YAML::Node& value, const std::string& field) -> std::optional<T>
// and reports its own error ("expected ..., got ...") when it returns nullopt.

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"

namespace volador::config {

std::optional<std::string> read_string(Diagnostics&, const YAML::Node&, const std::string& field);
std::optional<std::string> read_nonempty_string(Diagnostics&, const YAML::Node&,
                                                const std::string& field);
// A path starting with '/'.
std::optional<std::string> read_absolute_path(Diagnostics&, const YAML::Node&,
                                              const std::string& field);
std::optional<bool> read_bool(Diagnostics&, const YAML::Node&, const std::string& field);
// The largest magnitude read_exact_int accepts, 2^53: every integer up to it
// is exact in a double, which JSON readers (the web UI, scripts) and the
// model-based searchers (tpe, bayesian) turn numbers into.
inline constexpr std::uint64_t kMaxExactInteger = std::uint64_t{1} << 53;
// An integer in [-kMaxExactInteger, kMaxExactInteger]; the error names the range.
std::optional<std::int64_t> read_exact_int(Diagnostics&, const YAML::Node&, const std::string& field);
std::optional<double> read_number(Diagnostics&, const YAML::Node&, const std::string& field);
// A positive duration such as 30s, 500ms or 2min (runtime/core/duration.hpp).
std::optional<std::chrono::milliseconds> read_duration(Diagnostics&, const YAML::Node&, const std::string& field);
// Any value (free-form); never fails.
std::optional<nlohmann::json> read_json(Diagnostics&, const YAML::Node&, const std::string& field);
// True when `node` is a list; reports it otherwise.
bool expect_list(Diagnostics&, const YAML::Node&, const std::string& field);

// A list whose items are read by `read` (as "field[i]"); the good items.
template <class Read>
struct ReadList {
  Read read;
  auto operator()(Diagnostics& diag, const YAML::Node& node, const std::string& field) const {
    using Item = std::invoke_result_t<Read, Diagnostics&, const YAML::Node&, const std::string&>;
    std::optional<std::vector<typename Item::value_type>> items;
    if (!expect_list(diag, node, field)) return items;
    items.emplace();
    std::size_t index = 0;
    for (const auto& element : node) {
      if (auto item = read(diag, element, index_path(field, index++))) items->push_back(*item);
    }
    return items;
  }
};

// An integer in [min, max]; `type_max` is the largest value the target type
// holds (the range is spelled out in errors only when max is below it).
std::optional<std::uint64_t> read_unsigned(Diagnostics&, const YAML::Node&, const std::string& field,
                                           std::uint64_t min, std::uint64_t max,
                                           std::uint64_t type_max);

template <class T>
struct ReadUnsigned {
  T min = 0;
  T max = std::numeric_limits<T>::max();
  std::optional<T> operator()(Diagnostics& diag, const YAML::Node& node,
                              const std::string& field) const {
    auto value = read_unsigned(diag, node, field, min, max, std::numeric_limits<T>::max());
    if (!value) return std::nullopt;
    return static_cast<T>(*value);
  }
};
inline constexpr ReadUnsigned<std::uint32_t> read_positive_u32{1};
inline constexpr ReadUnsigned<std::uint64_t> read_positive_u64{1};
inline constexpr ReadUnsigned<std::uint32_t> read_count_u32{0};

// One of a fixed set of words, with a did-you-mean when it is not.
struct ReadChoice {
  std::span<const std::string_view> choices;
  std::optional<std::string> operator()(Diagnostics&, const YAML::Node&,
                                        const std::string& field) const;
};

}  // namespace volador::config
