#include "runtime/hparams/space.hpp"

#include <algorithm>

namespace volador::hparams {

namespace {

void visit_leaves(const Space& space, std::vector<std::string>& path, const LeafVisitor& visit) {
  for (const auto& [name, hp] : space) {
    path.push_back(name);
    const auto* nested = std::get_if<Space>(&hp.param);
    if (nested && !nested->empty()) {
      visit_leaves(*nested, path, visit);
    } else {
      visit(path, hp);
    }
    path.pop_back();
  }
}

}  // namespace

bool is_constant(const Space& space) {
  return std::ranges::all_of(space, [](const auto& entry) {
    const auto& param = entry.second.param;
    if (const auto* nested = std::get_if<Space>(&param)) return is_constant(*nested);
    return std::holds_alternative<ConstParam>(param);
  });
}

void for_each_leaf(const Space& space, const LeafVisitor& visit) {
  std::vector<std::string> path;
  visit_leaves(space, path, visit);
}

}  // namespace volador::hparams
