#pragma once
// Journal records to and from their stored values, Cap'n Proto messages of
// schemas/journal.capnp in the standard flat framing. Encoding fails with
// invalid_argument: what journal_validation.hpp refuses, or a field over Cap'n
// Proto's size limits; decoding fails with corruption naming the record's key.
// Pure functions, no I/O.

#include <cstdint>
#include <string>
#include <string_view>

#include <capnp/common.h>
#include <kj/array.h>
#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "storage/journal/journal.hpp"

namespace volador::storage::codec {

using Words = kj::Array<capnp::word>;

// The bytes of an encoded value, to store.
std::string_view bytes_of(const Words& words);

// Corruption error "journal record KEY is corrupt: WHY".
Error corrupt(std::string_view key, std::string_view why);

// Decoders check what the key implies: an experiment, trial or checkpoint
// stored under another one's key is corruption.
Result<Words> encode_experiment(const ExperimentRecord& record);
Result<ExperimentRecord> decode_experiment(std::string_view key, std::string_view value);
Result<Words> encode_trial(const TrialRecord& record);
Result<TrialRecord> decode_trial(std::string_view key, std::string_view value);
Result<Words> encode_metrics(const MetricRecord& record);
Result<MetricRecord> decode_metrics(std::string_view key, std::string_view value);
Result<Words> encode_log(const LogLine& line);
Result<LogLine> decode_log(std::string_view key, std::string_view value);
Result<Words> encode_archive(std::uint64_t experiment_id, std::string_view bytes);
Result<std::string> decode_archive(std::string_view key, std::string_view value);
Result<Words> encode_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state);
Result<nlohmann::json> decode_searcher_state(std::string_view key, std::string_view value);
Result<Words> encode_counter(std::string_view name, std::uint64_t value);
Result<std::uint64_t> decode_counter(std::string_view key, std::string_view value);
// invalid_argument for an empty uuid.
Result<Words> encode_checkpoint(const CheckpointRecord& record);
Result<CheckpointRecord> decode_checkpoint(std::string_view key, std::string_view value);

}  // namespace volador::storage::codec
