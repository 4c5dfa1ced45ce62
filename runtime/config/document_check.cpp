#include "runtime/config/document_check.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace volador::config {
namespace {

std::string position(const YAML::Mark& mark) {
  return std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
}

class Walker {
 public:
  explicit Walker(Diagnostics& diag) : diag_(diag) {}

  // False once a limit is hit (reported).
  bool walk(const YAML::Node& node, const std::string& path, std::size_t depth) {
    if (++visited_ > kMaxNodes) {
      diag_.report_document("", "document too large: more than " + std::to_string(kMaxNodes) +
                                    " values once aliases are expanded");
      return false;
    }
    if (depth > kMaxDepth) {
      diag_.report(node, path, "nested more than " + std::to_string(kMaxDepth) + " levels deep");
      return false;
    }
    if (node.IsMap()) return walk_map(node, path, depth);
    if (node.IsSequence()) return walk_list(node, path, depth);
    return true;
  }

 private:
  bool walk_list(const YAML::Node& node, const std::string& path, std::size_t depth) {
    std::size_t index = 0;
    for (const auto& item : node) {
      if (!walk(item, index_path(path, index++), depth + 1)) return false;
    }
    return true;
  }

  bool walk_map(const YAML::Node& node, const std::string& path, std::size_t depth) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        report_once(entry.first, path, "keys must be strings, got a " +
                                           std::string(entry.first.IsMap() ? "map" : "list"));
        continue;
      }
      const std::string field = join_path(path, entry.first.Scalar());
      auto [first, fresh] = seen.emplace(entry.first.Scalar(), entry.first.Mark());
      if (!fresh) report_once(entry.first, field, "duplicate key (first at " + position(first->second) + ")");
      if (!walk(entry.second, field, depth + 1)) return false;
    }
    return true;
  }

  // A node reached twice through aliases is reported once.
  void report_once(const YAML::Node& at, const std::string& field, std::string message) {
    if (reported_.emplace(at.Mark().pos, message).second) diag_.report(at, field, std::move(message));
  }

  Diagnostics& diag_;
  std::size_t visited_ = 0;
  std::set<std::pair<int, std::string>> reported_;
};

}  // namespace

bool check_document(Diagnostics& diag, const YAML::Node& root) {
  return Walker(diag).walk(root, "", 0);
}

}  // namespace volador::config
