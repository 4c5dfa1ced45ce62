#pragma once
// Internal to volador_config: a YAML map read as a section with a fixed set
// of keys. Construction reports a value that is not a map and every unknown
// key (with a did-you-mean, noted in Diagnostics so that the field it meant
// is not also reported missing); get() and read() then look keys up and
// remember where each present field was written.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "runtime/config/diagnostics.hpp"

namespace volador::config {

using Keys = std::span<const std::string_view>;

class Section {
 public:
  // Reads `node` as a map whose keys must be in `known`; others are reported
  // as unknown fields (with a did-you-mean when one is close).
  Section(Diagnostics& diag, const YAML::Node& node, std::string path, Keys known);

  // The value of a key in `node` if it is a map that has it; for keys that
  // decide which others are known (a searcher's name, a storage's type).
  static std::optional<YAML::Node> peek(const YAML::Node& node, std::string_view key);

  [[nodiscard]] bool is_map() const { return is_map_; }
  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string field(std::string_view key) const { return join_path(path_, key); }
  [[nodiscard]] const YAML::Node& node() const { return node_; }
  [[nodiscard]] Diagnostics& diagnostics() const { return diag_; }

  [[nodiscard]] std::optional<YAML::Node> get(std::string_view key) const;
  // As get(), reporting the key as missing when absent.
  [[nodiscard]] std::optional<YAML::Node> require(std::string_view key) const;

  // out = read(value) when the key is present and its value is good; `read`
  // returns std::optional (nullopt: bad, reported) or a value that is always
  // usable (a section whose own errors are reported).
  template <class Out, class Read>
  void read(std::string_view key, Out& out, const Read& read) const {
    if (auto value = get(key)) assign(out, read(diag_, *value, field(key)));
  }
  template <class Out, class Read>
  void read_required(std::string_view key, Out& out, const Read& read) const {
    if (auto value = require(key)) assign(out, read(diag_, *value, field(key)));
  }

 private:
  template <class Out, class Value>
  static void assign(Out& out, std::optional<Value>&& value) {
    if (value) out = std::move(*value);
  }
  template <class Out, class Value>
  static void assign(Out& out, Value&& value) {
    out = std::forward<Value>(value);
  }
  void sort_key(const YAML::Node& key, const YAML::Node& value, Keys known);
  [[nodiscard]] const YAML::Node* find(std::string_view key) const;

  Diagnostics& diag_;
  YAML::Node node_;
  std::string path_;
  bool is_map_ = false;
  std::vector<std::pair<std::string, YAML::Node>> entries_;  // known keys, first occurrence
};

}  // namespace volador::config
