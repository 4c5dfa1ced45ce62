#include "storage/journal/journal_keys.hpp"

#include "storage/journal/key_value_store.hpp"

#include <algorithm>
#include <limits>

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

// "<prefix><batches>/<uuid>", the tail shared by both checkpoint indexes.
std::string with_step_and_uuid(std::string prefix, const CheckpointRecord& record) {
  append_id(prefix, record.batches);
  return prefix + '/' + record.uuid;
}

// The fields after the tag of a key, for describe(): 'i' an 8-byte id, 'k' a
// metric-kind byte, 't' text to the end of the key.
std::string_view field_kinds(std::string_view tag) {
  if (tag == "m") return "ikii";
  if (tag == "kx") return "iiit";
  if (tag == "kt") return "iit";
  if (tag == "c" || tag == "k" || tag == "u" || tag == "tk" || tag == "mo" || tag == "mv") return "t";
  return "ii";
}

}  // namespace

std::string experiment(std::uint64_t id) { return with_id("e/", id); }
std::string trial(std::uint64_t id) { return with_id("t/", id); }
std::string archive(std::uint64_t experiment_id) { return with_id("a/", experiment_id); }
std::string searcher_state(std::uint64_t experiment_id) { return with_id("s/", experiment_id); }
std::string search_events_prefix(std::uint64_t experiment_id) { return with_id("se/", experiment_id) + '/'; }
std::string search_event(std::uint64_t experiment_id, std::uint64_t seq) {
  return with_id(search_events_prefix(experiment_id), seq);
}
std::string counter(std::string_view name) { return "c/" + std::string(name); }
std::string experiments_prefix() { return "e/"; }

std::string trial_index_prefix(std::uint64_t experiment_id) { return with_id("x/", experiment_id) + '/'; }
std::string trial_index(std::uint64_t experiment_id, std::uint64_t trial_id) {
  return with_id(trial_index_prefix(experiment_id), trial_id);
}

std::string metrics_prefix(std::uint64_t trial_id) { return with_id("m/", trial_id) + '/'; }
std::string metric_kind_prefix(std::uint64_t trial_id, MetricKind kind) {
  return metrics_prefix(trial_id) + kind_byte(kind) + '/';
}
// Built in one buffer (metric_kind_prefix, the batches, '/'): the journal
// makes two of these keys per metric point.
std::string metric_step_prefix(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches) {
  std::string key;
  key.reserve(2 + kIdBytes + 3 + kIdBytes + 1 + kIdBytes);  // room for metric()'s seq
  key += "m/";
  append_id(key, trial_id);
  key += '/';
  key += kind_byte(kind);
  key += '/';
  append_id(key, batches);
  key += '/';
  return key;
}
std::string metric(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, std::uint64_t seq) {
  std::string key = metric_step_prefix(trial_id, kind, batches);
  append_id(key, seq);
  return key;
}

std::string logs_prefix(std::uint64_t trial_id) { return with_id("l/", trial_id) + '/'; }
std::string log(std::uint64_t trial_id, std::uint64_t seq) { return with_id(logs_prefix(trial_id), seq); }

std::string checkpoint(std::string_view uuid) { return "k/" + std::string(uuid); }
std::string checkpoint_experiment_index_prefix(std::uint64_t experiment_id) {
  return with_id("kx/", experiment_id) + '/';
}
std::string checkpoint_trial_index_prefix(std::uint64_t trial_id) { return with_id("kt/", trial_id) + '/'; }
std::string checkpoint_experiment_index(const CheckpointRecord& record) {
  std::string prefix = with_id(checkpoint_experiment_index_prefix(record.experiment_id), record.trial_id) + '/';
  return with_step_and_uuid(std::move(prefix), record);
}
std::string checkpoint_trial_index(const CheckpointRecord& record) {
  return with_step_and_uuid(checkpoint_trial_index_prefix(record.trial_id), record);
}

std::string user(std::string_view name) { return users_prefix() + std::string(name); }
std::string users_prefix() { return "u/"; }
std::string token(std::string_view token_hash) { return "tk/" + std::string(token_hash); }
std::string experiment_metadata(std::uint64_t experiment_id) { return with_id("em/", experiment_id); }
std::string models_prefix() { return "mo/"; }
std::string model(std::string_view name) { return models_prefix() + std::string(name); }
std::string model_versions_prefix(std::string_view model_name) {
  return model_name.empty() ? "mv/" : "mv/" + std::string(model_name) + '/';
}
std::string model_version(std::string_view model_name, std::uint32_t version) {
  return with_id(model_versions_prefix(model_name), version);
}

KeyRange metrics_after(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches) {
  std::string end = prefix_end(metric_kind_prefix(trial_id, kind));
  if (batches == std::numeric_limits<std::uint64_t>::max()) return {.begin = end, .end = end};
  return {.begin = metric_step_prefix(trial_id, kind, batches + 1), .end = std::move(end)};
}

std::uint64_t metric_batches(std::string_view key, std::string_view kind_prefix) {
  return key.size() < kind_prefix.size() + kIdBytes ? 0 : read_id(key.substr(kind_prefix.size()));
}

std::uint64_t trailing_id(std::string_view key) {
  return key.size() < kIdBytes ? 0 : read_id(key.substr(key.size() - kIdBytes));
}

std::string_view checkpoint_uuid(std::string_view index_key) {
  const std::size_t ids = index_key.starts_with("kx/") ? 3 : 2;
  const std::size_t offset = 3 + ids * (kIdBytes + 1);
  return index_key.size() < offset ? std::string_view() : index_key.substr(offset);
}

std::string describe(std::string_view key) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) return std::string(key);
  std::string text(key.substr(0, slash + 1));
  std::string_view rest = key.substr(slash + 1);
  for (char field : field_kinds(key.substr(0, slash))) {
    if (rest.empty()) break;
    if (field == 'i') {
      text += std::to_string(read_id(rest));
      rest.remove_prefix(std::min(rest.size(), kIdBytes));
    } else if (field == 'k') {
      text += rest.front() == '\0' ? "training" : "validation";
      rest.remove_prefix(1);
    } else {
      text += rest;
      rest = {};
    }
    if (rest.starts_with('/')) {
      text += '/';
      rest.remove_prefix(1);
    }
  }
  return text;
}

}  // namespace volador::storage::keys
