#include "runtime/scheduling/fair_share.hpp"

#include <algorithm>
#include <map>

namespace volador::scheduling {
namespace {

// Splits `capacity` between `members` (indexes into demands) by weight, none
// above its demand; returns what is left.
double water_fill(std::span<const ShareDemand> demands, std::vector<std::size_t> members, double capacity,
                  std::vector<double>& shares) {
  // Those whose demand per weight is smallest are capped first.
  std::ranges::sort(members, [&](std::size_t a, std::size_t b) {
    return demands[a].demand / demands[a].weight < demands[b].demand / demands[b].weight;
  });
  double weight_left = 0;
  for (auto i : members) weight_left += demands[i].weight;
  for (auto i : members) {
    const double fair = capacity * demands[i].weight / weight_left;
    shares[i] = std::min(fair, demands[i].demand);
    capacity -= shares[i];
    weight_left -= demands[i].weight;
  }
  return capacity;
}

}  // namespace

std::vector<double> ideal_shares(std::span<const ShareDemand> demands, double capacity) {
  std::vector<double> shares(demands.size(), 0.0);
  std::map<int, std::vector<std::size_t>> by_priority;
  for (std::size_t i = 0; i < demands.size(); ++i) by_priority[demands[i].priority].push_back(i);
  for (auto& [priority, members] : by_priority) capacity = water_fill(demands, std::move(members), std::max(capacity, 0.0), shares);
  return shares;
}

bool fair_to_take(double requester_slots, double requester_weight, double gang, double victim_slots,
                  double victim_weight, double taken) {
  return served_after(requester_slots, gang, requester_weight) <= served_after(victim_slots, -taken, victim_weight);
}

}  // namespace volador::scheduling
