#pragma once
// Key layout of the journal in its key-value store (key_value_store.hpp). Ids are
// 8-byte big-endian, so a prefix scan returns records in id order:
//   e/<exp>                            experiment
//   t/<trial>                          trial
//   x/<exp>/<trial>                    index: the trials of an experiment (empty value)
//   m/<trial>/<kind>/<batches>/<seq>   metric report (kind: one byte, 0 training, 1 validation)
//   l/<trial>/<seq>                    log lines: a chunk of consecutive lines ending at seq (log_chunks.hpp)
//   a/<exp>                            model-definition archive
//   s/<exp>                            searcher state (the snapshot of the whole search state)
//   se/<exp>/<seq>                     search event after that snapshot (seq: 1, 2, ... since it)
//   c/<name>                           durable counter
//   k/<uuid>                           checkpoint (uuid: its text, to the end of the key)
//   kx/<exp>/<trial>/<batches>/<uuid>  index: the checkpoints of an experiment (empty value)
//   kt/<trial>/<batches>/<uuid>        index: the checkpoints of a trial (empty value)
//   u/<name>                           user (name: its text, to the end of the key)
//   tk/<hash>                          login token (hex of its hash, to the end of the key)
//   em/<exp>                           an experiment's description and labels as a user set them
//   mo/<name>                          model of the registry (name: its text, to the end of the key)
//   mv/<name>/<version>                version of a model (the name holds no '/')
// Changing this layout makes existing journals unreadable.

#include <cstdint>
#include <string>
#include <string_view>

#include "storage/journal/journal.hpp"

namespace volador::storage::keys {

std::string experiment(std::uint64_t id);
std::string trial(std::uint64_t id);
std::string trial_index(std::uint64_t experiment_id, std::uint64_t trial_id);
std::string metric(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches, std::uint64_t seq);
std::string log(std::uint64_t trial_id, std::uint64_t seq);
std::string archive(std::uint64_t experiment_id);
std::string searcher_state(std::uint64_t experiment_id);
std::string search_event(std::uint64_t experiment_id, std::uint64_t seq);
std::string counter(std::string_view name);
std::string checkpoint(std::string_view uuid);
std::string checkpoint_experiment_index(const CheckpointRecord& record);
std::string checkpoint_trial_index(const CheckpointRecord& record);
std::string user(std::string_view name);
std::string token(std::string_view token_hash);
std::string experiment_metadata(std::uint64_t experiment_id);
std::string model(std::string_view name);
std::string model_version(std::string_view model_name, std::uint32_t version);

// Prefixes shared by the keys of one scan.
std::string experiments_prefix();
std::string trial_index_prefix(std::uint64_t experiment_id);
std::string metrics_prefix(std::uint64_t trial_id);
std::string metric_kind_prefix(std::uint64_t trial_id, MetricKind kind);
std::string metric_step_prefix(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches);
std::string logs_prefix(std::uint64_t trial_id);
std::string search_events_prefix(std::uint64_t experiment_id);
std::string checkpoint_experiment_index_prefix(std::uint64_t experiment_id);
std::string checkpoint_trial_index_prefix(std::uint64_t trial_id);
std::string users_prefix();
std::string models_prefix();
// The versions of one model; with an empty name, of every model.
std::string model_versions_prefix(std::string_view model_name);

// Keys from `begin` (included) to `end` (excluded); empty when begin >= end.
struct KeyRange {
  std::string begin;
  std::string end;
};
// The keys of the trial's `kind` reports with batches > `batches`.
KeyRange metrics_after(std::uint64_t trial_id, MetricKind kind, std::uint64_t batches);

// The batches of metric report `key`, which starts with `kind_prefix` (metric_kind_prefix).
std::uint64_t metric_batches(std::string_view key, std::string_view kind_prefix);

// The id or seq in the last 8 bytes of a key (0 if the key is shorter).
std::uint64_t trailing_id(std::string_view key);

// The uuid at the end of a kx/ or kt/ index key (empty if the key is shorter).
std::string_view checkpoint_uuid(std::string_view index_key);

// A readable form for error messages, e.g. "m/7/validation/100/3".
std::string describe(std::string_view key);

}  // namespace volador::storage::keys
