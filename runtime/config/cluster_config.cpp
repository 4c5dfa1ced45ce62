#include "runtime/config/cluster_config.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "runtime/config/diagnostics.hpp"
#include "runtime/config/did_you_mean.hpp"
#include "runtime/config/document.hpp"
#include "runtime/config/field_readers.hpp"
#include "runtime/config/scalars.hpp"
#include "runtime/config/section.hpp"

namespace volador::config {
namespace {

constexpr std::array<std::string_view, 3> kTopLevelKeys{"resource_pools", "default_cpu_pool", "default_gpu_pool"};
constexpr std::array<std::string_view, 3> kPoolKeys{"name", "description", "scheduler"};
constexpr std::array<std::string_view, 3> kSchedulerKeys{"type", "preemption", "min_run_time"};
constexpr std::array<std::string_view, 1> kSchedulerTypes{"priority"};
constexpr std::size_t kMaxPoolName = 64;

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-';
}

std::optional<std::string> read_pool_name(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  auto name = read_nonempty_string(diag, node, field);
  if (!name || (name->size() <= kMaxPoolName && std::ranges::all_of(*name, is_name_char))) return name;
  diag.report(node, field, "expected a pool name of 1 to 64 of a-z A-Z 0-9 _ . -, got " + describe(node));
  return std::nullopt;
}

PoolScheduler read_scheduler(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  PoolScheduler scheduler;
  const Section section(diag, node, field, kSchedulerKeys);
  std::string type;  // the one choice: priority
  section.read("type", type, ReadChoice{kSchedulerTypes});
  section.read("preemption", scheduler.preemption, read_bool);
  section.read("min_run_time", scheduler.min_run_time, read_duration);
  return scheduler;
}

std::optional<PoolConfig> read_pool(Diagnostics& diag, const YAML::Node& node, const std::string& field) {
  PoolConfig pool;
  const Section section(diag, node, field, kPoolKeys);
  section.read_required("name", pool.name, read_pool_name);
  section.read("description", pool.description, read_string);
  section.read("scheduler", pool.scheduler, read_scheduler);
  return pool;
}

// Reports a second pool of the same name, at its name.
void check_unique_names(Diagnostics& diag, const std::vector<PoolConfig>& pools) {
  std::set<std::string> seen;
  for (std::size_t i = 0; i < pools.size(); ++i) {
    if (pools[i].name.empty() || seen.insert(pools[i].name).second) continue;
    const auto field = join_path(index_path("resource_pools", i), "name");
    diag.report(diag.where(field), field, "a second pool named \"" + pools[i].name + "\"; pool names are unique");
  }
}

// `key` names a declared pool (reported otherwise, with a did-you-mean), or
// is absent and becomes the first pool.
void settle_default(Diagnostics& diag, const ClusterConfig& cluster, std::string_view key, std::string& pool) {
  if (pool.empty()) {
    if (!cluster.pools.empty()) pool = cluster.pools.front().name;
    return;
  }
  if (cluster.pool(pool) != nullptr) return;
  std::vector<std::string_view> names;
  for (const auto& declared : cluster.pools) names.push_back(declared.name);
  std::string message = "no pool named \"" + pool + "\" in resource_pools";
  if (auto suggestion = did_you_mean(pool, names)) message += "; did you mean \"" + std::string(*suggestion) + "\"?";
  diag.report(diag.where(std::string(key)), std::string(key), std::move(message));
}

ClusterConfig read_cluster(Diagnostics& diag, const YAML::Node& root) {
  ClusterConfig cluster;
  const Section top(diag, root, "", kTopLevelKeys);
  top.read_required("resource_pools", cluster.pools, ReadList{read_pool});
  top.read("default_cpu_pool", cluster.default_cpu_pool, read_pool_name);
  top.read("default_gpu_pool", cluster.default_gpu_pool, read_pool_name);
  if (auto pools = top.get("resource_pools"); pools && pools->IsSequence() && pools->size() == 0)
    diag.report(*pools, "resource_pools", "expected at least one pool, got an empty list");
  check_unique_names(diag, cluster.pools);
  settle_default(diag, cluster, "default_cpu_pool", cluster.default_cpu_pool);
  settle_default(diag, cluster, "default_gpu_pool", cluster.default_gpu_pool);
  return cluster;
}

}  // namespace

const PoolConfig* ClusterConfig::pool(std::string_view name) const {
  auto it = std::ranges::find(pools, name, &PoolConfig::name);
  return it == pools.end() ? nullptr : &*it;
}

ClusterConfig default_cluster_config() {
  const std::string name(kDefaultPoolName);
  return {.pools = {{.name = name, .description = "every agent", .scheduler = {}}},
          .default_cpu_pool = name,
          .default_gpu_pool = name};
}

std::string_view to_string(PoolSchedulerType) { return kSchedulerTypes.front(); }

ClusterParseOutcome parse_cluster_config(std::string_view yaml_text, std::string_view file_name) {
  Diagnostics diag{std::string(file_name)};
  try {
    auto root = load_document(diag, yaml_text);
    if (root && check_document(diag, *root)) {
      ClusterConfig cluster = read_cluster(diag, *root);
      if (!diag.has_errors()) return cluster;
    }
  } catch (const YAML::Exception& e) {
    diag.report(e.mark, "", e.msg);
  } catch (const std::exception& e) {
    diag.report_document("", std::string("internal error while reading the cluster config: ") + e.what());
  }
  return diag.take_sorted();
}

}  // namespace volador::config
