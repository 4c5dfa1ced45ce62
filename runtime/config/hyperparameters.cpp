#include "runtime/config/hyperparameters.hpp"

#include <array>
#include <tuple>
#include <utility>

#include "runtime/config/field_readers.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

using hparams::Hyperparameter;

constexpr std::array<std::string_view, 5> kTypes{"const", "int", "double", "log", "categorical"};
constexpr std::array<std::string_view, 2> kConstKeys{"type", "val"};
constexpr std::array<std::string_view, 4> kRangeKeys{"type", "minval", "maxval", "count"};
constexpr std::array<std::string_view, 5> kLogKeys{"type", "base", "minval", "maxval", "count"};
constexpr std::array<std::string_view, 2> kCategoricalKeys{"type", "vals"};

Keys keys_of(std::string_view type) {
  if (type == "const") return kConstKeys;
  if (type == "log") return kLogKeys;
  if (type == "categorical") return kCategoricalKeys;
  return kRangeKeys;
}

std::optional<double> read_log_base(Diagnostics& diag, const YAML::Node& node,
                                    const std::string& field) {
  auto base = read_number(diag, node, field);
  if (!base || (*base > 0 && *base != 1)) return base;
  diag.report(node, field, "expected a positive number other than 1, got " + describe(node));
  return std::nullopt;
}

std::optional<std::vector<hparams::Value>> read_values(Diagnostics& diag, const YAML::Node& node,
                                                       const std::string& field) {
  if (node.IsSequence() && node.size() > 0) {
    std::vector<hparams::Value> values;
    for (const auto& item : node) values.push_back(to_json(item));
    return values;
  }
  const std::string got = node.IsSequence() ? "an empty list" : describe(node);
  diag.report(node, field, "expected a non-empty list of values, got " + got);
  return std::nullopt;
}

// minval and maxval, both present and ordered.
template <class T, class Read>
std::optional<std::pair<T, T>> read_bounds(const Section& section, const Read& read) {
  std::optional<T> min, max;
  section.read_required("minval", min, read);
  section.read_required("maxval", max, read);
  if (!min || !max) return std::nullopt;
  if (*max < *min) {
    Diagnostics& diag = section.diagnostics();
    diag.report(diag.where(section.field("maxval")), section.field("maxval"),
                "maxval must not be less than minval");
    return std::nullopt;
  }
  return std::pair{*min, *max};
}

// IntParam, DoubleParam or LogParam without the base.
template <class Param, class Read>
Param read_range(const Section& section, const Read& read) {
  Param param;
  if (auto bounds = read_bounds<decltype(param.minval)>(section, read)) {
    std::tie(param.minval, param.maxval) = *bounds;
  }
  section.read("count", param.count, read_positive_u32);
  return param;
}

Hyperparameter read_typed(const Section& section, std::string_view type) {
  if (type == "const") {
    hparams::ConstParam param;
    section.read_required("val", param.val, read_json);
    return {param};
  }
  if (type == "int") return {read_range<hparams::IntParam>(section, read_exact_int)};
  if (type == "double") return {read_range<hparams::DoubleParam>(section, read_number)};
  if (type == "log") {
    auto param = read_range<hparams::LogParam>(section, read_number);
    section.read_required("base", param.base, read_log_base);
    return {param};
  }
  hparams::CategoricalParam param;
  section.read_required("vals", param.vals, read_values);
  return {param};
}

hparams::Space read_space(Diagnostics& diag, const YAML::Node& node, const std::string& field);

std::optional<Hyperparameter> read_entry(Diagnostics& diag, const YAML::Node& node,
                                         const std::string& field) {
  if (!node.IsMap()) return Hyperparameter{hparams::ConstParam{to_json(node)}};
  auto type_node = Section::peek(node, "type");
  if (!type_node) return Hyperparameter{read_space(diag, node, field)};
  auto type = ReadChoice{kTypes}(diag, *type_node, join_path(field, "type"));
  if (!type) return std::nullopt;
  return read_typed(Section(diag, node, field, keys_of(*type)), *type);
}

hparams::Space read_space(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  hparams::Space space;
  for (const auto& entry : node) {
    // Non-scalar and duplicate keys were reported by check_document().
    if (!entry.first.IsScalar() || space.contains(entry.first.Scalar())) continue;
    const std::string entry_field = join_path(field, entry.first.Scalar());
    diag.remember(entry_field, entry.second.Mark());
    if (auto param = read_entry(diag, entry.second, entry_field)) {
      space.emplace(entry.first.Scalar(), std::move(*param));
    }
  }
  return space;
}

}  // namespace

std::vector<Keys> hyperparameter_key_sets() { return {kConstKeys, kRangeKeys, kLogKeys, kCategoricalKeys}; }

hparams::Space read_hyperparameters(Diagnostics& diag, const YAML::Node& node,
                                    const std::string& field) {
  if (node.IsMap()) return read_space(diag, node, field);
  diag.report(node, field, "expected a map of hyperparameters, got " + describe(node));
  return {};
}

std::optional<std::uint64_t> read_global_batch_size(Diagnostics& diag, const hparams::Space& space,
                                                    const YAML::Node& node, const std::string& field) {
  const std::string gbs_field = join_path(field, "global_batch_size");
  auto it = space.find("global_batch_size");
  if (it == space.end()) {
    if (node.IsMap()) diag.report(node, gbs_field, "missing required hyperparameter");
    return std::nullopt;
  }
  const auto* constant = std::get_if<hparams::ConstParam>(&it->second.param);
  const bool positive = constant && constant->val.is_number_unsigned() && constant->val.get<std::uint64_t>() > 0;
  if (positive && constant->val.get<std::uint64_t>() <= kMaxExactInteger) return constant->val.get<std::uint64_t>();
  const std::string got =
      constant ? constant->val.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
               : "a hyperparameter to search";
  const std::string expected = positive ? "an integer between 1 and " + std::to_string(kMaxExactInteger) + " (2^53)"
                                        : "a constant positive integer";
  diag.report(diag.where(gbs_field), gbs_field, "expected " + expected + ", got " + got);
  return std::nullopt;
}

}  // namespace volador::config
