#include "runtime/command/distributed_environment.hpp"

#include <algorithm>

namespace volador::command {
namespace {

Status check_layout(const RankLayout& layout, std::size_t rank) {
  if (layout.ranks.empty()) return fail(Error::invalid_argument("the rank layout has no ranks"));
  if (rank >= layout.ranks.size()) {
    return fail(Error::invalid_argument("rank " + std::to_string(rank) + " is out of range for " +
                                        std::to_string(layout.ranks.size()) + " ranks"));
  }
  if (layout.master_port == 0) return fail(Error::invalid_argument("the master port is 0"));
  for (std::size_t r = 0; r < layout.ranks.size(); ++r) {
    if (layout.ranks[r].node.empty() || layout.ranks[r].host.empty()) {
      return fail(Error::invalid_argument("rank " + std::to_string(r) + " has no node or no host"));
    }
  }
  return {};
}

// Nodes in the order their first rank appears.
std::vector<std::string> nodes_in_rank_order(const std::vector<RankPlacement>& ranks) {
  std::vector<std::string> nodes;
  for (const auto& placement : ranks) {
    if (std::ranges::find(nodes, placement.node) == nodes.end()) nodes.push_back(placement.node);
  }
  return nodes;
}

std::size_t ranks_on_node_before(const std::vector<RankPlacement>& ranks, const std::string& node,
                                 std::size_t end) {
  return static_cast<std::size_t>(
      std::count_if(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(end),
                    [&](const RankPlacement& placement) { return placement.node == node; }));
}

}  // namespace

Result<EnvironmentVariables> distributed_environment(const RankLayout& layout, std::size_t rank) {
  if (auto status = check_layout(layout, rank); !status) return fail(status.error());
  const auto& ranks = layout.ranks;
  const std::string& node = ranks[rank].node;
  const auto nodes = nodes_in_rank_order(ranks);
  const auto node_index = std::ranges::find(nodes, node) - nodes.begin();
  const auto ranks_on_node = ranks_on_node_before(ranks, node, ranks.size());
  const std::string& chief = ranks.front().host;
  return EnvironmentVariables{
      {"MASTER_ADDR", chief},
      {"MASTER_PORT", std::to_string(layout.master_port)},
      {"RANK", std::to_string(rank)},
      {"WORLD_SIZE", std::to_string(ranks.size())},
      {"LOCAL_RANK", std::to_string(ranks_on_node_before(ranks, node, rank))},
      {"LOCAL_WORLD_SIZE", std::to_string(ranks_on_node)},
      {"NODE_NUM", std::to_string(nodes.size())},
      {"INDEX", std::to_string(node_index)},
      {"GPU_NUM_PER_NODE", std::to_string(ranks_on_node)},
      {"CHIEF_IP", chief},
  };
}

}  // namespace volador::command
