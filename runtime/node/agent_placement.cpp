#include "runtime/node/agent_placement.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace volador::node {
namespace {

constexpr std::size_t kMaxKey = 63;
constexpr std::size_t kMaxValue = 255;

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
         c == '-' || c == '/';
}

bool is_printable(char c) { return c >= 0x20 && c != 0x7f; }

}  // namespace

Result<std::map<std::string, std::string>> parse_agent_labels(const std::vector<std::string>& flags) {
  std::map<std::string, std::string> labels;
  for (const auto& flag : flags) {
    const auto equals = flag.find('=');
    const std::string key = flag.substr(0, equals);
    const std::string value = equals == std::string::npos ? "" : flag.substr(equals + 1);
    if (equals == std::string::npos || key.empty() || key.size() > kMaxKey || !std::ranges::all_of(key, is_key_char))
      return fail(Error::invalid_argument("--label '" + flag + "': expected key=value with a key of 1 to 63 of "
                                          "a-z A-Z 0-9 _ . - /"));
    if (value.size() > kMaxValue || !std::ranges::all_of(value, is_printable))
      return fail(Error::invalid_argument("--label '" + flag + "': the value must be at most 255 printable characters"));
    if (!labels.emplace(key, value).second)
      return fail(Error::invalid_argument("--label '" + flag + "': label '" + key + "' is given twice"));
  }
  return labels;
}

Result<config::ClusterConfig> read_cluster_config(const std::string& path) {
  if (path.empty()) return config::default_cluster_config();
  std::ifstream file(path, std::ios::binary);
  if (!file) return fail(Error::not_found("cannot read the cluster config " + path));
  std::ostringstream text;
  text << file.rdbuf();
  auto outcome = config::parse_cluster_config(text.str(), path);
  if (auto* errors = std::get_if<std::vector<config::ConfigError>>(&outcome)) {
    auto message = config::format_errors(*errors);
    message.pop_back();  // the last newline
    return fail(Error::invalid_argument(std::move(message)));
  }
  return std::get<config::ClusterConfig>(std::move(outcome));
}

}  // namespace volador::node
