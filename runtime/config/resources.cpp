#include "runtime/config/resources.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 8> kKeys{"slots_per_trial", "shm_size",          "resource_pool",
                                                "priority",        "weight",            "kill_grace_period",
                                                "memory_limit",    "max_processes"};
// A rank needs a few processes of its own (the worker, a shell, the command).
constexpr ReadUnsigned<std::uint32_t> read_max_processes{8};
constexpr ReadUnsigned<std::uint32_t> read_priority{1, 99};

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// 1024^n for a unit such as "", "b", "k", "kb", "kib" (lowercase), else 0.
double unit_multiplier(std::string unit) {
  if (unit.ends_with('b')) unit.pop_back();
  if (unit.size() == 2 && unit[1] == 'i') unit.pop_back();
  if (unit.empty()) return 1;
  const std::string_view prefixes = "kmgtp";
  const auto power = prefixes.find(unit);
  return unit.size() == 1 && power != std::string_view::npos ? std::pow(1024.0, power + 1) : 0;
}

std::optional<std::uint64_t> read_byte_size(Diagnostics& diag, const YAML::Node& node,
                                            const std::string& field) {
  if (node.IsScalar()) {
    auto bytes = parse_byte_size(node.Scalar());
    if (bytes && *bytes > 0) return bytes;
  }
  diag.report(node, field,
              "expected a positive size in bytes such as 4294967296, 128M or 1.5G, got " +
                  describe(node));
  return std::nullopt;
}

std::optional<double> read_weight(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto weight = read_number(diag, node, field);
  if (!weight || (*weight > 0 && std::isfinite(*weight))) return weight;
  diag.report(node, field, "expected a positive number (an experiment's share of its pool), got " + describe(node));
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  if (auto integer = parse_integer(text); integer && !integer->negative) return integer->magnitude;
  const auto number_end = text.find_first_not_of("0123456789._");
  const auto unit_begin = text.find_first_not_of(' ', number_end);
  if (number_end == std::string_view::npos || unit_begin == std::string_view::npos) {
    return std::nullopt;
  }
  auto number = parse_number(text.substr(0, number_end));
  const double multiplier = unit_multiplier(lowercase(text.substr(unit_begin)));
  if (!number || multiplier == 0) return std::nullopt;
  const double bytes = std::floor(*number * multiplier);
  if (!(bytes < 0x1p64)) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

Keys resources_keys() { return kKeys; }

Resources read_resources(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  Resources resources;
  const Section section(diag, node, field, kKeys);
  section.read("slots_per_trial", resources.slots_per_trial, read_positive_u32);
  section.read("shm_size", resources.shm_size, read_byte_size);
  section.read("resource_pool", resources.resource_pool, read_nonempty_string);
  section.read("priority", resources.priority, read_priority);
  section.read("weight", resources.weight, read_weight);
  section.read("kill_grace_period", resources.kill_grace_period, read_duration);
  section.read("memory_limit", resources.memory_limit, read_byte_size);
  section.read("max_processes", resources.max_processes, read_max_processes);
  return resources;
}

}  // namespace volador::config
