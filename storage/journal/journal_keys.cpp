#include "storage/journal/journal_keys.hpp"

#include <algorithm>

namespace volador::storage::keys {
namespace {

constexpr std::size_t kIdBytes = 8;

void append_id(std::string& key, std::uint64_t value) {
  for (int shift = 56; shift >= 0; shift -= 8) key.push_back(static_cast<char>((value >> shift) & 0xff));
}

std::string with_id(std::string_view prefix, std::uint64_t id) {
  std::string key(prefix);
  append_id(key, id);
  return key;
}

std::uint64_t read_id(std::string_view bytes) {
  std::uint64_t value = 0;
  for (char c : bytes.substr(0, kIdBytes)) value = (value << 8) | static_cast<unsigned char>(c);
  return value;
}

char kind_byte(MetricKind kind) { return kind == MetricKind::training ? '\0' : '\1'; }

}  // namespace

std::string experiment(std::uint64_t id) { return with_id("e/", id); }
std::string trial(std::uint64_t id) { return with_id("t/", id); }
std::string archive(std::uint64_t experiment_id) { return with_id("a/", experiment_id); }
std::string searcher_state(std::uint64_t experiment_id) { return with_id("s/", experiment_id); }
std::string counter(std::string_view name) { return "c/" + std::string(name); }
std::string experiments_prefix() { return "e/"; }

std::string trial_index_prefix(std::uint64_t experiment_id) { return with_id("x/", experiment_id) + '/'; }
std::string trial_index(std::uint64_t experiment_id, std::uint64_t trial_id) {
  return with_id(trial_index_prefix(experiment_id), trial_id);
}

std::string metrics_prefix(std::uint64_t trial_id) { return with_id("m/", trial_id) + '/'; }
std::string metric_step_prefix(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches) {
  std::string key = metrics_prefix(trial_id) + kind_byte(kind) + '/';
  append_id(key, batches);
  return key + '/';
}
std::string metric(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, std::uint64_t seq) {
  return with_id(metric_step_prefix(trial_id, kind, batches), seq);
}

std::string logs_prefix(std::uint64_t trial_id) { return with_id("l/", trial_id) + '/'; }
std::string log(std::uint64_t trial_id, std::uint64_t seq) { return with_id(logs_prefix(trial_id), seq); }

std::uint64_t trailing_id(std::string_view key) {
  return key.size() < kIdBytes ? 0 : read_id(key.substr(key.size() - kIdBytes));
}

std::string describe(std::string_view key) {
  if (key.size() < 2 || key[0] == 'c') return std::string(key);
  std::string text = std::string(key.substr(0, 2));
  std::string_view rest = key.substr(2);
  const bool metric_key = key[0] == 'm';
  for (int field = 0; !rest.empty(); ++field) {
    if (field > 0) {
      text += '/';
      rest.remove_prefix(rest.front() == '/' ? 1 : 0);
      if (rest.empty()) break;
    }
    if (metric_key && field == 1 && !rest.empty()) {
      text += rest.front() == '\0' ? "training" : "validation";
      rest.remove_prefix(1);
      continue;
    }
    text += std::to_string(read_id(rest));
    rest.remove_prefix(std::min(rest.size(), kIdBytes));
  }
  return text;
}

}  // namespace volador::storage::keys
