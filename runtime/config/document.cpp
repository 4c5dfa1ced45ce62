#include "runtime/config/document.hpp"

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/depthguard.h>

#include "runtime/config/scalars.hpp"

namespace volador::config {
namespace {

// nlohmann's serializer is the UTF-8 validator at hand.
bool is_utf8(std::string_view text) {
  try {
    (void)nlohmann::json(std::string(text)).dump();
    return true;
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
}

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

std::vector<YAML::Node> parse_yaml(Diagnostics& diag, std::string_view text) {
  if (text.size() > kMaxBytes) {
    diag.report_document("", "file too large: " + std::to_string(text.size()) +
                                 " bytes, the limit is " + std::to_string(kMaxBytes));
    return {};
  }
  if (!is_utf8(text)) {
    diag.report_document("", "file is not valid UTF-8");
    return {};
  }
  try {
    return YAML::LoadAll(std::string(text));
  } catch (const YAML::DeepRecursion& e) {  // its own message says "bad file"
    diag.report(e.mark, "", "nested more than " + std::to_string(e.depth()) + " levels deep");
    return {};
  } catch (const YAML::ParserException& e) {
    diag.report(e.mark, "", e.msg);
    return {};
  }
}

}  // namespace

std::optional<YAML::Node> load_document(Diagnostics& diag, std::string_view text) {
  const std::vector<YAML::Node> documents = parse_yaml(diag, text);
  if (diag.has_errors()) return std::nullopt;
  if (documents.empty() || documents[0].IsNull()) {
    diag.report_document("", "empty document; expected a map of fields (name, entrypoint, "
                             "hyperparameters, searcher, ...)");
    return std::nullopt;
  }
  if (documents.size() > 1) {
    diag.report(documents[1], "", "expected one YAML document, found " +
                                      std::to_string(documents.size()));
    return std::nullopt;
  }
  if (!documents[0].IsMap()) {
    diag.report(documents[0], "", "expected a map of fields at the top level, got " +
                                      describe(documents[0]));
    return std::nullopt;
  }
  return documents[0];
}

bool check_document(Diagnostics& diag, const YAML::Node& root) {
  return Walker(diag).walk(root, "", 0);
}

}  // namespace volador::config
