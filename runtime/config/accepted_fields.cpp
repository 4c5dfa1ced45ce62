#include "runtime/config/accepted_fields.hpp"

#include <algorithm>
#include <string_view>

#include "runtime/config/checkpoint_storage.hpp"
#include "runtime/config/config_parser.hpp"
#include "runtime/config/container.hpp"
#include "runtime/config/hyperparameters.hpp"
#include "runtime/config/length.hpp"
#include "runtime/config/metrics_collector.hpp"
#include "runtime/config/resources.hpp"
#include "runtime/config/searcher.hpp"

namespace volador::config {
namespace {

using KeyList = std::vector<std::string_view>;

// A key whose value is a section: the keys the parser accepts below it.
struct NestedSection {
  std::string_view path;
  KeyList keys;
};

constexpr std::string_view kAnyName = "<name>";
constexpr std::string_view kAnyElement = "[]";

KeyList unite(const std::vector<Keys>& sets) {
  KeyList out;
  for (const Keys keys : sets)
    for (const std::string_view key : keys)
      if (std::ranges::find(out, key) == out.end()) out.push_back(key);
  return out;
}

// Which keys nest which sections, as read_experiment() reads them.
std::vector<NestedSection> nested_sections() {
  const KeyList units = unite({length_units()});
  return {
      // global_batch_size: the one hyperparameter the parser itself reads (read_global_batch_size).
      {"hyperparameters", {"global_batch_size", kAnyName}},
      {"hyperparameters.<name>", unite(hyperparameter_key_sets())},
      {"searcher", unite(searcher_key_sets())},
      {"searcher.max_length", units},
      {"searcher.early_stopping", unite({early_stopping_keys()})},
      {"searcher.length_per_round", units},
      {"searcher.replace_function", unite({replace_function_keys()})},
      {"searcher.explore_function", unite({explore_function_keys()})},
      {"metrics_collector", unite({metrics_collector_keys()})},
      {"min_validation_period", units},
      {"min_checkpoint_period", units},
      {"checkpoint_storage", unite(checkpoint_storage_key_sets())},
      {"resources", unite({resources_keys()})},
      {"bind_mounts", {kAnyElement}},
      {"bind_mounts[]", unite({bind_mount_keys()})},
      {"environment", unite({environment_keys()})},
      {"environment.registry_auth", unite({registry_auth_keys()})},
  };
}

std::string child_path(const std::string& parent, std::string_view key) {
  return key == kAnyElement ? parent + std::string(key) : join_path(parent, key);
}

void add_leaves(const std::vector<NestedSection>& sections, const std::string& path, std::vector<std::string>& out) {
  const auto section = std::ranges::find(sections, path, &NestedSection::path);
  if (section == sections.end()) {
    out.push_back(path);
    return;
  }
  for (const std::string_view key : section->keys) add_leaves(sections, child_path(path, key), out);
}

}  // namespace

std::vector<std::string> accepted_field_paths() {
  const auto sections = nested_sections();
  std::vector<std::string> out;
  for (const std::string_view key : top_level_keys()) add_leaves(sections, std::string(key), out);
  return out;
}

}  // namespace volador::config
